"""ALGORI dealer events as typed values, and the adapter from activity dicts.

Each dealer event type has its own frozen dataclass.  Fields hold what the log says;
player-sent payloads are kept *raw* as well (``*_raw``), because the dealer logs them
before validating them and the validator must judge exactly what was sent.

The adapter (:func:`from_activities`) also attaches to each validated action the dealer's
verdict as the log shows it: the error of the ``penalty`` line that immediately follows it
(``rejected``), or ``None`` when the dealer accepted it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rules.uno.cards import Card

_CARD_CACHE: dict[tuple[Any, ...], Card | None] = {}


def card_of(obj: Any) -> Card | None:
    """Card of a dealer payload (cached), or None when it is not a well-typed card."""
    if type(obj) is not dict:
        return None
    number = obj.get("number")
    # the number's type is part of the key: 1, 1.0 and True are equal keys but only 1 is a number
    key = (obj.get("color"), number, type(number), obj.get("special"), len(obj))
    try:
        return _CARD_CACHE[key]
    except KeyError:
        card = Card.from_dealer(obj) if len(obj) <= 2 else None
        if card is not None and len(obj) != (2 if card.number is not None or card.special else 1):
            card = None
        _CARD_CACHE[key] = card
        return card
    except TypeError:  # unhashable values inside the payload
        return None


def cards_of(objs: Any) -> tuple[Card, ...]:
    if not isinstance(objs, list):
        return ()
    out = []
    for o in objs:
        c = card_of(o)
        if c is not None:
            out.append(c)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The dealer's ``desk`` object."""

    top: Card | None
    hands: dict[str, tuple[Card, ...]]
    yell: dict[str, Any]
    turn_right: Any
    draw: Any
    reveal: Any

    @classmethod
    def parse(cls, desk: Any) -> Snapshot | None:
        if not isinstance(desk, dict):
            return None
        hands = desk.get("card_of_player")
        yell = desk.get("yell_uno")
        return cls(
            top=card_of(desk.get("before_card_play")),
            hands={p: cards_of(h) for p, h in hands.items()} if isinstance(hands, dict) else {},
            yell=dict(yell) if isinstance(yell, dict) else {},
            turn_right=desk.get("turn_right"),
            draw=desk.get("draw_desk_number"),
            reveal=desk.get("reveal_desk_number"),
        )


@dataclass(frozen=True, slots=True)
class Event:
    """Fields every dealer event has."""

    seq: int
    round_no: int | None
    turn_no: int | None  # number_turn_play as logged
    player: str | None  # the activity's `player` (None for the dealer)
    desk: Any = field(repr=False, compare=False)  # the raw `desk` dict (parse with Snapshot.parse)
    date_ms: int | None = field(repr=False, compare=False)

    kind = "event"

    @property
    def snapshot(self) -> Snapshot | None:
        return Snapshot.parse(self.desk)


@dataclass(frozen=True, slots=True)
class JoinRoom(Event):
    code: str | None = None
    name: str | None = None
    kind = "join-room"


@dataclass(frozen=True, slots=True)
class FirstPlayer(Event):
    white_wild: str | None = None
    first_player: str | None = None
    first_card: Card | None = None
    seats: tuple[str, ...] = ()
    hands: dict[str, tuple[Card, ...]] = field(default_factory=dict)
    ruleset: str | None = None  # the profile the log names (a profile log; ALGORI logs have none)
    returned: tuple[Card, ...] = ()  # first cards turned and shuffled back (a profile log)
    kind = "first-player"


@dataclass(frozen=True, slots=True)
class NextPlayer(Event):
    next_player: str | None = None
    before_player: str | None = None
    card_before: Card | None = None
    hand_raw: Any = None  # the next player's hand as logged (parse with cards_of)
    turn_right: Any = None
    must_call_draw_card: Any = None
    draw_reason: Any = None
    number_card_play: Any = None
    counts: dict[str, Any] = field(default_factory=dict)
    draw_stack: Any = None  # {"number", "cards"} (a profile log with stacking)
    must_play_card: Any = None  # the offender of a successful challenge plays again (a profile log)
    kind = "next-player"


