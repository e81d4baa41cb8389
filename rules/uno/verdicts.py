"""The dealer's decisions, re-derived: which error (if any) an action draws, in the dealer's order.

Each function returns the error text the 2023 dealer (build ``0d7dc11``, rules digest §2)
would answer with, or ``None`` when it accepts the action.  They are pure functions of the
replayed state and the action as sent.
"""

from __future__ import annotations

from typing import Any

from rules.uno import events as E
from rules.uno.cards import ALL_COLORS, COLORS, SPECIALS, Card
from rules.uno.state import GameState, playable

TITLE_MAX = 32
SPECIAL_LOGIC_LIMIT = 10


def js_string(v: Any) -> str:
    """``String(v)`` in JavaScript, for the dealer's boolean-like parameter checks."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (dict, list)):
        return "[object Object]" if isinstance(v, dict) else ",".join(js_string(x) for x in v)
    return str(v)


def truthy(v: Any) -> bool:
    """JavaScript truthiness, which the dealer applies to yell_uno / is_play_card / is_challenge."""
    if v is E.MISSING or v is None or v is False:
        return False
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v != 0
    if isinstance(v, str):
        return v != ""
    return True


def bool_param_error(v: Any, required: str, invalid: str) -> str | None:
    if v is E.MISSING or v is None:
        return required
    if js_string(v) not in ("true", "false"):
        return invalid
    return None


def _js_zero(v: Any) -> bool:
    """``v === 0`` in JavaScript (a JSON 0 or 0.0; never ``false``)."""
    return type(v) in (int, float) and v == 0


def card_object_error(raw: Any) -> str | None:
    """Step 3 of play-card: the card object itself (rules digest §2.1), with the program's JavaScript tests
    (``hasValidateError``): a field that is falsy (``""``, ``false``, ``null``, absent) counts as not given, the
    number 0 excepted."""
    if not truthy(raw) or _js_zero(raw):
        return "Card play is required."
    number, special, color = (raw.get(k) for k in ("number", "special", "color")) if isinstance(raw, dict) \
        else (None, None, None)  # fmt: skip
    if not isinstance(raw, dict) or (not truthy(number) and not _js_zero(number) and not truthy(special)):
        return "Param card play invalid."
    if truthy(special) and special not in SPECIALS:
        return "Special card play invalid."
    if truthy(color) and color not in ALL_COLORS:
        return "Color card play invalid."
    if (truthy(number) or _js_zero(number)) and (type(number) is not int or not 0 <= number <= 9):
        return "Number card play invalid."
    card = E.card_of(raw)
    if card is None or not card.is_real_face():
        return "Card play invalid."
    return None


def _colour_errors(card: Card, color_raw: Any, has_color: bool) -> str | None:
    if card.special in ("wild", "wild_draw_4") and not truthy(color_raw):
        return "Color of wild is required."
    if has_color and truthy(color_raw) and color_raw not in COLORS:  # the program: a falsy colour is no colour
        return "Color wild invalid."
    return None


def turn_over(s: GameState) -> bool:
    """The player to act has ended the turn (a play, a kept draw, a forced draw) and the dealer has not
    handed it over yet: a further turn action of theirs is out of turn (one action per turn)."""
    return s.in_round and s.to_act is not None and s.prev_actor == s.to_act and s.gate is None \
        and s.auto_draw is None and s.renotify is None and s.winner is None and s.first_turn is None  # fmt: skip


def play_card(s: GameState, ev: E.PlayCard) -> str | None:
    if ev.player != s.to_act or turn_over(s):
        return "Next player invalid."
    if s.owes_draw:
        return "Can not play card."
    err = card_object_error(ev.card_raw)
    if err:
        return err
    err = bool_param_error(ev.yell_raw, "Yell uno is required.", "Param yell uno invalie.")
    if err:
        return err
    card = ev.card
    hand = s.hand(ev.player)
    if card is None or card not in hand:
        return "Card play not exist of player."
    if not playable(card, s.top, s.pending):
        return "Card play invalid with card before."
    err = _colour_errors(card, ev.color_raw, ev.has_color)
    if err:
        return err
    if truthy(ev.yell_raw) and len(hand) != 2:
        return "Can not say uno and play card."
    return None


def play_draw_card(s: GameState, ev: E.PlayDrawCard) -> str | None:
    if ev.player != s.to_act or turn_over(s):
        return "Next player invalid."
    if s.drawn_card is None:
        return "Can not play draw card."
    err = bool_param_error(ev.is_play_raw, "Is play card is required.", "Param is play card invalie.")
    if err:
        return err
    err = bool_param_error(ev.yell_raw, "Yell uno is required.", "Param yell uno invalie.")
    if err:
        return err
    hand = s.hand(ev.player)
    card = s.drawn_card
    if card not in hand:
        return "Card play not exist of player."
    if truthy(ev.is_play_raw):
        if not playable(card, s.top, s.pending):
            return "Card play invalid with card before."
        err = _colour_errors(card, ev.color_raw, ev.has_color)
        if err:
            return err
    if truthy(ev.yell_raw) and len(hand) != 2:
        return "Can not say uno and play card."
    return None


def color_of_wild(s: GameState, ev: E.ColorOfWild) -> str | None:
    if ev.player != s.to_act:
        return "Next player invalid."
    if s.top is None or s.top.color != "black":
        return "Already changed color."
    if not truthy(ev.color_raw):
        return "Color of wild is required."
    if ev.color_raw not in COLORS:
        return "Color wild invalid."
    if s.top.special == "wild_draw_4" or (s.top.special == "wild" and s.turn_no > 1):
        return "Can not chose color of wild."
    return None


def special_logic(s: GameState, ev: E.SpecialLogic) -> str | None:
    title = ev.title_raw
    if not truthy(title) or _js_zero(title):
        return "Param title invalid."
    # the program compares ``title.length``: a string's UTF-16 units, a list's items; other values have none
    length = len(title.encode("utf-16-le")) // 2 if isinstance(title, str) else len(title) if isinstance(title, list) \
        else 0  # fmt: skip
    if length > TITLE_MAX:
        return "Special logic title too long."
    return None


def pointing(s: GameState, ev: E.PointedNotSayUno) -> str | None:
    """Error for the pointer; "Out of target." (no penalty); "Did not say uno." (target penalised); None."""
    target = ev.target
    if not truthy(target) or _js_zero(target):  # the program: a falsy target is no target
        return "Player name is required."
    if target not in s.seats:
        return "Player name invalid."
    if len(s.hand(target)) != 1:
        return "Can not pointed not say uno."
    if target != s.prev_actor:
        return "Out of target."
    if s.yell.get(target, False):
        return None
    return "Did not say uno."


def challenge_succeeds(hand: tuple[Card, ...], base: Card | None) -> bool:
    """The dealer's ``isChallengeSuccessfully`` (white wild and other WD4s do not count)."""
    for c in hand:
        if c.special in ("wild", "wild_shuffle"):
            return True
        if base is None:
            continue
        if c.color == base.color and c.color in COLORS:
            return True
        if c.special is not None and c.special == base.special and c.special in ("skip", "reverse", "draw_2"):
            return True
        if c.number is not None and c.number == base.number:
            return True
    return False


def challenge_succeeds_by_rules(hand: tuple[Card, ...], base: Card | None) -> bool:
    """The written rule (チャレンジルール): any playable card other than a wild draw 4 counts."""
    return any(c.special != "wild_draw_4" and playable(c, base) for c in hand)


def penalty_cards(hand_size: int) -> int:
    """Cards a (capped) penalty gives: min(2, 25 - hand), never negative."""
    return max(0, min(2, 25 - hand_size))
