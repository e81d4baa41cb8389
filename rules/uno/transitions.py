"""``apply(state, event)``: what the dealer did, replayed onto the board.

Like python-chess's ``Board.push`` this *trusts the log*: cards drawn, dealt or
redistributed are taken from the events, and an action the dealer refused (the adapter
attached its ``rejected`` penalty text) changes nothing by itself — the following
``penalty`` event applies the penalty.  Judging is done separately, in ``checks``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.uno import events as E
from rules.uno.cards import COLORS, Card
from rules.uno.verdicts import truthy
from rules.uno.state import DECK_SIZE, EMPTY, HAND_CAP, GameState, frozen, remove_card

#: Penalties that never affect whose turn it is.
NO_TURN_EFFECT = frozenset({"Did not say uno.", "Next player invalid."}) | E.POINT_ERRORS | E.TITLE_ERRORS
TIMEOUTS = frozenset({"timeout", "color-of-wild timeout"})


def apply(state: GameState, event: E.Event) -> GameState:
    """The state after ``event``."""
    fn = _APPLY.get(type(event))
    return fn(state, event) if fn is not None else state


# ----------------------------------------------------------------- helpers


def draw_into(s: GameState, player: Any, cards: tuple[Card, ...]) -> dict[str, Any]:
    """Hand and pile changes of ``player`` drawing ``cards`` (reshuffling the discards if needed)."""
    n = len(cards)
    pile, discard = s.draw_pile, s.discard
    if n > pile:
        pile += discard - 1
        discard = 1
    pile = max(0, pile - n)
    hands = dict(s.hands)
    if isinstance(player, str):
        hands[player] = hands.get(player, ()) + cards
    return {"hands": frozen(hands), "draw_pile": pile, "discard": discard}


def _set(m: Any, key: str, value: Any) -> Any:
    d = dict(m)
    d[key] = value
    return frozen(d)


def _played(s: GameState, player: str, card: Card, color_raw: Any, yell_raw: Any) -> GameState:
    """Effect of an accepted play of ``card`` (play-card, or play-draw-card with is_play_card)."""
    hand = s.hand(player)
    rest = remove_card(hand, card)
    if rest is None:  # not in the replayed hand: the consistency checks report it
        rest = hand
    old_top = s.top
    color = color_raw if color_raw in COLORS else None
    sp = card.special
    if sp in ("wild", "wild_draw_4"):
        top = Card(color or "black", None, sp)
    elif sp == "white_wild":
        top = Card(old_top.color if old_top is not None else "white", None, sp)
    elif sp == "wild_shuffle":
        top = Card("black", None, sp)
    else:
        top = card
    ch: dict[str, Any] = dict(
        hands=_set(s.hands, player, rest), top=top, discard=s.discard + 1, cards_played=s.cards_played + 1,
        fallback_color=old_top.color if old_top is not None else s.fallback_color,
        prev_actor=player, stall=0, yell=_set(s.yell, player, truthy(yell_raw)), uno_penalized=frozenset(),
        pending=0, owes_draw=False, gate=None, drawn_card=None, skip=False,
    )  # fmt: skip
    last = not rest
    if sp == "wild_draw_4":
        ch.update(wd4_base=old_top, pending=4, owes_draw=True)
    elif sp == "draw_2":
        ch.update(pending=2, owes_draw=True)
    elif sp == "reverse":
        ch.update(direction=not s.direction)
    elif sp == "skip":
        ch.update(skip=True)
    elif sp == "white_wild" and not last:
        if s.white_wild == "bind_2":
            bound = s.next_of(player)
        else:
            bound = s.opposite_of(player)
            ch.update(skip=True)
        if bound is not None:
            ch.update(bind=_set(s.bind, bound, s.bind.get(bound, 0) + 2))
    elif sp == "wild_shuffle":
        ch.update(gate="color", chooser=player)
    if sp in ("wild", "wild_draw_4"):
        ch.update(color_echo=player)
    if last and sp != "wild_shuffle":
        ch.update(winner=player)
    return s.replace(**ch)


# ----------------------------------------------------------------- events


def _join(s: GameState, ev: E.JoinRoom) -> GameState:
    if ev.code is None or ev.code in s.players:
        return s
    names = dict(s.names)
    if ev.name:
        names[ev.code] = ev.name
    return s.replace(players=(*s.players, ev.code), names=frozen(names))


def _first(s: GameState, ev: E.FirstPlayer) -> GameState:
    seats = ev.seats
    ww = ev.white_wild if ev.white_wild in ("bind_2", "skip_bind_2") else None
    dealt = sum(len(h) for h in ev.hands.values())
    first = ev.first_card
    st = GameState(
        round_no=ev.round_no or s.round_no + 1, white_wild=ww, seats=seats, hands=frozen(dict(ev.hands)),
        draw_pile=DECK_SIZE.get(ww, 112) - dealt - 1, discard=1, top=first, direction=True,
        prev_actor=seats[0] if seats else None, cards_played=1,
        yell=frozen({p: False for p in seats}), in_round=True, totals=s.totals, wins=s.wins, turn_no=1,
        players=s.players or seats, names=s.names, first_turn="number",
    )  # fmt: skip
    if first is None or not seats:
        return st
    sp = first.special
    if sp == "draw_2":
        return st.replace(pending=2, owes_draw=True, first_turn="draw_2")
    if sp == "skip":
        return st.replace(first_turn="skip")
    if sp == "reverse":
        return st.replace(direction=False, first_turn="reverse")
    if sp == "wild":
        return st.replace(first_turn="wild", gate="color", chooser=seats[0], to_act=seats[0])
    return st


def hand_over(s: GameState, p: str | None, turn_no: int | None = None) -> GameState:
    """The turn passes to ``p`` (what a ``next-player`` line records)."""
    owes = s.owes_draw or (p is not None and s.bind.get(p, 0) > 0)
    # the round's first turn goes to seat 1, the dealer's initial "previous player": forget it,
    # so that "the player to act has finished" (prev_actor == to_act) means what it says
    prev = None if s.first_turn is not None and p == s.prev_actor else s.prev_actor
    return s.replace(
        to_act=p, turn_no=turn_no if turn_no is not None else s.turn_no + 1, skip=False,
        renotify=None, first_turn=None, owes_draw=owes, auto_draw=None, prev_actor=prev,
    )  # fmt: skip


def _next(s: GameState, ev: E.NextPlayer) -> GameState:
    """The hand-over, with the log's counters: after a difference the replay follows the log."""
    s = hand_over(s, ev.next_player, ev.turn_no)
    if type(ev.number_card_play) is int and ev.number_card_play != s.cards_played:
        s = s.replace(cards_played=ev.number_card_play)
    return s


