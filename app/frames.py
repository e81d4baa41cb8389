"""One ALGORI round as replayer frames: the board after every event, the event in words, findings.

Built once per round from the stored tables (``events`` + ``states`` + ``violations``) and sent
to the browser whole; the replayer steps through it there.  Everything here is plain data
(lists, dicts, str, int) so it serialises to JSON as is.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pandas as pd

from app.describe import ACTIONS, cell_int, cell_text, describe, event_label
from app.findings import finding_sentence, with_names
from app.reasons import SEVERITIES
from app.i18n import N_, _
from queries import dashboard as q
from rules.uno.events import penalty_text

#: Texts the replayer's JavaScript shows (controls and the card table), by key.
LABELS = {
    "first": N_("First event"), "back": N_("back"), "next": N_("next"), "last": N_("Last event"),
    "play": N_("play"), "pause": N_("pause"), "speed": N_("Autoplay speed"), "event": N_("event"),
    "round": N_("Round"), "turn": N_("turn"), "before_first_turn": N_("before the first turn"),
    "no_events": N_("No event of this round matches the filters."), "view": N_("Whose cards to show"),
    "view_all": N_("All hands (organizer)"), "view_as": N_("Only the hand of"), "table": N_("Card table"),
    "to_act": N_("to act"), "bound": N_("bound"), "winner": N_("winner"), "cards": N_("cards"),
    "points": N_("pts"), "refused": N_("refused"), "dir_normal": N_("Play goes clockwise (seat order)"),
    "dir_reverse": N_("Play goes anticlockwise (reversed)"), "played_by": N_("played by"),
    "first_card": N_("first card of the round"), "colour": N_("colour"), "draw_pile": N_("draw pile"),
    "discard_pile": N_("discard pile"), "must_draw": N_("must draw"), "owes_draw": N_("owes a draw"),
    "colour_red": N_("red"), "colour_yellow": N_("yellow"), "colour_green": N_("green"), "colour_blue": N_("blue"),
    "colour_black": N_("black"), "colour_white": N_("white"), "card_skip": N_("skip"), "card_reverse": N_("reverse"),
    "card_draw_2": N_("draw 2"), "card_wild": N_("wild"), "card_wild_draw_4": N_("wild draw 4"),
    "card_wild_shuffle": N_("shuffle wild"), "card_white_wild": N_("white wild"),
}  # fmt: skip

#: Texts every game's replayer shows (the headline, findings), by key; the games' own labels win.
COMMON_LABELS = {
    "round_n": N_("Round {n}"), "turn_n": N_("turn {n}"), "step_n": N_("{what} {k}/{n}"), "seq_n": N_("log seq {n}"),
    "seq_help": N_("The event's sequence number in the stored log (links and the raw log use it)"),
    "severity_error": SEVERITIES["error"], "severity_warning": SEVERITIES["warning"], "severity_info": SEVERITIES["info"],
}  # fmt: skip

#: The Kakomimasu field's legend and the tapped cell in words.
KAKOMIMASU_LABELS = {
    "legend_wall": N_("wall"), "legend_area": N_("area (enclosed)"), "legend_agent": N_("agent (its number)"),
    "legend_put": N_("put"), "legend_move": N_("move"), "legend_remove": N_("remove"),
    "legend_failed": N_("failed (red, dashed)"), "legend_negative": N_("negative cell (violet)"),
    "tap_cell": N_("Tap or click a cell to see it in words here."), "cell_points": N_("{n} points"),
    "wall_of": N_("wall of {team}"), "area_of": N_("area of {team}"), "agent_n": N_("agent {n}"),
    "acts_here": N_("Actions aimed at this cell"),
}  # fmt: skip

def labels() -> dict[str, str]:
    return {k: _(v) for k, v in (COMMON_LABELS | LABELS).items()}


def board_labels(payload: dict[str, Any]) -> dict[str, Any]:
    """A Kakomimasu or CHaser payload with the common labels (and the field's legend) added, translated."""
    extra = COMMON_LABELS | (KAKOMIMASU_LABELS if payload.get("game") == "kakomimasu" else {})
    payload["labels"] = {k: _(v) for k, v in extra.items()} | payload.get("labels", {})
    return payload


def clip(text: Any, n: int = 40) -> str:
    """A name shortened for a page's text (the replayer shows the whole name on a tap)."""
    s = "" if text is None else str(text)
    return s if len(s) <= n else s[: n - 1] + "…"


def span(values: list[int]) -> str:
    """'1–40' (or '3' for one value) for a message naming what exists."""
    if not values:
        return "—"
    lo, hi = min(values), max(values)
    return str(lo) if lo == hi else f"{lo}–{hi}"


def nearest(values: list[int], wanted: int) -> int:
    """The value closest to ``wanted`` (ties: the later one)."""
    return min(values, key=lambda v: (abs(v - wanted), -v))


def _j(value: Any, default: Any) -> Any:
    if not isinstance(value, str):
        return default
    try:
        return json.loads(value)
    except ValueError:
        return default


def _dict(value: Any) -> dict[str, Any]:
    got = _j(value, {})
    return got if isinstance(got, dict) else {}


def refusal(row: dict[str, Any], nxt: dict[str, Any] | None) -> str | None:
    """The dealer's error text when ``nxt`` is a penalty refusing the action ``row``."""
    if nxt is None or nxt.get("event") != "penalty" or row.get("event") not in ACTIONS:
        return None
    actor = cell_text(row.get("actor"))
    if actor is None or cell_text(nxt.get("target")) != actor:
        return None
    return penalty_text(_dict(nxt.get("contents")).get("error")) or "?"


def attempted_card(row: dict[str, Any]) -> str | None:
    colour, number, special = cell_text(row.get("card_color")), cell_int(row.get("card_number")), cell_text(row.get("card_special"))
    if colour is None or (number is None and special is None):
        return None
    return f"{colour}-{number if number is not None else special}"


def uno_round(
    events: pd.DataFrame, info: dict[str, Any], names: dict[str, str], colors: dict[str, str],
    found: pd.DataFrame, *, match: str, round_no: int,
) -> dict[str, Any]:  # fmt: skip
    """The replayer payload of one ALGORI round."""
    rows = events.to_dict("records")
    by_seq: dict[int, list[dict[str, Any]]] = {}
    for f in found.to_dict("records"):
        for key in {cell_int(f.get("seq")), cell_int(f.get("penalty_seq"))} - {None}:
            by_seq.setdefault(key, []).append(f)  # type: ignore[arg-type]
    order = {"error": 0, "warning": 1, "info": 2}
    seats = [s for s in _j(info.get("play_order"), []) if isinstance(s, str)]
    frames: list[dict[str, Any]] = []
    prev_hands: dict[str, list[str]] = {}
    played: dict[str, Any] = {}
    prev_top: str | None = None
    for i, row in enumerate(rows):
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        refused = refusal(row, nxt)
        hands = {k: [c for c in v if isinstance(c, str)] for k, v in _dict(row.get("hands")).items() if isinstance(v, list)}
        top = cell_text(row.get("top"))
        ev = str(row.get("event"))
        actor = cell_text(row.get("actor")) or cell_text(row.get("target"))
        if ev == "first-player":
            played = {"first": True}
        elif top != prev_top and refused is None and ev in ("play-card", "play-draw-card"):
            played = {"prev": prev_top, "by": cell_text(row.get("actor"))}
        gained: dict[str, list[str]] = {}
        if ev not in ("first-player", "shuffle-wild"):
            for code, cards in hands.items():
                extra = Counter(cards) - Counter(prev_hands.get(code, []))
                if extra:
                    gained[code] = list(extra.elements())
        fs = sorted(by_seq.get(cell_int(row.get("seq")) or -1, []), key=lambda f: (order.get(f.get("severity"), 3), str(f.get("code"))))
        frames.append({
            "seq": cell_int(row.get("seq")), "turn": cell_int(row.get("turn_no")), "event": ev, "label": event_label(ev),
            "who": names.get(actor, actor) if actor else "", "actor": actor,
            "sentence": describe(row, names, refused_by=refused), "refused": refused is not None,
            "attempt": attempted_card(row) if refused is not None and ev in ("play-card", "play-draw-card") else None,
            "findings": [{"severity": str(f.get("severity")), "code": str(f.get("code")),
                          "text": finding_sentence(f, names)} for f in fs],
            "winner": cell_text(info.get("winner")) if ev == "finish-turn" else None,
            "played": dict(played), "gained": gained,
            "board": {
                "hands": hands, "top": top, "direction": None if pd.isna(row.get("direction")) else bool(row.get("direction")),
                "draw_pile": cell_int(row.get("draw_pile")), "discard_pile": cell_int(row.get("discard_pile")),
                "pending": cell_int(row.get("pending")) or 0,
                "owes_draw": bool(row.get("owes_draw")) if not pd.isna(row.get("owes_draw")) else False,
                "bind": {k: v for k, v in _dict(row.get("bind")).items() if isinstance(v, int) and v},
                "yell": {k: True for k, v in _dict(row.get("yell")).items() if v is True},
                "to_act": cell_text(row.get("to_act")),
            },
        })  # fmt: skip
        prev_hands, prev_top = hands, top
    players = [{"code": c, "name": names.get(c, c), "color": colors.get(c, "#777777")}
               for c in (seats or list(names))]  # fmt: skip
    return {
        "id": f"{match}/{round_no}/{len(frames)}", "game": "algori-uno", "round": round_no, "seats": seats,
        "players": players, "frames": frames, "labels": labels(),
    }


def round_from(con: Any, match: str, round_no: int, names: dict[str, str], colors: dict[str, str]) -> dict[str, Any]:
    """:func:`uno_round` for one stored round, read through ``queries.dashboard``."""
    return uno_round(q.round_events(con, match, round_no), q.round_info(con, match, round_no) or {}, names, colors,
                     q.round_findings(con, match, round_no), match=match, round_no=round_no)  # fmt: skip


def visible(frames: list[dict[str, Any]], show: str, player: str | None) -> list[int]:
    """Indexes of the frames a filter keeps: ``show`` one of all/findings/errors/penalties/refused."""
    keep = []
    for i, f in enumerate(frames):
        if player and f["actor"] != player and player not in (f.get("gained") or {}):
            continue
        if show == "findings" and not f["findings"]:
            continue
        if show == "errors" and not any(x["severity"] == "error" for x in f["findings"]):
            continue
        if show == "penalties" and f["event"] != "penalty":
            continue
        if show == "refused" and not f["refused"]:
            continue
        keep.append(i)
    return keep
