"""The replayed UNO board: an immutable :class:`GameState` and seat arithmetic.

Field names follow the dealer's own state (``app.enum.ts`` ``Desk``) so the validator's
reasoning can be read side by side with the rules digest: ``to_act`` is ``nextPlayer``,
``prev_actor`` ``beforePlayer``, ``pending`` ``cardAddOn``, ``owes_draw``
``mustCallDrawCard``, ``bind`` ``activationWhiteWild``, ``gate`` ``restrictInterrupt``,
``drawn_card`` the drawn-card window, ``stall`` ``noPlayCount``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from rules.uno.cards import Card

EMPTY: Mapping[str, Any] = MappingProxyType({})
DECK_SIZE = {"skip_bind_2": 112, "bind_2": 112, None: 109}
HAND_CAP = 25


def frozen(d: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(d)


class GameState(NamedTuple):
    """Everything the dealer knows about a round, plus the match's running totals.

    An immutable tuple underneath: ``replace`` builds a new state (cheaply), nothing mutates.
    """

    round_no: int = 0
    white_wild: str | None = None
    seats: tuple[str, ...] = ()
    hands: Mapping[str, tuple[Card, ...]] = EMPTY
    draw_pile: int = 0
    discard: int = 0
    top: Card | None = None  # with its effective colour (a wild waiting for its colour is black)
    fallback_color: str | None = None
    direction: bool = True  # turn_right
    to_act: str | None = None
    prev_actor: str | None = None
    pending: int = 0
    owes_draw: bool = False
    wd4_base: Card | None = None
    bind: Mapping[str, int] = EMPTY
    skip: bool = False
    gate: str | None = None  # None | "play-draw" | "color"
    drawn_card: Card | None = None
    chooser: str | None = None  # who must answer a color-change-request
    color_echo: str | None = None  # player whose wild/WD4 colour line the dealer writes next
    renotify: str | None = None  # challenger notified again after a successful challenge
    first_turn: str | None = None  # first-card effect still to show in the first next-player
    auto_draw: str | None = None  # the dealer owes an automatic forced draw after this penalty text
    yell: Mapping[str, bool] = EMPTY
    uno_penalized: frozenset[str] = frozenset()
    stall: int = 0
    turn_no: int = 0
    cards_played: int = 0
    special_logic: Mapping[str, int] = EMPTY
    in_round: bool = False
    winner: str | None = None
    totals: Mapping[str, int] = EMPTY
    wins: Mapping[str, int] = EMPTY
    players: tuple[str, ...] = ()
    names: Mapping[str, str] = EMPTY
    # profile logs (rules.uno.audit): the pending draw stack, the challenged offender who plays
    # again, the player a missed UNO call may be pointed out against
    stack: tuple[Card, ...] = ()
    must_play: str | None = None
    pointable: str | None = None

    def replace(self, **changes: Any) -> GameState:
        """``_replace`` by field index: a state has 38 fields and a step changes two or three."""
        values = list(self)
        try:
            for name, value in changes.items():
                values[_FIELD_INDEX[name]] = value
        except KeyError:
            raise ValueError(f"Got unexpected field names: {sorted(set(changes) - set(_FIELD_INDEX))!r}") from None
        return _new_tuple(GameState, values)

    # -- seats

    def next_of(self, player: Any, direction: bool | None = None) -> str | None:
        if not isinstance(player, str) or player not in self.seats:
            return None
        i = self.seats.index(player)
        step = 1 if (self.direction if direction is None else direction) else -1
        return self.seats[(i + step) % len(self.seats)]

    def opposite_of(self, player: Any) -> str | None:
        if not isinstance(player, str) or player not in self.seats:
            return None
        i = self.seats.index(player)
        return self.seats[(i + 2) % len(self.seats)]

    def hand(self, player: Any) -> tuple[Card, ...]:
        return self.hands.get(player, ()) if isinstance(player, str) else ()

    @property
    def deck_size(self) -> int:
        return DECK_SIZE.get(self.white_wild, 112)

    def card_total(self) -> int:
        return sum(len(h) for h in self.hands.values()) + self.draw_pile + self.discard


_FIELD_INDEX = {name: i for i, name in enumerate(GameState._fields)}
_new_tuple = tuple.__new__


def playable(card: Card, top: Card | None, pending: int = 0) -> bool:
    """The dealer's ``isAvailableCard``: any wild-family card, or a colour/number/symbol match."""
    if pending > 0:
        return False
    if card.is_wild:
        return True
    if top is None:
        return False
    if card.special is not None and card.special == top.special:
        return True
    if card.color == top.color:
        return True
    return card.number is not None and card.number == top.number


def remove_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...] | None:
    """The hand without one copy of ``card``, or None when it is not held."""
    try:
        i = hand.index(card)
    except ValueError:
        return None
    return hand[:i] + hand[i + 1 :]


def multiset(cards: tuple[Card, ...]) -> Counter[Card]:
    return Counter(cards)


def hand_points(cards: tuple[Card, ...]) -> int:
    return sum(c.points for c in cards)
