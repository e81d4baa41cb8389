"""The UNO model of a profile: seats, legal actions and the effect of every log line.

Pure functions of an immutable :class:`~rules.uno.state.GameState`, a
:class:`~rules.uno.profile.Profile` and a typed event.  Kifu's referee plays through them
(it asks :func:`legal` what a player may do and :func:`apply` what a line does) and the
profile audit (:mod:`rules.uno.audit`) replays a log through them before judging it — so
what a rule means is written once.  The ALGORI 2023 dealer has a model of its own
(:mod:`rules.uno.transitions`): it models one program's documented behaviour, quirks included.

Cards drawn are taken from the log (a draw line lists them); the draw pile is a count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.uno import events as E
from rules.uno.cards import COLORS, Card
from rules.uno import transitions as T
from rules.uno.profile import Profile
from rules.uno.state import GameState, frozen, remove_card
from rules.uno.verdicts import truthy

#: Refusals that do not end the turn of the player to act (the turn goes on / was someone else's).
NO_TURN_EFFECT = frozenset({"Did not say uno.", "Next player invalid."})

STACK_CARDS = ("draw_2", "wild_draw_4")


def stack_total(stack: tuple[Card, ...]) -> int:
    return sum(4 if c.special == "wild_draw_4" else 2 for c in stack)


def draw_reason(stack: tuple[Card, ...]) -> str:
    return stack[-1].special if stack else "nothing"  # type: ignore[return-value]


# ----------------------------------------------------------------------------- seats


def next_seat(s: GameState, player: str | None) -> str | None:
    """Who plays after ``player`` (skip flag included)."""
    nxt = s.next_of(player)
    return s.next_of(nxt) if s.skip and nxt is not None else nxt


def handover_due(s: GameState) -> bool:
    """The next line of the round is a ``next-player``: the player to act has finished."""
    if not s.in_round or s.winner is not None or s.gate is not None or s.auto_draw is not None:
        return False
    if s.renotify is not None or s.to_act is None:
        return True
    return s.prev_actor == s.to_act


def turn_ended(s: GameState) -> bool:
    """The player to act has done what the rules allow a turn and may do nothing more before the hand-over.

    The turn state machine of a profile (JUA, docs/rules/jua.md R8, R14, R19): a turn is one of

    * a play (a card or a pair; a wild then only its colour) — the turn ends;
    * a draw: a drawn card that cannot be played joins the hand and the turn ends; a playable one
      opens the drawn-card window (``gate == "play-draw"``), where only that card may be played or
      kept (元の手札からはカードを出すことはできない) — either ends the turn; a second draw is refused;
    * a draw of the pending stack — the turn ends (手番はそこで終了し、場にカードを捨てることはできない);
    * a challenge — the turn ends (the offender replays first after a success);
    * a penalty that costs the turn.

    After that only the hand-over may follow: a play or a draw by the same player is refused."""
    return handover_due(s) and s.to_act is not None and (s.prev_actor == s.to_act or s.renotify is not None)


def expected_next(s: GameState) -> str | None:
    """Who the rules give the next turn to."""
    if s.renotify is not None:
        return s.renotify
    return next_seat(s, s.prev_actor)


# ----------------------------------------------------------------------------- legality


def refusal(profile: Profile, s: GameState, ev: E.Event) -> tuple[str, str] | None:
    """The (check code, penalty text) an action breaks, or ``None`` when the rules accept it.

    ``pair-finish-uno`` is not a refusal: the play is accepted with one card (see :func:`pair_cut`).
    """
    p = ev.player
    if isinstance(ev, (E.PlayCard, E.DrawCard)) and p is not None and p == s.to_act and turn_ended(s):
        return "turn-owner", "Next player invalid."  # the turn is over: the next player acts next (R8, R14)
    if isinstance(ev, E.PlayCard):
        if p != s.to_act or s.gate == "color":
            return "turn-owner", "Next player invalid."
        if s.gate == "play-draw":
            return "play-draw-allowed", "Only the drawn card may be played."
        card = ev.card
        if card is None or not _in_deck(profile, card):
            return "card-object-valid", "Card play invalid."
        hand = s.hand(p)
        if card not in hand:
            return "card-owned", "Card play not exist of player."
        if ev.pair_raw is not None:
            pair = ev.pair
            if pair is None or not _in_deck(profile, pair):
                return "card-object-valid", "Card play invalid."
            if pair not in _without(hand, card):
                return "card-owned", "Card play not exist of player."
            if not profile.pair_ok(card, pair):
                return "pair-identical", "Pair invalid."
        if s.stack:
            if ev.pair_raw is not None or not profile.stacking.answers(card, s.stack):
                return "stack-answer", "Can not answer draw stack."
        elif not fits(profile, s, card):
            return "card-legal-on-top", "Card play invalid with card before."
        return _colour_refusal(card, ev)
    if isinstance(ev, E.PlayDrawCard):
        if p != s.to_act:
            return "turn-owner", "Next player invalid."
        if s.drawn_card is None or s.gate != "play-draw":
            return "play-draw-allowed", "Can not play draw card."
        if truthy(ev.is_play_raw):
            return _colour_refusal(s.drawn_card, ev)
        return None
    if isinstance(ev, E.DrawCard):
        if p != s.to_act:
            return "turn-owner", "Next player invalid."
        if s.must_play == p:
            return "challenge-must-play", "Card play is required."
        if s.gate == "play-draw":  # one draw a turn: the drawn card is played or kept (R8)
            return "play-draw-allowed", "Only the drawn card may be played."
        return None
    if isinstance(ev, E.Challenge):
        if not truthy(ev.is_challenge_raw):
            return None
        if p != s.to_act or not profile.challenge.may_challenge(s.stack) or s.must_play is not None:
            return "challenge-eligible", "Can not challenge."
        return None
    if isinstance(ev, E.ColorOfWild):
        if s.gate != "color" or p != s.chooser:
            return "colour-choice-eligible", "Already changed color."
        if ev.color_raw not in COLORS:
            return ("wild-colour-given", "Color of wild is required.") if not ev.color_raw else \
                ("wild-colour-valid", "Color wild invalid.")  # fmt: skip
        return None
    return None


def _colour_refusal(card: Card, ev: E.CardAction) -> tuple[str, str] | None:
    if card.special in ("wild", "wild_draw_4"):
        if not ev.color_raw:
            return "wild-colour-given", "Color of wild is required."
        if ev.color_raw not in COLORS:
            return "wild-colour-valid", "Color wild invalid."
    return None


def _in_deck(profile: Profile, card: Card) -> bool:
    return card in _deck_faces(profile)


_FACES: dict[Any, frozenset[Card]] = {}


def _deck_faces(profile: Profile) -> frozenset[Card]:
    faces = _FACES.get(profile.deck)
    if faces is None:
        faces = _FACES[profile.deck] = frozenset(profile.deck.cards())
    return faces


def fits(profile: Profile, s: GameState, card: Card) -> bool:
    """``card`` may be played on the top (no stack pending). A first card the rules turn again (a wild draw 4)
    that a log nevertheless shows as the first card takes any card: the deal's fault, reported there."""
    return s.first_turn == "any" or profile.playable(card, s.top)