def handover_due(s: GameState) -> bool:
    """The dealer's next line for the turn is a ``next-player``: the player to act has finished
    (or the round has just been dealt, or a successful challenge re-notifies the challenger)."""
    if not s.in_round or s.winner is not None or s.gate is not None or s.auto_draw is not None:
        return False
    if s.renotify is not None:
        return True
    if s.to_act is None:
        return s.first_turn is not None
    return s.prev_actor == s.to_act


def expected_next(s: GameState) -> tuple[str | None, int, str]:
    """Who the rules give the next turn to, the turn number it gets, and why."""
    seats = s.seats
    if s.first_turn is not None and seats:
        who = {"skip": seats[1 % len(seats)], "reverse": seats[-1], "wild": seats[1 % len(seats)]}.get(
            s.first_turn, seats[0])
        return who, 2 if s.first_turn == "wild" else 1, f"first card {s.top}"
    if s.renotify is not None:
        return s.renotify, s.turn_no, "challenge succeeded: the challenger plays"
    base = s.prev_actor
    who = s.opposite_of(base) if s.skip else s.next_of(base) if base else None
    why = f"after {base}{' (skip)' if s.skip else ''}, direction {'right' if s.direction else 'left'}"
    return who, s.turn_no + 1, why


def silently_refused(s: GameState, ev: E.Event) -> str | None:
    """The error of an action the dealer refused without a penalty line (hand of exactly 25)."""
    if getattr(ev, "rejected", None) is not None or ev.player is None or len(s.hand(ev.player)) != HAND_CAP:
        return None
    from rules.uno import verdicts

    check = {E.PlayCard: verdicts.play_card, E.PlayDrawCard: verdicts.play_draw_card,
             E.ColorOfWild: verdicts.color_of_wild}.get(type(ev))  # fmt: skip
    if check is None or (isinstance(ev, E.ColorOfWild) and is_dealer_color_line(s, ev)):
        return None
    return check(s, ev)  # type: ignore[arg-type]


def lose_turn(s: GameState, player: str, err: str) -> GameState:
    """Turn consequences of a refused action whose penalty was not written (25-card cap)."""
    if player != s.to_act or err in NO_TURN_EFFECT:
        return s
    return _penalty(s, E.Penalty(seq=-1, round_no=s.round_no, turn_no=s.turn_no, player=None, desk=None,
                                 date_ms=None, victim=player, cards=(), error=err))  # fmt: skip


