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

Con = duckdb.DuckDBPyConnection

#: The board columns (the former ``states`` table), in order.
BOARD_COLUMNS = ("seq", "round_no", "turn_no", "to_act", "prev_actor", "top", "direction", "draw_pile", "discard_pile",
                 "pending", "owes_draw", "bind", "hands", "yell", "gate", "stall", "cards_played")  # fmt: skip


def _text(v: Any) -> Any:
    return v.decode("utf-8") if isinstance(v, bytes) else v


def boards(con: Con, match: str, first: int, last: int) -> list[dict[str, Any]]:
    """The board after every event of ``match`` with seq in [``first``, ``last``] (none where the
    match was not replayed: ingested without validation, or not an ALGORI match)."""
    from loaders.algori import activity_from_raw, state_row
    from loaders.rawpack import lines as raw_lines
    from rules.core import Frame
    from rules.uno.boards import decode_state, fold_boards

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
