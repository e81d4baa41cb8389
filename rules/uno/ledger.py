"""Card conservation per card: no face is ever in play more often than the deck holds it.

The deck is a multiset (contest rules カードの種類: one 0 and two of 1-9 per colour, two skip,
reverse and draw 2 per colour, four wild, four wild draw 4, one wild shuffle, three white
wild when the match has a white-wild setting).  Every copy is in exactly one place: a hand,
the discard pile or the draw pile.  The log shows the hands (the deal, every drawn or penalty
card, the shuffle's new hands) and every card that reaches the discard pile; the draw pile is
what is left.  So the copies of a face in hands and on the discard pile may never exceed the
deck's count of it — a third ``red-5`` dealt or drawn is a card from nowhere, reported once
per round at the first line that shows it.

The counting by total (hands + piles = deck size) stays in :meth:`Judge._conservation`; this
module adds the per-card view.  It watches the replayed states only (before and after each
line), so it follows the dealer's snapshots when the replay resynchronises from them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rules.core import Violation
from rules.uno import events as E
from rules.uno.cards import COLORED_SPECIALS, COLORS, Card
from rules.uno.catalog import finding
from rules.uno.state import GameState


def deck(white_wild: str | None) -> Counter[Card]:
    """The deck of a ruleset as a multiset (112 cards with a white-wild setting, else 109)."""
    d: Counter[Card] = Counter()
    for color in COLORS:
        d[Card(color, 0)] = 1
        for n in range(1, 10):
            d[Card(color, n)] = 2
        for sp in COLORED_SPECIALS:
            d[Card(color, None, sp)] = 2
    d[Card("black", None, "wild")] = 4
    d[Card("black", None, "wild_draw_4")] = 4
    d[Card("black", None, "wild_shuffle")] = 1
    if white_wild in ("bind_2", "skip_bind_2"):
        d[Card("white", None, "white_wild")] = 3
    return d


_DECKS = {ww: deck(ww) for ww in (None, "bind_2", "skip_bind_2")}


def face(card: Card) -> Card:
    """The printed face of a card on the pile (a wild given a colour is still a black wild)."""
    if card.special in ("wild", "wild_draw_4", "wild_shuffle"):
        return Card("black", None, card.special)
    if card.special == "white_wild":
        return Card("white", None, "white_wild")
    return card


_WD4 = Card("black", None, "wild_draw_4")


def _added(b: GameState, a: GameState, touched: set[Card]) -> None:
    """Add to ``touched`` the faces that reached a hand between ``b`` and ``a``."""
    if a.hands is b.hands:
        return
    for p, hand in a.hands.items():
        old = b.hands.get(p, ())
        if hand is not old:
            added = hand[len(old):] if hand[: len(old)] == old else Counter(hand) - Counter(old)
            touched.update(face(c) for c in added)


#: Dealer lines and the contents fields that hold cards the dealer gives or shows (a next-player's hand is
#: compared card by card with the replay: ``next-player-contents``).
DEALT = {
    "first-player": ("first_card", "cards_receive"), "draw-card": ("card_draw",), "penalty": ("cards_receive",),
    "challenge": ("cards_receive",), "shuffle-wild": ("cards_receive",), "finish-turn": ("card_of_player",),
}


def not_cards(activity: dict[str, Any]) -> list[str]:
    """What a dealer line gives or shows as a card but is not one (``{red, 10}``, a string…), as text."""
    fields = DEALT.get(activity.get("event"))  # type: ignore[arg-type]
    contents = activity.get("contents")
    if not fields or not isinstance(contents, dict):
        return []
    out = []
    for key in fields:
        value = contents.get(key)
        values = [value] if key == "first_card" else \
            [c for h in value.values() if isinstance(h, list) for c in h] if isinstance(value, dict) else \
            value if isinstance(value, list) else []  # fmt: skip
        if key == "first_card" and value is None:
            continue
        for obj in values:
            card = Card.from_dealer(obj)
            if card is None or not card.is_real_face():
                out.append(f"{key} {obj!r}"[:120])
    return out


class CardLedger:
    """Follows the discard pile's faces and checks each face added to a hand or to the pile."""

    def __init__(self) -> None:
        self.discard: Counter[Card] | None = None  # None: the pile's faces are not known (until a rebuild)
        self.reported: set[Card] = set()

    def observe(self, b: GameState, ev: E.Event, a: GameState, final: GameState | None = None) -> list[Violation]:
        """Findings of the line that led from ``b`` to ``a`` (what the line itself states), and of
        ``final`` (``a`` after the dealer's desk snapshot was adopted), when the two differ."""
        if a is b and (final is None or final is a):
            return []  # nothing moved
        if isinstance(ev, E.FirstPlayer):
            self.reported = set()
            self.discard = Counter([face(a.top)]) if a.top is not None else None
            touched = {face(c) for h in a.hands.values() for c in h}
            if a.top is not None:
                touched.add(face(a.top))
            out = self._check(ev, a, touched)
        elif not a.in_round or not a.seats:
            return []
        else:
            touched = set()
            self._follow_discard(b, ev, a, touched)
            _added(b, a, touched)
            out = self._check(ev, a, touched) if touched else []
        if final is not None and final is not a:
            if self.discard is not None and self.discard.total() != final.discard:
                self.discard = None
            touched = set()
            _added(a, final, touched)
            if touched:
                out += self._check(ev, final, touched)
        return out

    def _follow_discard(self, b: GameState, ev: E.Event, a: GameState, touched: set[Card]) -> None:
        pile = self.discard
        if a.discard == b.discard + 1 and a.top is not None:
            if pile is not None:
                pile[face(a.top)] += 1
            touched.add(face(a.top))
        elif a.discard < b.discard and a.discard == 1 and a.top is not None:
            self.discard = Counter([face(a.top)])  # the discards went back into the draw pile but the top card
        elif a.discard == b.discard - 1 and isinstance(ev, E.Challenge) and pile is not None and pile[_WD4]:
            pile[_WD4] -= 1  # a successful challenge takes the wild draw 4 back
        elif a.discard != b.discard:
            self.discard = None
        if self.discard is not None and self.discard.total() != a.discard:
            self.discard = None  # a snapshot moved the pile: its faces are unknown until the next rebuild

    def _check(self, ev: E.Event, a: GameState, touched: set[Card]) -> list[Violation]:
        full = _DECKS.get(a.white_wild, _DECKS["skip_bind_2"])
        out = []
        for f in sorted(touched - self.reported, key=str):
            held = {p: h.count(f) for p, h in a.hands.items() if f in h}
            on_pile = self.discard[f] if self.discard is not None else 0
            n = sum(held.values()) + on_pile
            if n <= full[f]:
                continue
            self.reported.add(f)
            where = ", ".join(f"{p} {k}" for p, k in held.items())
            where += f"{'; ' if where else ''}discard pile {on_pile}" if on_pile else ""
            deck_has = f"the deck holds {full[f]}" if full[f] else "the deck has no such card"
            out.append(finding(
                "conservation", ev, f"{n} copies of {f} in play ({where}); {deck_has}: a card from nowhere",
                player=ev.player, round_no=a.round_no, turn_no=a.turn_no, expected=f"at most {full[f]} {f}",
                actual=f"{n} {f}",
            ))  # fmt: skip
        return out