def pair_cut(profile: Profile, s: GameState, ev: E.PlayCard) -> bool:
    """A pair that would empty the hand without the UNO call: only its first card is played (JUA ◆最後に2枚の
    同一カードを出してあがる…ウノコールをしていなかった場合はペナルティはないが、あがることもできず、カードは1枚のみしか
    捨てることはできない). There is no penalty: the player left on one card cannot be pointed at for it."""
    return ev.pair_raw is not None and profile.uno.pair_finish_needs_call and len(s.hand(ev.player)) == 2 \
        and not truthy(ev.yell_raw)  # fmt: skip


def legal(profile: Profile, s: GameState, player: str) -> list[dict[str, Any]]:
    """Every action the rules allow ``player`` now (colour and UNO call left to the player), for bots."""
    hand = s.hand(player)
    if s.gate == "color":
        return [{"action": "color"}] if s.chooser == player else []
    if player != s.to_act or turn_ended(s):
        return []
    if s.gate == "play-draw":
        return [{"action": "play_drawn", "play": True}, {"action": "play_drawn", "play": False}]
    out: list[dict[str, Any]] = []
    seen: set[Card] = set()
    for c in hand:
        if c in seen:
            continue
        seen.add(c)
        if s.stack:
            if not profile.stacking.answers(c, s.stack):
                continue
        elif not fits(profile, s, c):
            continue
        out.append({"action": "play", "card": c})
        if profile.pairs and not s.stack and c.number is not None and hand.count(c) >= 2:
            out.append({"action": "play", "card": c, "pair": c})
    if s.must_play != player:
        out.append({"action": "draw"})
    if s.stack and profile.challenge.may_challenge(s.stack):
        out.append({"action": "challenge"})
    return out