def _play(s: GameState, ev: E.PlayCard) -> GameState:
    if ev.rejected is not None or ev.player is None:
        return s
    err = silently_refused(s, ev)  # a malformed card too: at 25 cards the dealer passes the turn on all the same
    if err is not None:
        return lose_turn(s, ev.player, err)
    if ev.card is None:
        return s
    return _played(s, ev.player, ev.card, ev.color_raw, ev.yell_raw)


def _play_draw(s: GameState, ev: E.PlayDrawCard) -> GameState:
    if ev.rejected is not None or ev.player is None:
        return s
    err = silently_refused(s, ev)
    if err is not None:
        return lose_turn(s, ev.player, err)
    if truthy(ev.is_play_raw):
        card = s.drawn_card or ev.card
        if card is not None:
            return _played(s, ev.player, card, ev.color_raw, ev.yell_raw)
    return s.replace(
        prev_actor=ev.player, pending=0, owes_draw=False, drawn_card=None, stall=0, gate=None,
        yell=_set(s.yell, ev.player, truthy(ev.yell_raw)), uno_penalized=frozenset(),
    )  # fmt: skip


def _draw(s: GameState, ev: E.DrawCard) -> GameState:
    p = ev.player
    if p is None:
        return s
    if ev.is_draw is False:  # capped voluntary draw: nothing moves
        return s.replace(prev_actor=p, stall=s.stall + 1, yell=_set(s.yell, p, False), drawn_card=None)
    ch = draw_into(s, p, ev.cards)
    if s.winner is None:  # the draw after a winning draw_2 leaves the drawer's flag alone
        ch.update(yell=_set(s.yell, p, False), uno_penalized=frozenset())
    forced = s.owes_draw or s.pending > 0 or s.auto_draw is not None or s.winner is not None
    if forced:
        bind = s.bind
        if s.bind.get(p, 0) > 0 and s.owes_draw and ev.cards:
            bind = _set(s.bind, p, s.bind[p] - 1)
        cards_played = s.cards_played + (1 if s.auto_draw == "timeout" else 0)
        ch.update(pending=0, owes_draw=False, drawn_card=None, prev_actor=p, stall=0 if ev.cards else s.stall,
                  bind=bind, gate=None, auto_draw=None, cards_played=cards_played)  # fmt: skip
    elif ev.can_play is True and ev.cards:
        ch.update(drawn_card=ev.cards[0], gate="play-draw", owes_draw=False, stall=0)
    else:
        ch.update(prev_actor=p, stall=0, drawn_card=None, gate=None)
    return s.replace(**ch)


def _challenge(s: GameState, ev: E.Challenge) -> GameState:
    if not truthy(ev.is_challenge_raw) or ev.player is None:
        return s
    if ev.success is True:
        target = ev.target if isinstance(ev.target, str) else s.prev_actor
        drawn = ev.cards[1:] if ev.cards and ev.cards[0].special == "wild_draw_4" else ev.cards
        ch = draw_into(s.replace(discard=s.discard - 1), target, drawn)
        hands = dict(ch["hands"])
        if ev.cards and ev.cards[0].special == "wild_draw_4" and isinstance(target, str):
            hands[target] = hands[target] + (ev.cards[0],)
        ch.update(hands=frozen(hands), top=s.wd4_base, pending=0, owes_draw=False, stall=0,
                  uno_penalized=frozenset(), renotify=ev.player)  # fmt: skip
        return s.replace(**ch)
    ch = draw_into(s, ev.player, ev.cards)
    ch.update(pending=0, owes_draw=False, prev_actor=ev.player, stall=0, uno_penalized=frozenset())
    return s.replace(**ch)


def _special(s: GameState, ev: E.SpecialLogic) -> GameState:
    if ev.rejected is not None or ev.player is None:
        return s
    n = s.special_logic.get(ev.player, 0)  # counted past ten too (the dealer carries out the first ten only)
    return s.replace(special_logic=_set(s.special_logic, ev.player, n + 1))


def _color_request(s: GameState, ev: E.ColorChangeRequest) -> GameState:
    # the player who played the card asks for the colour; a different `player` echo is reported, not followed
    chooser = s.chooser if isinstance(s.chooser, str) else ev.chooser if isinstance(ev.chooser, str) else None
    return s.replace(gate="color", chooser=chooser)


def is_dealer_color_line(s: GameState, ev: E.ColorOfWild) -> bool:
    """The dealer's own colour line after a wild / wild_draw_4 (not a player's answer).

    It comes right after the play, whoever it names (a different name is the dealer's echo
    differing from the replay, never a colour choice of that player: nobody was asked for one)."""
    return s.color_echo is not None and not (s.gate == "color" and s.chooser == ev.player)