@dataclass(frozen=True, slots=True)
class CardAction(Event):
    """What play-card and play-draw-card share: the card, yell and colour as sent, the prediction."""

    card_raw: Any = None
    card: Card | None = None
    yell_raw: Any = None
    color_raw: Any = None
    has_color: bool = False
    next_player: Any = None
    skip_player: Any = None
    rejected: str | None = None  # the dealer's penalty text when it refused the action
    penalty_seq: int | None = None
    misdirected: str | None = None  # that penalty names another player (the refusal is the actor's)


@dataclass(frozen=True, slots=True)
class PlayCard(CardAction):
    pair_raw: Any = None  # card_play_pair as sent: the second card of a pair play (a profile log)
    pair: Card | None = None
    kind = "play-card"


@dataclass(frozen=True, slots=True)
class PlayDrawCard(CardAction):
    is_play_raw: Any = None
    kind = "play-draw-card"


@dataclass(frozen=True, slots=True)
class DrawCard(Event):
    cards: tuple[Card, ...] = ()
    is_draw: Any = None
    can_play: Any = None
    before_n: Any = None
    after_n: Any = None
    draw_reason: Any = None
    before_card: Any = None  # raw; the drawn card when can_play_draw_card is true
    draw_stack: Any = None  # the stack a forced draw takes (a profile log)
    kind = "draw-card"


@dataclass(frozen=True, slots=True)
class Challenge(Event):
    target: Any = None
    is_challenge_raw: Any = None
    success: Any = None
    receiver: Any = None
    cards: tuple[Card, ...] = ()
    kind = "challenge"


@dataclass(frozen=True, slots=True)
class PublicCard(Event):
    owner: Any = None
    cards: tuple[Card, ...] = ()
    shown_to: Any = None  # the challenger, the only player the hand is shown to (a profile log)
    kind = "public-card"


@dataclass(frozen=True, slots=True)
class PointedNotSayUno(Event):
    target: Any = None
    have_say_uno: Any = None
    hand: tuple[Card, ...] = ()
    pointer: Any = None  # the dealer's echo of the sender
    rejected: str | None = None  # penalty on the pointer
    penalty_seq: int | None = None
    succeeded: bool = False  # followed by "Did not say uno." on the target
    #: followed by "Did not say uno." on someone else (the pointer or a bystander): that player
    misdirected: str | None = None
    kind = "pointed-not-say-uno"


@dataclass(frozen=True, slots=True)
class SpecialLogic(Event):
    title_raw: Any = None
    rejected: str | None = None
    penalty_seq: int | None = None
    misdirected: str | None = None
    kind = "special-logic"


@dataclass(frozen=True, slots=True)
class ColorChangeRequest(Event):
    chooser: Any = None
    kind = "color-change-request"


@dataclass(frozen=True, slots=True)
class ColorOfWild(Event):
    color_raw: Any = None
    has_color: bool = False
    rejected: str | None = None
    penalty_seq: int | None = None
    misdirected: str | None = None
    kind = "color-of-wild"


@dataclass(frozen=True, slots=True)
class ShuffleWild(Event):
    shuffler: Any = None
    hands: dict[str, tuple[Card, ...]] = field(default_factory=dict)
    kind = "shuffle-wild"


@dataclass(frozen=True, slots=True)
class Penalty(Event):
    victim: Any = None
    cards: tuple[Card, ...] = ()
    error: str | None = None
    kind = "penalty"


@dataclass(frozen=True, slots=True)
class FinishTurn(Event):
    winner: Any = None
    scores: dict[str, Any] = field(default_factory=dict)
    totals: dict[str, Any] = field(default_factory=dict)
    hands: dict[str, tuple[Card, ...]] = field(default_factory=dict)
    kind = "finish-turn"


@dataclass(frozen=True, slots=True)
class FinishGame(Event):
    winner: Any = None
    order: dict[str, Any] = field(default_factory=dict)
    scores: dict[str, Any] = field(default_factory=dict)
    kind = "finish-game"