# ----------------------------------------------------------------------------- effects


def _set(m: Any, k: str, v: Any) -> Any:
    d = dict(m)
    d[k] = v
    return frozen(d)


def draw_into(s: GameState, player: str, cards: tuple[Card, ...]) -> dict[str, Any]:
    """Cards into a hand; the draw pile rebuilt from the discards but the top when it runs out."""
    pile, discard = s.draw_pile, s.discard
    if len(cards) > pile:  # (no discard at all: a challenge took back the top that a rebuild had left alone)
        pile, discard = pile + max(0, discard - 1), min(discard, 1)
    return dict(hands=_set(s.hands, player, s.hand(player) + tuple(cards)), draw_pile=max(0, pile - len(cards)),
                discard=discard)  # fmt: skip


def deal(profile: Profile, s: GameState, ev: E.FirstPlayer) -> GameState:
    seats = ev.seats
    dealt = sum(len(h) for h in ev.hands.values())
    first = ev.first_card
    st = GameState(
        round_no=ev.round_no or s.round_no + 1, seats=seats, hands=frozen(dict(ev.hands)),
        draw_pile=max(0, profile.deck.size - dealt - 1), discard=1, top=first, direction=True, cards_played=1,
        yell=frozen({p: False for p in seats}), in_round=True, totals=s.totals, wins=s.wins, turn_no=0,
        players=s.players or seats, names=s.names, prev_actor=seats[0] if seats else None,
    )  # fmt: skip
    if first is None or len(seats) < 2:
        return st
    if first.special in profile.first_card.redeal:
        return st.replace(first_turn="any")
    sp = first.special
    if sp == "draw_2":
        return st.replace(stack=(first,), pending=2, owes_draw=True)
    if sp == "skip":
        return st.replace(skip=True)
    if sp == "reverse":
        return st.replace(direction=False, skip=profile.reverse_skips(len(seats)))
    if sp == "wild":
        chooser = seats[0] if profile.first_card.wild_color == "dealer" else seats[1]
        return st.replace(gate="color", chooser=chooser, first_turn="wild")
    return st


def hand_over(s: GameState, player: str | None) -> GameState:
    """The turn passes to ``player`` (a skip with two players, or a successful challenge, can hand it back
    to the player who acted last: that player has not acted in the new turn yet)."""
    gate = None if s.gate == "play-draw" else s.gate  # a drawn-card window never outlives its turn
    return s.replace(to_act=player, turn_no=s.turn_no + 1, skip=False, renotify=None, owes_draw=bool(s.stack),
                     prev_actor=None if player == s.prev_actor else s.prev_actor, gate=gate,
                     drawn_card=None if gate is None else s.drawn_card)  # fmt: skip


