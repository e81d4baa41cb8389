"""Every event's board, derived from the keyframes (ALGORI UNO; see :mod:`rules.uno.boards`).

The loader stores the replayed board only where the fold over the lines cannot give it; this
module gives the board after any stretch of events by folding the stored lines from the nearest
keyframe — the same function the loader checked every board against at ingest.
"""

from __future__ import annotations

from typing import Any

import duckdb
import orjson
import pandas as pd

from queries import sql
from queries.rawlines import lines as raw_lines
from rules.core import Frame
from rules.uno.boards import decode_state, fold_boards
from rules.uno.cards import Card
from rules.uno.log import activity_from_raw, json_default

Con = duckdb.DuckDBPyConnection

#: The board columns (the former ``states`` table), in order.
BOARD_COLUMNS = ("seq", "round_no", "turn_no", "to_act", "prev_actor", "top", "direction", "draw_pile", "discard_pile",
                 "pending", "owes_draw", "bind", "hands", "yell", "gate", "stall", "cards_played")  # fmt: skip


_LABELS: dict[Card, str] = {}


def _label(card: Card | None) -> str | None:
    if card is None:
        return None
    label = _LABELS.get(card)
    if label is None:
        label = _LABELS[card] = str(card)
    return label


_HAND_JSON: dict[tuple[Card, ...], bytes] = {}


_KEY_JSON: dict[str, bytes] = {}


def _hand_json(hand: tuple[Card, ...]) -> bytes:
    """JSON list of a hand's card labels, cached (a hand rarely changes between two events)."""
    text = _HAND_JSON.get(hand)
    if text is None:
        if len(_HAND_JSON) > 200_000:
            _HAND_JSON.clear()
        text = _HAND_JSON[hand] = orjson.dumps([_label(c) for c in hand])
    return text


def _hands_json(hands: Any) -> bytes:
    """The hands as a JSON object, in UTF-8 bytes (stored as text; the store converts bytes in C)."""
    parts = []
    for p, h in hands.items():
        key = _KEY_JSON.get(p)
        if key is None:
            key = _KEY_JSON[p] = orjson.dumps(p)
        parts.append(key + b":" + _hand_json(h))
    return b"{" + b",".join(parts) + b"}"


_YELL_JSON: dict[tuple[tuple[str, bool], ...], bytes] = {}


def _yell_json(yell: Any) -> bytes:
    """The UNO flags as a JSON object, cached (the flags are booleans and rarely change)."""
    key = tuple(yell.items())
    text = _YELL_JSON.get(key)
    if text is None:
        if len(_YELL_JSON) > 10_000:
            _YELL_JSON.clear()
        text = _YELL_JSON[key] = orjson.dumps(dict(yell), default=json_default)
    return text


def state_row(match_id: str | None, fr: Frame) -> tuple[Any, ...]:
    s = fr.after
    ev = fr.event
    return (
        match_id, fr.seq, ev.round_no if ev.round_no is not None else s.round_no, s.turn_no, s.to_act,
        s.prev_actor, _label(s.top), s.direction, s.draw_pile, s.discard, s.pending, s.owes_draw,
        orjson.dumps(dict(s.bind), default=json_default) if s.bind else None, _hands_json(s.hands),
        _yell_json(s.yell), s.gate, s.stall,
        s.cards_played,
    )  # fmt: skip


def _text(v: Any) -> Any:
    return v.decode("utf-8") if isinstance(v, bytes) else v


def boards(con: Con, match: str, first: int, last: int) -> list[dict[str, Any]]:
    """The board after every event of ``match`` with seq in [``first``, ``last``] (none where the
    match was not replayed: ingested without validation, or not an ALGORI match)."""

    kept = con.execute(sql("board/keyframes"), {"match": match, "first": first, "last": last}).fetchall()
    if not kept or kept[0][0] > first:
        return []
    keyframes = {int(seq): decode_state(orjson.loads(text)) for seq, text in kept}
    start = min(keyframes)
    rows = sorted(raw_lines(con, match, start, last + 1).items())
    lines = [(seq, activity_from_raw(raw, seq)) for seq, raw in rows]
    out = []
    for seq, ev, state in fold_boards(keyframes, lines):
        if seq > last:
            break
        if seq >= first:
            row = state_row(match, Frame(seq, ev, None, state))
            out.append(dict(zip(BOARD_COLUMNS, map(_text, row[1:]), strict=True)))
    return out


def match_boards(con: Con, match: str) -> pd.DataFrame:
    """Every board of one match (what the ``states`` table held), one row per event."""
    last = con.execute(sql("board/last_seq"), {"match": match}).fetchone()
    return pd.DataFrame(boards(con, match, 1, int(last[0]) if last else 0), columns=list(BOARD_COLUMNS))


#: The actions a think time is measured for, and the lines that hand a player the turn (or ask them for a colour).
TIMED = frozenset({"play-card", "draw-card", "play-draw-card", "challenge", "color-of-wild"})
HAND_OVERS = frozenset({"next-player", "color-change-request"})


def round_think(con: Con, match: str, round_no: int) -> dict[int, int]:
    """The think time (ms) of every timed action of one round, by seq: ``think_times`` (judged at ingest against
    the dealer's clock), or — where the rules run no clock (JUA) and that table has none — the time from the
    log's timestamps since the last line that handed the actor the turn (or asked them for a colour)."""
    rows = con.execute(sql("board/round_think"), {"match": match, "round": round_no}).fetchall()
    if rows:
        return {int(seq): int(ms) for seq, ms in rows}
    return think_from_times(con.execute(sql("board/round_times"), {"match": match, "round": round_no}).fetchall())


def think_from_times(rows: list[tuple[Any, ...]]) -> dict[int, int]:
    """``(seq, event, actor, target, at_ms)`` rows in order -> seq -> ms since the actor's last hand-over."""
    handed: dict[str, int] = {}
    out: dict[int, int] = {}
    for seq, event, actor, target, at in rows:
        if at is None:
            continue
        if event in HAND_OVERS and isinstance(target, str):
            handed[target] = int(at)
        elif event in TIMED and isinstance(actor, str) and actor in handed and int(at) >= handed[actor]:
            out[int(seq)] = int(at) - handed[actor]
    return out