@dataclass(frozen=True, slots=True)
class Disconnect(Event):
    kind = "disconnect"


@dataclass(frozen=True, slots=True)
class Unknown(Event):
    name: str = ""
    kind = "unknown"


def penalty_text(error: Any) -> str | None:
    if isinstance(error, str):
        return error
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return None if error is None else str(error)


#: Errors each validated action can draw, and who gets the penalty ("actor" or "target").
PLAY_ERRORS = frozenset({
    "Next player invalid.", "Can not play card.", "Card play is required.", "Param card play invalid.",
    "Special card play invalid.", "Color card play invalid.", "Number card play invalid.",
    "Card play invalid.", "Yell uno is required.", "Param yell uno invalie.",
    "Card play not exist of player.", "Card play invalid with card before.",
    "Color of wild is required.", "Color wild invalid.", "Can not say uno and play card.",
})  # fmt: skip
PLAY_DRAW_ERRORS = PLAY_ERRORS | {"Can not play draw card.", "Is play card is required.", "Param is play card invalie."}
COLOR_ERRORS = frozenset({"Next player invalid.", "Already changed color.", "Color of wild is required.",
                          "Color wild invalid.", "Can not chose color of wild."})  # fmt: skip
POINT_ERRORS = frozenset({"Player name is required.", "Player name invalid.", "Can not pointed not say uno."})
TITLE_ERRORS = frozenset({"Param title invalid.", "Special logic title too long."})
#: Penalties for a challenge the dealer writes no line for: naming another player than the sender of
#: the action line before them, they are that player's (not a verdict on the action).
PENALTY_ONLY = frozenset({"Can not challenge.", "Is challenge is required.", "Param is challenge invalie."})


def _desk(a: dict[str, Any]) -> Any:
    desk = a.get("desk")
    return desk if isinstance(desk, dict) else None


def _int(v: Any) -> int | None:
    return v if type(v) is int else None


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _hands(v: Any) -> dict[str, tuple[Card, ...]]:
    return {p: cards_of(h) for p, h in v.items() if isinstance(p, str)} if isinstance(v, dict) else {}