def _without(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    rest = remove_card(hand, card)
    return hand if rest is None else rest


def played(profile: Profile, s: GameState, player: str, card: Card, pair: Card | None, color_raw: Any,
           yell_raw: Any) -> GameState:  # fmt: skip
    """The effect of an accepted play of ``card`` (and its ``pair``)."""
    rest = _without(s.hand(player), card)
    if pair is not None:
        rest = _without(rest, pair)
    n = 1 if pair is None else 2
    sp = card.special
    color = color_raw if color_raw in COLORS else None
    top = Card(color or "black", None, sp) if sp in ("wild", "wild_draw_4") else card
    yelled = truthy(yell_raw) and len(rest) == 1
    ch: dict[str, Any] = dict(
        hands=_set(s.hands, player, rest), top=top, discard=s.discard + n, cards_played=s.cards_played + n,
        prev_actor=player, gate=None, drawn_card=None, must_play=None, skip=False, stall=0, first_turn=None,
        yell=_set(s.yell, player, yelled), pointable=player if len(rest) == 1 and not yelled else None,
        fallback_color=s.top.color if s.top is not None else s.fallback_color,
    )  # fmt: skip
    if sp in STACK_CARDS:
        stack = s.stack + (card,)
        ch.update(stack=stack, pending=stack_total(stack), owes_draw=True)
        if sp == "wild_draw_4":
            ch.update(wd4_base=s.top)
    else:
        ch.update(stack=(), pending=0, owes_draw=False)
    if sp == "skip":
        ch.update(skip=True)
    elif sp == "reverse":
        ch.update(direction=not s.direction, skip=profile.reverse_skips(len(s.seats)))
    if sp in ("wild", "wild_draw_4"):
        ch.update(color_echo=player)
    if not rest:
        ch.update(winner=player)
    return s.replace(**ch)


def _play(profile: Profile, s: GameState, ev: E.PlayCard) -> GameState:
    if ev.rejected is not None or ev.card is None or ev.player is None:
        return s
    if pair_cut(profile, s, ev):  # one card played, no penalty (so no pointing either)
        return played(profile, s, ev.player, ev.card, None, ev.color_raw, ev.yell_raw).replace(pointable=None)
    return played(profile, s, ev.player, ev.card, ev.pair, ev.color_raw, ev.yell_raw)


def _play_draw(profile: Profile, s: GameState, ev: E.PlayDrawCard) -> GameState:
    if ev.rejected is not None or ev.player is None:
        return s
    if truthy(ev.is_play_raw) and s.drawn_card is not None:
        return played(profile, s, ev.player, s.drawn_card, None, ev.color_raw, ev.yell_raw)
    return s.replace(prev_actor=ev.player, gate=None, drawn_card=None)


def _draw(profile: Profile, s: GameState, ev: E.DrawCard) -> GameState:
    p = ev.player
    if p is None or ev.is_draw is False:  # a draw the referee refused: nothing moves
        return s
    ch = draw_into(s, p, ev.cards)
    hand_n = len(s.hand(p)) + len(ev.cards)
    ch.update(yell=_set(s.yell, p, bool(s.yell.get(p)) and hand_n == 1),
              pointable=None if s.pointable == p and ev.cards else s.pointable)  # fmt: skip
    if s.winner is not None:  # the last card's stack, drawn after the round is won
        ch.update(stack=(), pending=0, owes_draw=False)
        return s.replace(**ch)
    if s.stack or s.auto_draw is not None:
        stall = 0 if ev.cards else s.stall if s.auto_draw is not None else s.stall + 1  # one count per turn
        ch.update(stack=(), pending=0, owes_draw=False, prev_actor=p, gate=None, auto_draw=None, drawn_card=None,
                  stall=stall, must_play=None)  # fmt: skip
    elif len(ev.cards) == 1 and fits(profile, s, ev.cards[0]):  # the rules open the window (R8), whatever
        ch.update(drawn_card=ev.cards[0], gate="play-draw", stall=0)   # can_play_draw_card says (judged apart)
    else:
        ch.update(prev_actor=p, drawn_card=None, gate=None, stall=0 if ev.cards else s.stall + 1)
    return s.replace(**ch)


def _challenge(profile: Profile, s: GameState, ev: E.Challenge) -> GameState:
    if not truthy(ev.is_challenge_raw) or ev.player is None or ev.success is None:
        return s
    # who received the cards says which outcome the referee applied (a verdict flag against them is judged apart)
    succeeded = ev.receiver != ev.player if isinstance(ev.receiver, str) else ev.success is True
    if succeeded:
        target = ev.receiver if isinstance(ev.receiver, str) else ev.target if isinstance(ev.target, str) else s.prev_actor
        back = ev.cards[:1] if ev.cards and ev.cards[0].special == "wild_draw_4" else ()
        drawn = ev.cards[len(back):]
        ch = draw_into(s.replace(discard=max(0, s.discard - len(back))), target, drawn)
        ch["hands"] = _set(ch["hands"], target, back + ch["hands"][target]) if back else ch["hands"]
        stack = s.stack[:-1]
        ch.update(top=s.wd4_base, stack=stack, pending=stack_total(stack), owes_draw=bool(stack), wd4_base=None,
                  must_play=target, renotify=target, prev_actor=target, color_echo=None, pointable=None,
                  yell=_set(s.yell, target, False))  # fmt: skip
        return s.replace(**ch)
    ch = draw_into(s, ev.player, ev.cards)
    ch.update(stack=(), pending=0, owes_draw=False, prev_actor=ev.player, yell=_set(s.yell, ev.player, False),
              pointable=None if s.pointable == ev.player else s.pointable)  # fmt: skip
    return s.replace(**ch)


def _penalty(profile: Profile, s: GameState, ev: E.Penalty) -> GameState:
    victim = ev.victim
    if not isinstance(victim, str) or victim not in s.hands:
        return s
    ch = draw_into(s, victim, ev.cards)
    ch.update(yell=_set(s.yell, victim, False))
    err = ev.error or ""
    if s.pointable == victim and (ev.cards or err == "Did not say uno."):
        ch.update(pointable=None)
    if err in NO_TURN_EFFECT or victim != s.to_act or handover_due(s) or s.winner is not None:
        return s.replace(**ch)
    ch.update(gate=None, drawn_card=None, must_play=None, renotify=None, stall=0 if ev.cards else s.stall + 1)
    if s.gate == "color" and s.chooser == victim:  # a colour choice refused: the previous colour stays
        ch.update(chooser=None, top=Card(s.fallback_color or "red", None, s.top.special) if s.top is not None else None)
    if s.stack:
        ch.update(auto_draw=err)  # the turn is lost: the stack is drawn next
        return s.replace(**ch)
    ch.update(prev_actor=victim)
    return s.replace(**ch)


def _color_request(profile: Profile, s: GameState, ev: E.ColorChangeRequest) -> GameState:
    """The referee asks a player for a colour: that player answers (a request of the wrong player is the
    referee's fault, judged apart; the player who answers the request is not at fault)."""
    asked = ev.chooser if isinstance(ev.chooser, str) and ev.chooser in s.hands else None
    chooser = asked or (s.chooser if isinstance(s.chooser, str) else None)
    return s.replace(gate="color", chooser=chooser)


def _color(profile: Profile, s: GameState, ev: E.ColorOfWild) -> GameState:
    if s.color_echo is not None and not (s.gate == "color" and s.chooser == ev.player):
        return s.replace(color_echo=None)  # the referee's echo of a wild's colour
    if ev.rejected is not None or s.top is None or s.gate != "color":
        return s
    color = ev.color_raw if ev.color_raw in COLORS else s.top.color
    return s.replace(top=Card(color, None, s.top.special), gate=None, chooser=None, first_turn=None)


def _next(profile: Profile, s: GameState, ev: E.NextPlayer) -> GameState:
    return hand_over(s, ev.next_player)  # the rules' count (a log that counts otherwise: the audit's turn_log)


def _finish_turn(profile: Profile, s: GameState, ev: E.FinishTurn) -> GameState:
    """The round's end by the rules: the replay's winner and the profile's scores (the log's are judged apart)."""
    winner = s.winner if s.winner is not None else ev.winner if isinstance(ev.winner, str) else None
    scores = profile.scoring.round({p: s.hand(p) for p in s.seats}, winner)
    totals = {p: s.totals.get(p, 0) + scores.get(p, 0) for p in {*s.totals, *s.seats}}
    wins = dict(s.wins)
    if winner is not None:
        wins[winner] = wins.get(winner, 0) + 1
    return s.replace(in_round=False, totals=frozen(totals), wins=frozen(wins), winner=winner)


def _join(profile: Profile, s: GameState, ev: E.JoinRoom) -> GameState:
    return T.join(s, ev)


_APPLY: dict[type, Callable[[Profile, GameState, Any], GameState]] = {
    E.JoinRoom: _join,
    E.FirstPlayer: deal,
    E.NextPlayer: _next,
    E.PlayCard: _play,
    E.PlayDrawCard: _play_draw,
    E.DrawCard: _draw,
    E.Challenge: _challenge,
    E.ColorChangeRequest: _color_request,
    E.ColorOfWild: _color,
    E.Penalty: _penalty,
    E.FinishTurn: _finish_turn,
}


def apply(profile: Profile, s: GameState, ev: E.Event) -> GameState:
    """The state after ``ev`` (what the log says happened; judging is the audit's)."""
    fn = _APPLY.get(type(ev))
    return s if fn is None else fn(profile, s, ev)
