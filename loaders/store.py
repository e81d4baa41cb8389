"""Write rows to DuckDB: buffered, columnar, one transaction per run.

Rows are appended to per-table column buffers and flushed as Arrow tables (``INSERT ...
BY NAME``), so a whole match never has to sit in memory.  The caller opens the
transaction with :meth:`Store.begin` and ends it with :meth:`commit` or :meth:`rollback`;
until the commit, nothing is visible to other connections and a crash leaves the file as
it was.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from queries import scalar

S, I, B, F, T = pa.string(), pa.int64(), pa.bool_(), pa.float64(), pa.timestamp("ms")

#: Column names and Arrow types of every table the loaders write, in tuple order.
TABLES: dict[str, list[tuple[str, pa.DataType]]] = {
    "raw_activities": [
        ("match_id", S), ("seq", I), ("run_id", I), ("source", S), ("line", I), ("raw", S),
    ],
    "events": [
        ("match_id", S), ("dealer_code", S), ("seq", I), ("round_no", I), ("turn_no", I),
        ("event", S), ("actor", S), ("target", S), ("card_color", S), ("card_number", I),
        ("card_special", S), ("n_cards", I), ("chosen_color", S), ("yell_uno", B),
        ("draw_reason", S), ("contents", S), ("created_at", T), ("run_id", I),
    ],
    "penalties": [
        ("match_id", S), ("seq", I), ("round_no", I), ("turn_no", I), ("player", S),
        ("cause", S), ("cards_received", I),
    ],
    "challenges": [
        ("match_id", S), ("seq", I), ("round_no", I), ("turn_no", I), ("challenger", S),
        ("target", S), ("is_challenge", B), ("is_challenge_raw", S), ("success", B),
        ("receiver", S), ("cards_received", I),
    ],
    "special_logic": [
        ("match_id", S), ("seq", I), ("round_no", I), ("turn_no", I), ("player", S),
        ("title", S), ("title_length", I),
    ],
    "matches": [
        ("match_id", S), ("game", S), ("dealer_code", S), ("dealer_name", S), ("white_wild", S),
        ("rounds_played", I), ("rounds_logged", I), ("winner", S), ("status", S),
        ("final_scores", S), ("final_order", S), ("n_events", I), ("started_at", T),
        ("finished_at", T), ("log_format", S), ("ruleset", S), ("ruleset_version", S),
        ("first_run_id", I), ("last_run_id", I),
    ],
    "players": [
        ("match_id", S), ("player_code", S), ("player_name", S), ("join_order", I),
        ("rounds_won", I), ("final_score", I), ("final_rank", I),
    ],
    "rounds": [
        ("match_id", S), ("round_no", I), ("first_player", S), ("first_card", S),
        ("first_card_label", S), ("play_order", S), ("white_wild", S), ("winner", S),
        ("end_kind", S), ("n_turns", I), ("n_events", I), ("first_seq", I), ("last_seq", I),
        ("scores", S), ("started_at", T), ("ended_at", T),
    ],
    "round_scores": [
        ("match_id", S), ("round_no", I), ("player_code", S), ("score", I),
        ("total_score", I), ("is_winner", B),
    ],
    "violations": [
        ("match_id", S), ("round_no", I), ("turn_no", I), ("seq", I), ("player", S), ("code", S),
        ("family", S), ("severity", S), ("ruleset", S), ("ruleset_version", S), ("message", S),
        ("expected", S), ("actual", S), ("penalty_seq", I), ("run_id", I),
    ],
    "states": [
        ("match_id", S), ("seq", I), ("round_no", I), ("turn_no", I), ("to_act", S), ("prev_actor", S),
        ("top", S), ("direction", B), ("draw_pile", I), ("discard_pile", I), ("pending", I),
        ("owes_draw", B), ("bind", S), ("hands", S), ("yell", S), ("gate", S), ("stall", I),
        ("cards_played", I),
    ],
    "think_times": [
        ("match_id", S), ("seq", I), ("round_no", I), ("turn_no", I), ("player", S), ("action", S),
        ("think_ms", I),
    ],
    "load_issues": [
        ("run_id", I), ("source", S), ("line", I), ("reason", S), ("raw", S),
        ("raw_length", I), ("raw_hash", S),
    ],
}  # fmt: skip

#: Tables holding one row per match (or finer) that are rebuilt when a match grows.
SUMMARY_TABLES = ("matches", "players", "rounds", "round_scores", "violations")

FLUSH_ROWS = 20_000

#: Value ranges of DuckDB's integer column types.
INT_RANGES = {
    "TINYINT": (-(2**7), 2**7 - 1), "SMALLINT": (-(2**15), 2**15 - 1),
    "INTEGER": (-(2**31), 2**31 - 1), "BIGINT": (-(2**63), 2**63 - 1),
}  # fmt: skip


class Store:
    """Buffered writer for one ingest run on one connection."""

    def __init__(self, con: duckdb.DuckDBPyConnection, run_id: int) -> None:
        self.con = con
        self.run_id = run_id
        self._buffers: dict[str, list[tuple[Any, ...]]] = {name: [] for name in TABLES}
        self._pending = 0
        self._run_seq: dict[str, int] = {}
        self.rows_written: dict[str, int] = dict.fromkeys(TABLES, 0)
        self._ranges: dict[tuple[str, str], tuple[int, int]] | None = None

    # -- transaction

    def begin(self) -> None:
        self.con.execute("begin transaction")

    def commit(self) -> None:
        self.flush()
        self.con.execute("commit")

    def rollback(self) -> None:
        self._buffers = {name: [] for name in TABLES}
        self.con.execute("rollback")

    # -- rows

    def add(self, table: str, row: tuple[Any, ...]) -> None:
        self._buffers[table].append(row)
        self._pending += 1
        if table == "events":
            self._run_seq[row[0]] = row[2]
        if self._pending >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        for table, rows in self._buffers.items():
            if rows:
                self._insert(table, rows)
                self._buffers[table] = []
        self._pending = 0

    def _insert(self, table: str, rows: list[tuple[Any, ...]]) -> None:
        cols = TABLES[table]
        columns = list(zip(*rows, strict=True))
        arrays = [
            self._int_array(table, name, col) if typ == I else pa.array(col, type=typ)
            for col, (name, typ) in zip(columns, cols, strict=True)
        ]
        batch = pa.Table.from_arrays(arrays, names=[name for name, _ in cols])  # noqa: F841
        if table == "load_issues":  # once per content: a bad record read again (any path) is not a new issue
            done = self.con.execute(
                "insert into load_issues by name select * from (select distinct on (line, reason, raw_hash) * "
                "from batch) b where not exists (select 1 from load_issues l where l.line = b.line "
                "and l.reason = b.reason and l.raw_hash = b.raw_hash)"
            ).fetchone()
            self.rows_written[table] += int(done[0]) if done else 0
            return
        self.con.execute(f"insert into {table} by name select * from batch")
        self.rows_written[table] += len(rows)

    def _int_array(self, table: str, column: str, values: tuple[Any, ...]) -> pa.Array:
        """An integer column, with values its DuckDB type cannot hold stored as NULL.

        The loaders keep every number raw in ``contents`` / ``raw_activities``; a typed column
        gets NULL rather than letting one absurd value (``1e308``, a 40,000-card list) abort
        the whole run.
        """
        try:
            arr = pa.array(values, type=I)
        except (OverflowError, pa.ArrowInvalid, pa.ArrowTypeError):
            arr = pa.array([v if type(v) is int and -(2**63) <= v < 2**63 else None for v in values], type=I)
        lo, hi = self._range(table, column)
        if hi < 2**63 - 1 and len(arr) and arr.null_count < len(arr):
            mm = pc.min_max(arr)
            if mm["min"].as_py() < lo or mm["max"].as_py() > hi:
                bad = pc.or_(pc.less(arr, lo), pc.greater(arr, hi))
                arr = pc.if_else(bad, pa.scalar(None, type=I), arr)
        return arr

    def _range(self, table: str, column: str) -> tuple[int, int]:
        if self._ranges is None:
            rows = self.con.execute(
                "select table_name, column_name, data_type from information_schema.columns "
                "where table_schema = current_schema()"
            ).fetchall()
            self._ranges = {(t, c): INT_RANGES[d] for t, c, d in rows if d in INT_RANGES}
        return self._ranges.get((table, column), INT_RANGES["BIGINT"])

    # -- lookups

    def stored_activities(self, match_id: str) -> list[dict[str, Any]]:
        """The stored raw activities of a match, in order (to resume a replay)."""
        self.flush()
        return [
            {"seq": seq, "raw": raw}
            for seq, raw in self.con.execute(
                "select seq, raw from raw_activities where match_id = ? order by seq", [match_id]
            ).fetchall()
        ]

    def existing_seq(self, match_id: str) -> int:
        """Events of ``match_id`` already stored (before or earlier in this run)."""
        if match_id in self._run_seq:
            return self._run_seq[match_id]
        value = int(scalar(self.con, "select coalesce(max(seq), 0) from events where match_id = ?", [match_id]))
        self._run_seq[match_id] = value
        return value

    def replace_summary(self, match_id: str, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        """Rebuild one match's summary rows (keeping the run that first loaded it)."""
        self.flush()
        first = scalar(self.con, "select first_run_id from matches where match_id = ?", [match_id])
        for table in SUMMARY_TABLES:
            self.con.execute(f"delete from {table} where match_id = ?", [match_id])
        if first is not None and rows.get("matches"):
            row = list(rows["matches"][0])
            row[-2] = first  # first_run_id
            rows = {**rows, "matches": [tuple(row)]}
        for table in SUMMARY_TABLES:
            if rows.get(table):
                self._insert(table, rows[table])
