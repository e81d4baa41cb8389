"""Consistency: the replayed board against the dealer's own ``desk`` snapshots.

The dealer does not always write the state *after* an event (rules digest, Appendix A):
play-card / play-draw-card lines carry an "as if accepted" hybrid, player-sent
colour/pointing/special-logic/public-card lines the state before, the dealer's colour
line after a wild the state after but with a black top, and first-player the state before
the first card's effect.  :func:`expected_view` models each of these, so a mismatch is a
real disagreement.  After a mismatch on a post-state snapshot the replay resynchronises
from the snapshot (:func:`resync`), so one error does not cascade.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from rules.core import CONSISTENCY, ERROR, Violation
from rules.uno import events as E
from rules.uno.cards import Card
from rules.uno.state import GameState, frozen, remove_card
from rules.uno.transitions import is_dealer_color_line
from rules.uno.verdicts import truthy

PRE = "pre"
POST = "post"
HYBRID = "hybrid"


class View(NamedTuple):
    """What the snapshot should show (a tuple: one is built for every event)."""

    timing: str
    hands: Mapping[str, tuple[Card, ...]]
    loose_hand: str | None  # this player's hand may be any one card short (hybrid quirk)
    top: Card | None
    yell: Mapping[str, Any]
    direction: bool
    draw: int
    reveal: int


def expected_view(before: GameState, after: GameState, ev: E.Event) -> View | None:
    if isinstance(ev, (E.PlayCard, E.PlayDrawCard)):
        return _hybrid(before, ev)
    if isinstance(ev, (E.PublicCard, E.PointedNotSayUno, E.SpecialLogic)):
        return _view(PRE, before)
    if isinstance(ev, E.ColorOfWild):
        if is_dealer_color_line(before, ev):
            top = Card("black", None, after.top.special) if after.top is not None else None
            return _view(POST, after, top=top)
        return _view(PRE, before)
    if isinstance(ev, E.FirstPlayer):
        return _view(POST, after, direction=True)
    if isinstance(ev, E.FinishGame):
        return _view(POST, after) if after.seats else None  # the last round's final board
    if isinstance(ev, (E.JoinRoom, E.Disconnect, E.Unknown)):
        return None
    if isinstance(ev, E.Penalty):
        # Written after the penalty cards, before the turn passes.  A colour choice refused by
        # handlePenalty still shows the black top (the fallback colour comes with the hand-over);
        # timeoutColorOfWild sets the fallback colour *before* it writes the penalty line.
        if ev.error == "color-of-wild timeout":
            return _view(POST, after)
        return _view(POST, after, top=before.top)
    return _view(POST, after)


def _view(timing: str, s: GameState, *, top: Card | None = None, direction: bool | None = None) -> View:
    return View(timing, s.hands, None, top if top is not None else s.top, s.yell,
                s.direction if direction is None else direction, s.draw_pile, s.discard)  # fmt: skip


def _hybrid(s: GameState, ev: E.PlayCard | E.PlayDrawCard) -> View:
    p = ev.player
    hands = dict(s.hands)
    loose = None
    card = s.drawn_card if isinstance(ev, E.PlayDrawCard) and s.drawn_card is not None else ev.card
    # a declined play-draw-card shows the hand whole; any other shows it one card short
    p_hand_kept = isinstance(ev, E.PlayDrawCard) and not truthy(ev.is_play_raw)
    if p in hands and not p_hand_kept:
        drawn = isinstance(ev, E.PlayDrawCard) and s.drawn_card is not None  # the dealer's own card_play
        rest = remove_card(hands[p], card) if card is not None and (drawn or _verbatim(ev.card_raw)) else None
        if rest is None:
            loose = p
        else:
            hands[p] = rest
    yell = dict(s.yell)
    if p in yell and isinstance(ev.yell_raw, bool):
        yell[p] = ev.yell_raw
    direction = s.direction
    if isinstance(ev.card_raw, dict) and ev.card_raw.get("special") == "reverse":
        direction = not direction
    return View(HYBRID, hands, loose, s.top, yell, direction, s.draw_pile, s.discard + 1)


def _verbatim(raw: Any) -> bool:
    return isinstance(raw, dict) and set(raw) <= {"color", "number", "special"}


class HandMatcher:
    """Multiset comparison of logged hands (raw JSON lists) with replayed hands, incrementally.

    A logged hand that is the same list as last time, compared with a replayed hand equal to
    the one that matched last time (the same tuple, or an equal one rebuilt by another view),
    matches again without being parsed: only hands that changed cost anything, so a snapshot
    of four hands usually costs one comparison.
    """

    def __init__(self) -> None:
        self._last: dict[Any, tuple[Any, tuple[Card, ...]]] = {}

    def same(self, key: Any, raw: Any, want: tuple[Card, ...]) -> bool:
        last = self._last.get(key)
        if last is not None and (last[1] is want or last[1] == want) and last[0] == raw:
            return True
        got = E.cards_of(raw)
        if len(got) == len(want) and (got == want or dict(Counter(got)) == dict(Counter(want))):
            self._last[key] = (raw, want)
            return True
        return False


def compare(view: View, desk: dict[str, Any], matcher: HandMatcher) -> list[tuple[str, str, str]]:
    """Differences as (field, expected, actual) between what the snapshot should show and ``desk``."""
    out: list[tuple[str, str, str]] = []
    hands = desk.get("card_of_player")
    hands = hands if isinstance(hands, dict) else {}
    for p in view.hands.keys() | hands.keys():
        want = view.hands.get(p, ())
        raw = hands.get(p)
        if raw is None:
            out.append((f"hand {p}", _cards(want), "missing"))
            continue
        if p == view.loose_hand:
            got = E.cards_of(raw)
            if len(got) != len(want) - 1 or Counter(got) - Counter(want):
                out.append((f"hand {p}", f"{_cards(want)} less one card", _cards(got)))
        elif not matcher.same(("desk", p), raw, want):
            out.append((f"hand {p}", _cards(want), _cards(E.cards_of(raw))))
    top = E.card_of(desk.get("before_card_play"))
    if top != view.top:
        out.append(("top", str(view.top), str(top)))
    yell = desk.get("yell_uno")
    if isinstance(yell, dict):
        for p, flag in yell.items():
            if isinstance(flag, bool) and view.yell.get(p, False) != flag:
                out.append((f"yell {p}", str(view.yell.get(p, False)).lower(), str(flag).lower()))
    turn_right = desk.get("turn_right")
    if isinstance(turn_right, bool) and turn_right != view.direction:
        out.append(("direction", _dir(view.direction), _dir(turn_right)))
    draw, reveal = desk.get("draw_desk_number"), desk.get("reveal_desk_number")
    if type(draw) is int and draw != view.draw:
        out.append(("draw pile", str(view.draw), str(draw)))
    if type(reveal) is int and reveal != view.reveal:
        out.append(("discard pile", str(view.reveal), str(reveal)))
    out.sort()
    return out


def _cards(cards: tuple[Card, ...]) -> str:
    return "[" + ", ".join(sorted(map(str, cards))) + "]"


def _dir(d: bool) -> str:
    return "right" if d else "left"


def check_snapshot(
    before: GameState, after: GameState, ev: E.Event, matcher: HandMatcher | None = None
) -> tuple[list[Violation], GameState]:
    """Violations for a snapshot that disagrees, and the state to continue from."""
    desk = ev.desk
    if desk is None or not before.seats and not isinstance(ev, E.FirstPlayer):
        return [], after
    view = expected_view(before, after, ev)
    if view is None:
        return [], after
    diffs = compare(view, desk, matcher or HandMatcher())
    if not diffs:
        return [], after
    fields = ", ".join(d[0] for d in diffs[:6])
    v = Violation(
        code="snapshot-mismatch", family=CONSISTENCY, severity=ERROR, seq=ev.seq, round_no=ev.round_no,
        turn_no=ev.turn_no, player=ev.player,
        message=f"{ev.kind} ({view.timing} snapshot): replayed board differs from the dealer's desk in {fields}",
        expected="; ".join(f"{f}={e}" for f, e, _ in diffs), actual="; ".join(f"{f}={a}" for f, _, a in diffs),
    )  # fmt: skip
    return [v], resync(after, ev.snapshot) if view.timing == POST else after


def resync(s: GameState, snap: E.Snapshot | None) -> GameState:
    """Adopt the dealer's snapshot (hands, top, flags, direction, piles)."""
    if snap is None:
        return s
    ch: dict[str, Any] = {}
    if snap.hands:
        hands = dict(s.hands)
        hands.update(snap.hands)
        ch["hands"] = frozen(hands)
    if snap.top is not None:
        ch["top"] = snap.top
    if snap.yell:
        ch["yell"] = frozen({p: bool(v) for p, v in snap.yell.items()})
    if isinstance(snap.turn_right, bool):
        ch["direction"] = snap.turn_right
    if type(snap.draw) is int:
        ch["draw_pile"] = snap.draw
    if type(snap.reveal) is int:
        ch["discard"] = snap.reveal
    return s.replace(**ch)