def to_event(a: dict[str, Any]) -> Event:
    """One activity dict (``seq, event, player, turn, contents, desk, date_ms``) to an Event."""
    c = a.get("contents")
    c = c if isinstance(c, dict) else {}
    name = a.get("event")
    base = dict(
        seq=a["seq"], round_no=_int(a.get("turn")), turn_no=_int(c.get("number_turn_play")),
        player=_str(a.get("player")) or None, desk=_desk(a), date_ms=a.get("date_ms"),
    )  # fmt: skip
    if name == "play-card":
        return PlayCard(**base, card_raw=c.get("card_play", _MISSING), card=card_of(c.get("card_play")),
                        yell_raw=c.get("yell_uno", _MISSING), color_raw=c.get("color_of_wild"),
                        has_color="color_of_wild" in c, next_player=c.get("next_player"),
                        skip_player=c.get("skip_player"), pair_raw=c.get("card_play_pair"),
                        pair=card_of(c.get("card_play_pair")))  # fmt: skip
    if name == "next-player":
        return NextPlayer(**base, next_player=_str(c.get("next_player")), before_player=_str(c.get("before_player")),
                          card_before=card_of(c.get("card_before")), hand_raw=c.get("card_of_player"),
                          turn_right=c.get("turn_right"), must_call_draw_card=c.get("must_call_draw_card"),
                          draw_reason=c.get("draw_reason"), number_card_play=c.get("number_card_play"),
                          counts=c.get("number_card_of_player") if isinstance(c.get("number_card_of_player"), dict) else {},
                          draw_stack=c.get("draw_stack"), must_play_card=c.get("must_play_card"))  # fmt: skip
    if name == "draw-card":
        dd = c.get("draw_desk") if isinstance(c.get("draw_desk"), dict) else {}
        return DrawCard(**base, cards=cards_of(c.get("card_draw")), is_draw=c.get("is_draw"),
                        can_play=c.get("can_play_draw_card"), before_n=dd.get("before"), after_n=dd.get("after"),
                        draw_reason=c.get("draw_reason"), before_card=c.get("before_card"),
                        draw_stack=c.get("draw_stack"))  # fmt: skip
    if name == "play-draw-card":
        return PlayDrawCard(**base, is_play_raw=c.get("is_play_card", _MISSING), card_raw=c.get("card_play"),
                            card=card_of(c.get("card_play")), yell_raw=c.get("yell_uno", _MISSING),
                            color_raw=c.get("color_of_wild"), has_color="color_of_wild" in c,
                            next_player=c.get("next_player"), skip_player=c.get("skip_player"))  # fmt: skip
    if name == "first-player":
        order = c.get("play_order")
        return FirstPlayer(**base, white_wild=_str(c.get("white_wild")), first_player=_str(c.get("first_player")),
                           first_card=card_of(c.get("first_card")),
                           seats=tuple(p for p in order if isinstance(p, str)) if isinstance(order, list) else (),
                           hands=_hands(c.get("cards_receive")), ruleset=_str(c.get("ruleset")),
                           returned=cards_of(c.get("first_card_returned")))  # fmt: skip
    if name == "color-of-wild":
        return ColorOfWild(**base, color_raw=c.get("color_of_wild"), has_color="color_of_wild" in c)
    if name == "penalty":
        return Penalty(**base, victim=_str(c.get("player")), cards=cards_of(c.get("cards_receive")),
                       error=penalty_text(c.get("error")))  # fmt: skip
    if name == "challenge":
        r = c.get("result") if isinstance(c.get("result"), dict) else {}
        return Challenge(**base, target=c.get("target"), is_challenge_raw=c.get("is_challenge", _MISSING),
                         success=r.get("is_challenge_success"), receiver=_str(r.get("player")),
                         cards=cards_of(r.get("cards_receive")))  # fmt: skip
    if name == "public-card":
        return PublicCard(**base, owner=_str(c.get("player")), cards=cards_of(c.get("cards")), shown_to=c.get("shown_to"))
    if name == "pointed-not-say-uno":
        return PointedNotSayUno(**base, target=c.get("target"), have_say_uno=c.get("have_say_uno"),
                                hand=cards_of(c.get("card_of_player")), pointer=c.get("pointer"))  # fmt: skip
    if name == "special-logic":
        return SpecialLogic(**base, title_raw=c.get("title", _MISSING))
    if name == "color-change-request":
        return ColorChangeRequest(**base, chooser=_str(c.get("player")))
    if name == "shuffle-wild":
        return ShuffleWild(**base, shuffler=_str(c.get("player")), hands=_hands(c.get("cards_receive")))
    if name == "finish-turn":
        return FinishTurn(**base, winner=_str(c.get("winner")),
                          scores=c.get("score") if isinstance(c.get("score"), dict) else {},
                          totals=c.get("total_score") if isinstance(c.get("total_score"), dict) else {},
                          hands=_hands(c.get("card_of_player")))  # fmt: skip
    if name == "finish-game":
        score = c.get("score", c.get("total_score"))
        return FinishGame(**base, winner=_str(c.get("winner")),
                          order=c.get("order") if isinstance(c.get("order"), dict) else {},
                          scores=score if isinstance(score, dict) else {})  # fmt: skip
    if name == "join-room":
        return JoinRoom(**base, code=_str(c.get("player_code", c.get("player_id"))) or a.get("player"),
                        name=_str(c.get("player_name")))  # fmt: skip
    if name == "disconnect":
        return Disconnect(**base)
    return Unknown(**base, name=str(name))


class _Missing:
    """Marks a field the client did not send at all (distinct from null)."""

    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()
MISSING = _MISSING


_NOBODY: Any = object()  # _with_verdict: who is to act is not known (a stateless read of the log)


def from_activities(activities: Iterable[dict[str, Any]]) -> Iterator[Event]:
    """Typed events in log order, each validated action carrying the dealer's verdict."""
    prev: Event | None = None
    for a in activities:
        ev = to_event(a)
        if prev is not None:
            yield _with_verdict(prev, ev)
        prev = ev
    if prev is not None:
        yield prev


