"""UNO cards as the ALGORI dealer encodes them.

A card is ``{color, number}`` for number cards, ``{color, special}`` for symbol cards;
wild, wild_draw_4 and wild_shuffle are ``black``, the white wild is ``white``.  Cards are
small immutable values with a compact text form (``red-5``, ``blue-skip``, ``black-wild``)
so they can be stored, compared and shown without dictionaries.
"""

from __future__ import annotations

from typing import Any, NamedTuple

COLORS = ("red", "yellow", "green", "blue")
ALL_COLORS = (*COLORS, "black", "white")
SPECIALS = ("skip", "reverse", "draw_2", "wild", "wild_draw_4", "wild_shuffle", "white_wild")
COLORED_SPECIALS = ("skip", "reverse", "draw_2")
BLACK_SPECIALS = ("wild", "wild_draw_4", "wild_shuffle")
WILD_SPECIALS = (*BLACK_SPECIALS, "white_wild")


class Card(NamedTuple):
    """One card face. ``number`` and ``special`` are mutually exclusive.

    A tuple underneath, so hashing and comparing cards (hands are multisets of them) runs at
    C speed.
    """

    color: str
    number: int | None = None
    special: str | None = None

    @classmethod
    def from_dealer(cls, obj: Any) -> Card | None:  # noqa: D417
        """The card in a dealer payload, or ``None`` when ``obj`` is not a well-typed card.

        Well-typed means: a dict whose ``color`` is one of the six colours and which has
        either an integer ``number`` 0-9 or a known ``special``.  Whether the face exists in
        the deck is a separate question (:meth:`is_real_face`).
        """
        if not isinstance(obj, dict):
            return None
        color = obj.get("color")
        if color not in ALL_COLORS:
            return None
        number = obj.get("number")
        special = obj.get("special")
        if number is not None:
            if type(number) is not int or not 0 <= number <= 9 or special is not None:
                return None
            return cls(color, number, None)
        if special in SPECIALS:
            return cls(color, None, special)
        return None

    @classmethod
    def parse(cls, text: str) -> Card:
        """Inverse of :meth:`__str__`: ``'red-5'``, ``'blue-draw_2'``, ``'black-wild'``."""
        color, _, face = text.partition("-")
        if face.isdigit():
            return cls(color, int(face), None)
        return cls(color, None, face)

    def __str__(self) -> str:
        return f"{self.color}-{self.number if self.number is not None else self.special}"

    def to_dealer(self) -> dict[str, Any]:
        if self.number is not None:
            return {"color": self.color, "number": self.number}
        return {"color": self.color, "special": self.special}

    @property
    def is_wild(self) -> bool:
        return self.special in WILD_SPECIALS

    def is_real_face(self) -> bool:
        """True for the 56 faces of the ALGORI deck (a red wild or a black 5 is not one)."""
        if self.number is not None:
            return self.color in COLORS
        if self.special in COLORED_SPECIALS:
            return self.color in COLORS
        if self.special in BLACK_SPECIALS:
            return self.color == "black"
        return self.special == "white_wild" and self.color == "white"

    @property
    def points(self) -> int:
        """Card value for scoring (contest rules 得点の計算)."""
        if self.number is not None:
            return self.number
        if self.special in COLORED_SPECIALS:
            return 20
        if self.special in ("wild_shuffle", "white_wild"):
            return 40
        return 50  # wild, wild_draw_4


def card_label(obj: Any) -> str | None:
    """Text form of a dealer card payload, or ``None`` if it is not a card."""
    card = Card.from_dealer(obj)
    return None if card is None else str(card)
