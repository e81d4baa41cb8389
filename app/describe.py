"""Events in words, for the round browser ("who did what, with which card, why")."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

REASONS = {"draw_2": "a draw 2", "wild_draw_4": "a wild draw 4", "skip_bind_2": "the white wild's skip-bind",
           "bind_2": "the white wild's bind", "nothing": "no playable card / by choice"}  # fmt: skip


def _num(v: Any) -> int | None:
    """A cell as int, None for NULL/NaN/pandas NA."""
    try:
        return None if v is None or pd.isna(v) else int(v)
    except (TypeError, ValueError):
        return None


def _text(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def _card(color: Any, number: Any, special: Any) -> str:
    if _text(color) is None:
        return "an unreadable card"
    n = _num(number)
    face = str(n) if n is not None else str(_text(special) or "?").replace("_", " ")
    return f"{color} {face}"


def describe(row: dict[str, Any], names: dict[str, str]) -> str:
    """One sentence for one event row of ``queries.dashboard.round_events``."""
    def who(code: Any) -> str:
        return names.get(code, code) if isinstance(code, str) and code else "the dealer"

    try:
        c = json.loads(_text(row.get("contents")) or "{}")
    except ValueError:
        c = {}
    c = c if isinstance(c, dict) else {}
    ev = row["event"]
    actor, target = who(row.get("actor")), who(row.get("target"))
    card = _card(row.get("card_color"), row.get("card_number"), row.get("card_special"))
    if ev == "first-player":
        return f"New deal: first card {card}; {target} sits first."
    if ev == "next-player":
        extra = " and must draw" if c.get("must_call_draw_card") is True else ""
        return f"{target}'s turn (turn {_num(row.get('turn_no'))}){extra}."
    if ev in ("play-card", "play-draw-card"):
        if ev == "play-draw-card" and c.get("is_play_card") is not True:
            return f"{actor} keeps the drawn card."
        yell = " and yells UNO" if row.get("yell_uno") is True else ""
        colour = f", choosing {c['color_of_wild']}" if isinstance(c.get("color_of_wild"), str) else ""
        how = "plays the drawn card" if ev == "play-draw-card" else "plays"
        return f"{actor} {how} {card}{colour}{yell}."
    if ev == "draw-card":
        n = _num(row.get("n_cards")) or 0
        if c.get("is_draw") is False:
            return f"{actor} cannot draw (25 cards or more) and passes."
        reason = _text(row.get("draw_reason")) or "nothing"
        why = REASONS.get(reason, reason)
        can = " — it can be played" if c.get("can_play_draw_card") is True else ""
        return f"{actor} draws {int(n)} card(s) ({why}){can}."
    if ev == "challenge":
        if c.get("is_challenge") is not True:
            return f"{actor} does not challenge {target}'s wild draw 4."
        r = c.get("result") if isinstance(c.get("result"), dict) else {}
        if r.get("is_challenge_success") is True:
            return f"{actor} challenges {target}'s wild draw 4 and wins: {target} takes it back plus 4 cards."
        return f"{actor} challenges {target}'s wild draw 4 and loses: {actor} draws 6."
    if ev == "public-card":
        return f"{target}'s hand is shown to the challenger."
    if ev == "pointed-not-say-uno":
        return f"{actor} points at {target} for not yelling UNO."
    if ev == "special-logic":
        title = c.get("title")
        return f"{actor} fires special logic “{title if isinstance(title, str) else '(no title)'}”."
    if ev == "color-change-request":
        return f"The dealer asks {target} to choose a colour."
    if ev == "color-of-wild":
        return f"{actor} chooses {c.get('color_of_wild')}."
    if ev == "shuffle-wild":
        return f"Shuffle wild by {target}: all hands are collected and dealt again."
    if ev == "penalty":
        err = c.get("error")
        err = err.get("message") if isinstance(err, dict) else err
        return f"Penalty for {target}: {err} (+{_num(row.get('n_cards')) or 0} card(s))."
    if ev == "finish-turn":
        return f"Round over: {target} wins." if _text(row.get("target")) else "Round over without a winner."
    return f"{ev} by {actor}."