def _with_verdict(ev: Event, nxt: Event, to_act: Any = _NOBODY) -> Event:
    """Attach the penalty that immediately follows an action, if it answers that action.

    The dealer writes an action's line before judging it and its penalty right after, so the
    penalty right after a play, play-draw, colour choice or special logic answers that action —
    even when its text is one this action cannot draw (a wrong cause: ``rejected`` holds it) or it
    names another player (``misdirected``).  Not linked, unless the penalty names the sender or
    the sender was not the one to act (``to_act``, unknown in a stateless read of the log: then the
    rules refuse the action and its penalty must come next): an invalid-challenge penalty or a
    "Next player invalid." naming someone else (that player's unlogged challenge or out-of-turn
    draw).  A timeout is the verdict on an action only when it names a sender who was not the
    one to act (it cannot be their own timeout); otherwise the clock judges it.
    """
    if not isinstance(nxt, Penalty) or nxt.error is None:
        return ev
    err = nxt.error
    if isinstance(ev, PlayCard) and nxt.victim == ev.player and err in PLAY_ERRORS:
        if ev.card_raw is _MISSING and err == "Param card play invalid.":
            # MongoDB copies drop empty objects (mongoose minimize): the client sent `card_play: {}`
            return _replace(ev, rejected=err, penalty_seq=nxt.seq, card_raw={})
        return _replace(ev, rejected=err, penalty_seq=nxt.seq)
    if isinstance(ev, PlayDrawCard) and nxt.victim == ev.player and err in PLAY_DRAW_ERRORS:
        return _replace(ev, rejected=err, penalty_seq=nxt.seq)
    if isinstance(ev, ColorOfWild) and nxt.victim == ev.player and err in COLOR_ERRORS:
        return _replace(ev, rejected=err, penalty_seq=nxt.seq)
    if isinstance(ev, SpecialLogic) and nxt.victim == ev.player and err in TITLE_ERRORS:
        return _replace(ev, rejected=err, penalty_seq=nxt.seq)
    if isinstance(ev, SpecialLogic) and (err in PENALTY_ONLY or err == "Next player invalid."):
        # the dealer judges a special logic by its title only, at any time: a turn or challenge error after it
        # answers that player's unlogged out-of-turn draw or challenge
        return ev
    if isinstance(ev, (CardAction, ColorOfWild, SpecialLogic)) and isinstance(ev.player, str) \
            and isinstance(nxt.victim, str) and _answers(ev.player, nxt.victim, err, to_act):
        return _replace(ev, rejected=err, penalty_seq=nxt.seq,
                        misdirected=nxt.victim if nxt.victim != ev.player else None)  # fmt: skip
    if isinstance(ev, PointedNotSayUno):
        if nxt.victim == ev.player and err in POINT_ERRORS:
            return _replace(ev, rejected=err, penalty_seq=nxt.seq)
        if nxt.victim == ev.target and err == "Did not say uno.":
            return _replace(ev, succeeded=True, penalty_seq=nxt.seq)
        if err == "Did not say uno." and isinstance(nxt.victim, str):
            # the UNO penalty this pointing caused, given to a player the pointing did not name
            return _replace(ev, misdirected=nxt.victim, penalty_seq=nxt.seq)
    return ev


def _answers(sender: str, victim: str, err: str, to_act: Any) -> bool:
    """Whether a penalty (``victim``, ``err``) right after ``sender``'s action is the verdict on it."""
    own, out_of_turn = victim == sender, to_act is not _NOBODY and sender != to_act
    if err in ("timeout", "color-of-wild timeout"):
        # the timer of the player to act may fire right after their action line: the clock judges that;
        # a timeout naming a sender who was not to act can only be the verdict on the action
        return own and out_of_turn
    if out_of_turn or own:
        return True  # the verdict on the action (out of turn, the rules refuse it): at worst a wrong cause
    return err not in PENALTY_ONLY and err != "Next player invalid."


def _replace(ev: Event, **changes: Any) -> Event:
    from dataclasses import replace

    return replace(ev, **changes)