def _color(s: GameState, ev: E.ColorOfWild) -> GameState:
    if is_dealer_color_line(s, ev):
        return s.replace(color_echo=None)
    if ev.rejected is not None or s.top is None:
        return s
    err = silently_refused(s, ev)
    if err is not None and ev.player is not None:
        return lose_turn(s, ev.player, err)
    color = ev.color_raw if ev.color_raw in COLORS else s.top.color
    chooser = ev.player
    ch: dict[str, Any] = dict(
        top=Card(color, None, s.top.special), owes_draw=False, prev_actor=chooser, stall=0, gate=None,
        uno_penalized=frozenset(), chooser=None,
    )  # fmt: skip
    if chooser is not None and not s.hand(chooser) and s.first_turn != "wild":
        ch.update(winner=chooser)
    return s.replace(**ch)


def _shuffle(s: GameState, ev: E.ShuffleWild) -> GameState:
    hands = dict(s.hands)
    for p, h in ev.hands.items():
        if p in hands:
            hands[p] = h
    yell = {p: len(h) == 1 for p, h in hands.items()}
    return s.replace(hands=frozen(hands), yell=frozen(yell), pending=0, gate="color",
                     chooser=s.chooser if isinstance(s.chooser, str) else ev.shuffler if isinstance(ev.shuffler, str) else None)  # fmt: skip


def _penalty(s: GameState, ev: E.Penalty) -> GameState:
    victim = ev.victim
    if not isinstance(victim, str) or victim not in s.hands:
        return s
    ch = draw_into(s, victim, ev.cards)
    err = ev.error or ""
    ch.update(yell=_set(s.yell, victim, False))
    if err == "Did not say uno.":
        ch.update(uno_penalized=s.uno_penalized | {victim})
        return s.replace(**ch)
    if err in NO_TURN_EFFECT or victim != s.to_act:
        return s.replace(**ch)
    # the player to act loses the turn
    ch.update(gate=None, drawn_card=None)
    if s.gate == "color" and s.chooser == victim:  # colour choice failed: fallback colour
        if s.top is not None:
            ch.update(top=Card(s.fallback_color or s.top.color, None, s.top.special))
        ch.update(chooser=None, owes_draw=False, pending=0, uno_penalized=frozenset())
        if err == "color-of-wild timeout":
            ch.update(cards_played=s.cards_played + 1)
    if s.owes_draw and not (s.gate == "color" and s.chooser == victim):
        ch.update(auto_draw=err)
        return s.replace(**ch)
    if err == "timeout":
        ch.update(stall=s.stall + 1 if not ev.cards else 0)
    elif err == "color-of-wild timeout":
        ch.update(stall=s.stall + 1 if not ev.cards else 0)
    else:
        ch.update(stall=0)
    ch.update(prev_actor=victim)
    return s.replace(**ch)


def _finish_turn(s: GameState, ev: E.FinishTurn) -> GameState:
    totals = dict(s.totals)
    if ev.totals:
        totals.update({p: int(v) for p, v in ev.totals.items() if isinstance(v, int)})
    else:
        for p, v in ev.scores.items():
            if isinstance(v, int):
                totals[p] = totals.get(p, 0) + v
    wins = dict(s.wins)
    if isinstance(ev.winner, str):
        wins[ev.winner] = wins.get(ev.winner, 0) + 1
    return s.replace(in_round=False, totals=frozen(totals), wins=frozen(wins),
                     winner=ev.winner if isinstance(ev.winner, str) else None)  # fmt: skip


_APPLY: dict[type, Callable[[GameState, Any], GameState]] = {
    E.JoinRoom: _join,
    E.FirstPlayer: _first,
    E.NextPlayer: _next,
    E.PlayCard: _play,
    E.PlayDrawCard: _play_draw,
    E.DrawCard: _draw,
    E.Challenge: _challenge,
    E.SpecialLogic: _special,
    E.ColorChangeRequest: _color_request,
    E.ColorOfWild: _color,
    E.ShuffleWild: _shuffle,
    E.Penalty: _penalty,
    E.FinishTurn: _finish_turn,
}

__all__ = ["EMPTY", "apply", "draw_into", "expected_next", "hand_over", "handover_due", "is_dealer_color_line", "played"]

#: The effect of an accepted play (a replay that infers a lost play line applies it too).
played = _played
#: A join and a round's end do the same in every profile's model (rules.uno.model uses them).
join = _join
finish_turn = _finish_turn
