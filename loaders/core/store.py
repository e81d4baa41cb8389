"""Write rows to DuckDB: buffered, columnar, one transaction per run.

Rows are appended to per-table column buffers and flushed as Arrow tables (``INSERT ...
BY NAME``), so a whole match never has to sit in memory.  The inserts of a full buffer run
on a writer thread (DuckDB works without Python's lock), so the loader goes on reading
meanwhile; every other use of the connection waits for them first.  The caller opens the
transaction with :meth:`Store.begin` and ends it with :meth:`commit` or :meth:`rollback`;
until the commit, nothing is visible to other connections and a crash leaves the file as
it was.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from queries import scalar

S, I, B, F, T = pa.string(), pa.int64(), pa.bool_(), pa.float64(), pa.timestamp("ms")

#: Column names and Arrow types of every table the loaders write, in tuple order.
TABLES: dict[str, list[tuple[str, pa.DataType]]] = {
    "raw_activities": [
        ("match_id", S), ("seq", I), ("run_id", I), ("source", S), ("line", I), ("raw", S), ("rkey", I),
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
        ("first_run_id", I), ("last_run_id", I), ("log_start", S), ("end_kind", S),
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
    # the replayed board only where the fold over the lines cannot give it (rules.uno.boards)
    "board_keyframes": [("match_id", S), ("seq", I), ("round_no", I), ("state", S)],
    "think_times": [
        ("match_id", S), ("seq", I), ("round_no", I), ("turn_no", I), ("player", S), ("action", S),
        ("think_ms", I),
    ],
    "load_issues": [
        ("run_id", I), ("source", S), ("line", I), ("reason", S), ("raw", S),
        ("raw_length", I), ("raw_hash", S),
    ],
    "kakomimasu_games": [
        ("match_id", S), ("game_id", S), ("name", S), ("game_type", S), ("status", S), ("board_key", S),
        ("width", I), ("height", I), ("points", S), ("n_player", I), ("n_agent", I), ("total_turn", I),
        ("turns_logged", I), ("operation_sec", F), ("transition_sec", F), ("started_at", T), ("winners", S),
        ("decided_by", S), ("area_fill", S), ("written_points", S), ("content_hash", S), ("progress", I),
        ("run_id", I),
    ],
    "kakomimasu_actions": [
        ("match_id", S), ("turn", I), ("player_index", I), ("agent_id", I), ("type", I), ("x", I), ("y", I),
        ("res", I), ("res_replayed", I), ("why", S), ("inferred", B), ("undetermined", B), ("position", I),
    ],
    "kakomimasu_points": [
        ("match_id", S), ("turn", I), ("player_index", I), ("area_point", I), ("wall_point", I),
        ("area_point_replayed", I), ("wall_point_replayed", I),
    ],
    "kakomimasu_boards": [
        ("board_key", S), ("name", S), ("width", I), ("height", I), ("points", S), ("n_agent", I),
        ("n_player", I), ("total_turn", I), ("operation_sec", F), ("run_id", I),
    ],
    "chaser_games": [
        ("match_id", S), ("started", S), ("map_name", S), ("map_key", S), ("width", I), ("height", I), ("turns", I),
        ("cells", S), ("cool_start", S), ("hot_start", S), ("end_kind", S), ("end_turn", I), ("winner", S),
        ("loser", S), ("items_cool", I), ("items_hot", I), ("sentence", S), ("actions", I), ("unknown_lines", I),
        ("truncated", B), ("content_hash", S), ("progress", I), ("run_id", I),
    ],
    "chaser_actions": [
        ("match_id", S), ("seq", I), ("turn", I), ("remaining", I), ("team", S), ("action", S), ("direction", S),
        ("x", I), ("y", I), ("surroundings", S), ("surroundings_replayed", S), ("item_taken", B),
        ("item_destroyed", B), ("items_cool", I), ("items_hot", I),
    ],
    "chaser_maps": [
        ("map_key", S), ("name", S), ("width", I), ("height", I), ("turns", I), ("cells", S), ("cool_start", S),
        ("hot_start", S), ("run_id", I),
    ],
    # not stored: pieces of match logs that wait for the end of the run to be put in place
    "spool": [
        ("piece", I), ("pos", I), ("run_id", I), ("source", S), ("line", I), ("raw", S), ("rkey", I),
        ("event", S), ("round_no", I), ("t", I), ("players", S),
    ],
}  # fmt: skip

#: Every table with a ``match_id`` column, i.e. everything a match's rebuild replaces.
MATCH_TABLES = ("raw_activities", "events", "penalties", "challenges", "special_logic", "matches", "players",
                "rounds", "round_scores", "violations", "board_keyframes", "think_times", "raw_blocks",
                "kakomimasu_games", "kakomimasu_actions", "kakomimasu_points", "chaser_games", "chaser_actions")  # fmt: skip

#: Tables holding one row per match (or finer) that are rebuilt when a match grows.
SUMMARY_TABLES = ("matches", "players", "rounds", "round_scores")
#: Summary tables with a row per round (``round_no`` their second column).
ROUND_TABLES = ("rounds", "round_scores")
#: Summaries held back before being written together (one delete and one insert per table).
SUMMARY_BATCH = 2000

FLUSH_ROWS = 20_000
#: Flushes the writer thread may hold, at most, before the loader waits for it.
WRITE_QUEUE = 2

#: Value ranges of DuckDB's integer column types.
INT_RANGES = {
    "TINYINT": (-(2**7), 2**7 - 1), "SMALLINT": (-(2**15), 2**15 - 1),
    "INTEGER": (-(2**31), 2**31 - 1), "BIGINT": (-(2**63), 2**63 - 1),
}  # fmt: skip


def _text_array(values: tuple[Any, ...]) -> pa.Array:
    """A text column from str and UTF-8 bytes (raw lines, JSON kept as bytes: converted in C,
    about 3 × faster than from str); bytes that are not UTF-8 are decoded with U+FFFD."""
    try:
        return pa.array(values, type=S)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in values], type=S)


def _int64_array(values: tuple[Any, ...]) -> pa.Array:
    """An integer column; a value beyond 64 bits (or not an integer) becomes NULL."""
    try:
        return pa.array(values, type=I)
    except (OverflowError, pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([v if type(v) is int and -(2**63) <= v < 2**63 else None for v in values], type=I)


def arrow_table(table: str, rows: list[tuple[Any, ...]]) -> pa.Table:
    """Rows of one of :data:`TABLES` as an Arrow table, column by column (no database needed:
    worker processes build their rows' tables themselves). Integer columns are 64-bit here;
    :meth:`Store.extend` narrows them to the column's DuckDB type."""
    cols = TABLES[table]
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(cols)
    arrays = [
        _int64_array(col) if typ == I else _text_array(col) if typ == S else pa.array(col, type=typ)
        for col, (_, typ) in zip(columns, cols, strict=True)
    ]
    return pa.Table.from_arrays(arrays, names=[name for name, _ in cols])


class Recorder:
    """Stands in for a :class:`Store` in a worker process: keeps the writes, in order, for
    :meth:`apply` to make on the real store (``add``, ``add_violation``, ``replace_summary``)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def add(self, table: str, row: tuple[Any, ...]) -> None:
        self.calls.append(("add", (table, row)))

    def add_violation(self, v: Any) -> None:
        self.calls.append(("add_violation", (v,)))

    def replace_summary(self, match_id: str, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        self.calls.append(("replace_summary", (match_id, rows)))

    def apply(self, store: Store) -> None:
        for name, args in self.calls:
            getattr(store, name)(*args)


def recorded(fn: Callable[..., None], *args: Any) -> Recorder:
    """Worker side: run ``fn(sink, *args)`` with a :class:`Recorder` as the sink."""
    rec = Recorder()
    fn(rec, *args)
    return rec


class _Writer:
    """One thread making a store's inserts in order, at most :data:`WRITE_QUEUE` waiting (bounded memory).

    A failed insert is raised again by the next :meth:`put` or :meth:`wait`; the transaction
    it belonged to is then rolled back by the caller, as for any failure.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.queue: queue.Queue[tuple[str, pa.Table] | None] = queue.Queue(maxsize=WRITE_QUEUE)
        self.error: BaseException | None = None
        self.thread: threading.Thread | None = None

    def put(self, sql: str | Callable[[duckdb.DuckDBPyConnection, pa.Table], None], batch: pa.Table) -> None:
        """Run ``sql`` (which reads the table ``batch``; or a function of the connection and ``batch``)
        after the inserts already queued."""
        self._raise()
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="kifu-store-writer", daemon=True)
            self.thread.start()
        self.queue.put((sql, batch))

    def wait(self) -> None:
        """Until every queued insert is made (raising the first that failed)."""
        if self.thread is not None:
            self.queue.join()
        self._raise()

    def stop(self, *, discard: bool = False) -> None:
        """End the thread: after the queued inserts, or (``discard``) dropping them (a run being rolled back)."""
        if self.thread is None:
            return
        if discard:
            while True:
                try:
                    self.queue.get_nowait()
                except queue.Empty:
                    break
                self.queue.task_done()
        self.queue.put(None)
        self.thread.join()
        self.thread = None

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def _run(self) -> None:
        while True:
            item = self.queue.get()
            try:
                if item is None:
                    return
                if self.error is None:
                    sql, batch = item  # noqa: F841 - ``batch`` is read by name in ``sql``
                    if callable(sql):
                        sql(self.con, batch)
                    else:
                        self.con.execute(sql)
            except BaseException as exc:  # noqa: BLE001 - handed to the loader's thread
                self.error = exc
            finally:
                self.queue.task_done()


def _insert_packed(con: duckdb.DuckDBPyConnection, batch: pa.Table) -> None:
    """``raw_activities`` rows inserted with their lines' bytes packed (:mod:`queries.rawlines`)."""
    from queries.rawlines import pack

    rows, blocks = pack(batch)  # noqa: F841 - read by name below
    con.execute("insert into raw_activities by name select * from rows")
    if blocks.num_rows:
        con.execute("insert into raw_blocks by name select * from blocks")


class Store:
    """Buffered writer for one ingest run on one connection."""

    def __init__(self, con: duckdb.DuckDBPyConnection, run_id: int) -> None:
        self._writer = _Writer(con)
        self.run_id = run_id
        #: Called before every flush: makes the rows still being made elsewhere (worker processes) arrive.
        self.settle: Callable[[], None] | None = None
        self._buffers: dict[str, list[tuple[Any, ...]]] = {name: [] for name in TABLES}
        self._chunks: dict[str, list[pa.Table]] = {name: [] for name in TABLES}  # converted, in order, before _buffers
        self._pending = 0
        self._run_seq: dict[str, int] = {}
        self.rows_written: dict[str, int] = dict.fromkeys(TABLES, 0)
        self._ranges: dict[tuple[str, str], tuple[int, int]] | None = None
        self._summaries: dict[str, dict[str, list[tuple[Any, ...]]]] = {}
        self._summary_from: dict[str, int] = {}
        self._spool_ready = False
        self._pieces: dict[int, tuple[str | None, str]] = {}  # spooled piece -> dealer group
        self._known_groups: set[tuple[str | None, str]] | None = None
        self._summary_groups: set[tuple[str | None, str]] = set()
        self.groups_touched: set[tuple[str | None, str]] = set()

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The connection, once the writer thread's queued inserts are made."""
        self._writer.wait()
        return self._writer.con

    # -- transaction

    def begin(self) -> None:
        self.con.execute("begin transaction")

    def commit(self) -> None:
        self.flush()
        self.con.execute("commit")

    def rollback(self) -> None:
        self._writer.stop(discard=True)
        self._buffers = {name: [] for name in TABLES}
        self._chunks = {name: [] for name in TABLES}
        self.con.execute("rollback")

    # -- rows

    def add(self, table: str, row: tuple[Any, ...]) -> None:
        self._buffers[table].append(row)
        self._pending += 1
        if table == "events":
            self._run_seq[row[0]] = row[2]
        if self._pending >= FLUSH_ROWS:
            self._send()

    def extend(self, table: str, rows: list[tuple[Any, ...]] | pa.Table) -> None:
        """Many rows of one table at once: tuples, or an Arrow table (:func:`arrow_table`). ``events`` rows
        coming this way have had their ``seq`` noted (:meth:`note_seq`)."""
        if isinstance(rows, pa.Table):
            self._chunk(table)
            self._chunks[table].append(rows)
            self._pending += rows.num_rows
        else:
            self._buffers[table].extend(rows)
            self._pending += len(rows)
        if self._pending >= FLUSH_ROWS:
            self._send()

    def _chunk(self, table: str) -> None:
        rows = self._buffers[table]
        if rows:
            self._chunks[table].append(arrow_table(table, rows))
            self._buffers[table] = []

    def add_violation(self, v: Any) -> None:
        """A validator finding (``rules.core.Violation``) as a ``violations`` row of this run."""
        self.add("violations", (
            v.match_id, v.round_no, v.turn_no, v.seq, v.player, v.code, v.family, v.severity, v.ruleset,
            v.ruleset_version, v.message, v.expected, v.actual, v.penalty_seq, self.run_id,
        ))  # fmt: skip

    def flush(self) -> None:
        """Write every buffered row now (returns once they are in the transaction), and first the
        rows worker processes still make for records already taken (:attr:`settle`)."""
        if self.settle is not None:
            self.settle()
        self._send()
        self._writer.wait()

    def note_seq(self, match_id: str, seq: int) -> None:
        """A record ``seq`` of ``match_id`` taken, its ``events`` row to come (made by a worker)."""
        self._run_seq[match_id] = seq

    def _send(self) -> None:
        """Hand the buffered rows to the writer thread (a full buffer: the loader goes on meanwhile)."""
        for table in TABLES:
            self._chunk(table)
            chunks = self._chunks[table]
            if chunks:
                self._chunks[table] = []
                self._insert(table, chunks[0] if len(chunks) == 1 else pa.concat_tables(chunks))
        self._pending = 0
        self._flush_summaries()

    def close(self, *, discard: bool = False) -> None:
        """Stop the writer thread: after its inserts, or (``discard``, a run rolled back) without them."""
        self._writer.stop(discard=discard)

    def _insert(self, table: str, rows: pa.Table | list[tuple[Any, ...]]) -> None:
        batch = self._narrow(table, rows if isinstance(rows, pa.Table) else arrow_table(table, rows))  # noqa: F841
        if table == "load_issues":  # once per content: a bad record read again (any path) is not a new issue
            done = self.con.execute(
                "insert into load_issues by name select * from (select distinct on (line, reason, raw_hash) * "
                "from batch) b where not exists (select 1 from load_issues l where l.line = b.line "
                "and l.reason = b.reason and l.raw_hash = b.raw_hash)"
            ).fetchone()
            self.rows_written[table] += int(done[0]) if done else 0
            return
        if table == "spool" and not self._spool_ready:
            self.con.execute(
                "create temp table if not exists spool (piece integer, pos integer, run_id integer, source varchar, "
                "line bigint, raw varchar, rkey bigint, event varchar, round_no integer, t bigint, players varchar)"
            )
            self._spool_ready = True
        if table == "raw_activities":  # the lines' bytes packed into raw_blocks, on the writer thread
            self._writer.put(_insert_packed, batch)
        else:
            self._writer.put(f"insert into {table} by name select * from batch", batch)
        self.rows_written[table] += batch.num_rows

    def _narrow(self, table: str, batch: pa.Table) -> pa.Table:
        """Integer values the column's DuckDB type cannot hold stored as NULL.

        The loaders keep every number raw in ``contents`` / ``raw_activities``; a typed column
        gets NULL rather than letting one absurd value (``1e308``, a 40,000-card list) abort
        the whole run.
        """
        for i, (name, typ) in enumerate(TABLES[table]):
            if typ != I:
                continue
            lo, hi = self._range(table, name)
            arr = batch.column(i)
            if hi == 2**63 - 1 or arr.null_count == len(arr):
                continue
            mm = pc.min_max(arr)
            if mm["min"].as_py() < lo or mm["max"].as_py() > hi:
                bad = pc.or_(pc.less(arr, lo), pc.greater(arr, hi))
                batch = batch.set_column(i, name, pc.if_else(bad, pa.scalar(None, type=I), arr))
        return batch

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
        from queries.rawlines import lines

        self.flush()
        return [{"seq": seq, "raw": raw} for seq, raw in sorted(lines(self.con, match_id, 1, 2**62).items())]

    def _unpack_raw(self, match_ids: set[str]) -> None:
        """Temp table ``raw_text (match_id, seq, raw)``: the packed lines of these matches as text, for
        the SQL that copies stored records (a rebuild; rare)."""
        from queries.rawlines import lines

        rows = [(m, seq, raw) for m in sorted(match_ids) for seq, raw in lines(self.con, m, 1, 2**62).items()]
        cols = list(zip(*rows, strict=True)) if rows else [[], [], []]
        text = pa.table({"match_id": pa.array(cols[0], type=S), "seq": pa.array(cols[1], type=I),  # noqa: F841
                         "raw": pa.array(cols[2], type=S)})  # fmt: skip
        self.con.execute("create or replace temp table raw_text as select * from text")

    def existing_seq(self, match_id: str) -> int:
        """Events of ``match_id`` already stored (before or earlier in this run)."""
        if match_id in self._run_seq:
            return self._run_seq[match_id]
        value = int(scalar(self.con, "select coalesce(max(seq), 0) from events where match_id = ?", [match_id]))
        self._run_seq[match_id] = value
        return value

    def max_state_seq(self, match_id: str) -> int:
        """The newest event of ``match_id`` whose replay rows (a keyframe, a think time) are stored (0: none)."""
        self.flush()
        return int(scalar(self.con, "select greatest((select coalesce(max(seq), 0) from board_keyframes where match_id = $m), "
                                    "(select coalesce(max(seq), 0) from think_times where match_id = $m))", {"m": match_id}))

    def find_key(self, dealer_code: str | None, dealer: str, rkey: int) -> list[tuple[str, int]]:
        """Stored positions ``(match_id, seq)`` of a record key among the matches of one dealer."""
        self.flush()
        return [
            (m, int(q))
            for m, q in self.con.execute(
                "select r.match_id, r.seq from raw_activities r join matches m using (match_id) "
                "where r.rkey = ? and m.dealer_code is not distinct from ? and m.dealer_name = ? order by 1, 2",
                [rkey, dealer_code, dealer],
            ).fetchall()
        ]

    def keys(self, match_id: str, first: int, last: int) -> list[int]:
        """Record keys of ``match_id`` at seq ``first``..``last``, in order."""
        self.flush()
        rows = self.con.execute(
            "select rkey from raw_activities where match_id = ? and seq between ? and ? order by seq",
            [match_id, first, last],
        ).fetchall()
        return [int(k) if k is not None else -1 for (k,) in rows]

    def log_start(self, match_id: str) -> str:
        """'start' when the stored log of this match begins at its beginning, else 'partial'."""
        self.flush()
        return str(scalar(self.con, "select coalesce(log_start, 'partial') from matches where match_id = ?", [match_id])
                   or "partial")  # fmt: skip

    def group_known(self, group: tuple[str | None, str]) -> bool:
        """Whether any match of this dealer code and name is stored (or being written by this run)."""
        if self._known_groups is None:
            self._known_groups = {(c, n) for c, n in self.con.execute(
                "select distinct dealer_code, dealer_name from matches").fetchall()}  # fmt: skip
        return group in self._known_groups or group in self._summary_groups

    def group_matches_many(self, groups: list[tuple[str | None, str]]) -> dict[tuple[str | None, str], list[tuple[str, str | None]]]:
        """``group -> [(match_id, log_start)]`` for many dealer groups in one query."""
        self.flush()
        if not groups:
            return {}
        want = pa.table({"dealer_code": pa.array([g[0] for g in groups], type=S),  # noqa: F841
                         "dealer_name": pa.array([g[1] for g in groups], type=S)})  # fmt: skip
        out: dict[tuple[str | None, str], list[tuple[str, str | None]]] = {}
        for code, name, match_id, start in self.con.execute(
            "select m.dealer_code, m.dealer_name, m.match_id, m.log_start from matches m join want w "
            "on m.dealer_code is not distinct from w.dealer_code and m.dealer_name = w.dealer_name order by 3"
        ).fetchall():
            out.setdefault((code, name), []).append((match_id, start))
        return out

    def stored_pieces(self, match_id: str) -> list[list[tuple[Any, ...]]]:
        """A stored match split where its records came from another run or source:
        per record ``(seq, rkey, event, round_no, t_ms, actor, target)``."""
        self.flush()
        rows = self.con.execute(
            "select r.seq, r.rkey, e.event, e.round_no, epoch_ms(e.created_at), e.actor, e.target, r.run_id, r.source "
            "from raw_activities r join events e using (match_id, seq) where r.match_id = ? order by r.seq",
            [match_id],
        ).fetchall()
        pieces: list[list[tuple[Any, ...]]] = []
        last = None
        for seq, rkey, event, round_no, t, actor, target, run_id, source in rows:
            if (run_id, source) != last:
                pieces.append([])
                last = (run_id, source)
            pieces[-1].append((seq, rkey, event, round_no, t, actor, target))
        return pieces

    def new_piece(self, group: tuple[str | None, str]) -> int:
        piece = len(self._pieces) + 1
        self._pieces[piece] = group
        return piece

    def spool_stored(self, piece: int, match_id: str, first: int, last: int) -> int:
        """Copy stored records ``first``..``last`` of a match into a spooled piece; returns their count."""
        self.flush()
        self._insert("spool", [(piece, 0, 0, "", 0, "", 0, "", 0, 0, "")])  # creates the table
        self.con.execute("delete from spool where piece = ? and pos = 0", [piece])
        self._unpack_raw({match_id})
        self.con.execute(
            "insert into spool select ?, r.seq - ? + 1, r.run_id, r.source, r.line, coalesce(r.raw, x.raw), r.rkey, e.event, "
            "e.round_no, epoch_ms(e.created_at), concat_ws(',', e.actor, e.target) from raw_activities r "
            "join events e using (match_id, seq) left join raw_text x on x.match_id = r.match_id and x.seq = r.seq "
            "where r.match_id = ? and r.seq between ? and ?",
            [piece, first, match_id, first, last],
        )
        return last - first + 1

    def spooled_pieces(self) -> dict[tuple[str | None, str], list[int]]:
        """Dealer group -> the pieces spooled for it by this run."""
        self.flush()
        if not self._spool_ready:
            return {}
        out: dict[tuple[str | None, str], list[int]] = {}
        for (piece,) in self.con.execute("select distinct piece from spool order by 1").fetchall():
            out.setdefault(self._pieces[piece], []).append(int(piece))
        return out

    def piece_rows(self, piece: int) -> list[tuple[Any, ...]]:
        """A spooled piece's records ``(piece, pos, rkey, event, round_no, t, players)`` in order."""
        return self.con.execute(
            "select piece, pos, rkey, event, round_no, t, players from spool where piece = ? order by pos", [piece]
        ).fetchall()

    def stage_rebuild(self, order: list[tuple[int, int, str, Any, int]], whole: list[tuple[int, int]]) -> int:
        """Copy the records of rebuilt matches, in their new order, into temp table ``rebuild``.

        ``order``: ``(match index, position, kind 's'|'p', match_id or piece, seq or pos)``;
        ``whole``: ``(match index, piece)`` for matches that are one spooled piece as it is.
        Returns the number of records staged.
        """
        self.flush()
        cols = list(zip(*order, strict=True)) if order else [[], [], [], [], []]
        plan = pa.table({  # noqa: F841 - read by the query below
            "m": pa.array(cols[0], type=I), "k": pa.array(cols[1], type=I), "kind": pa.array(cols[2], type=S),
            "a": pa.array([str(x) for x in cols[3]], type=S), "b": pa.array(cols[4], type=I),
        })  # fmt: skip
        wholes = pa.table({"m": pa.array([w[0] for w in whole], type=I),  # noqa: F841
                           "piece": pa.array([w[1] for w in whole], type=I)})  # fmt: skip
        self._unpack_raw({str(o[3]) for o in order if o[2] == "s"})
        parts = ["select p.m, p.k, r.run_id, r.source, r.line, coalesce(r.raw, x.raw) as raw from plan p join raw_activities r "
                 "on p.kind = 's' and r.match_id = p.a and r.seq = p.b "
                 "left join raw_text x on x.match_id = r.match_id and x.seq = r.seq"]  # fmt: skip
        if self._spool_ready:
            parts.append("select p.m, p.k, s.run_id, s.source, s.line, s.raw from plan p join spool s "
                         "on p.kind = 'p' and s.piece = cast(p.a as integer) and s.pos = p.b")  # fmt: skip
            parts.append("select w.m, s.pos, s.run_id, s.source, s.line, s.raw from wholes w join spool s "
                         "on s.piece = w.piece")  # fmt: skip
        self.con.execute(
            "create or replace temp table rebuild as select row_number() over (order by m, k) as rn, * from ("
            + " union all ".join(parts) + ") order by m, k"
        )
        return int(scalar(self.con, "select count(*) from rebuild"))

    def rebuild_rows(self, batch: int = 5000) -> Any:
        """The staged records ``(m, k, run_id, source, line, raw)`` in order, a batch at a time
        (the same connection keeps writing between batches, so no result set stays open)."""
        first = 1
        while True:
            rows = self.con.execute(
                "select m, k, run_id, source, line, raw from rebuild where rn between ? and ? order by rn",
                [first, first + batch - 1],
            ).fetchall()
            if not rows:
                break
            first += batch
            yield from rows

    def delete_matches(self, match_ids: list[str]) -> None:
        """Remove every row of these matches (before they are rebuilt)."""
        self.flush()
        ids = pa.table({"match_id": pa.array(match_ids, type=S)})  # noqa: F841
        for table in MATCH_TABLES:
            self.con.execute(f"delete from {table} where match_id in (select match_id from ids)")
        for m in match_ids:
            self._run_seq.pop(m, None)

    def delete_violations(self, match_id: str) -> None:
        """A match's findings, before its replay starts over from its first event."""
        self.flush()
        self.con.execute("delete from violations where match_id = ?", [match_id])

    def replace_summary(self, match_id: str, rows: dict[str, list[tuple[Any, ...]]], from_round: int = 0) -> None:
        """Rebuild one match's summary rows (keeping the run that first loaded it); written in batches.
        ``from_round``: only its rounds from that one on changed (a match followed live: the rows of
        the rounds before it are stored as they are)."""
        self._summaries[match_id] = rows
        self._summary_from[match_id] = min(from_round, self._summary_from.get(match_id, from_round))
        if rows.get("matches"):
            row = rows["matches"][0]
            self._summary_groups.add((row[2], row[3]))
        if len(self._summaries) >= SUMMARY_BATCH:
            self.flush()

    def _flush_summaries(self) -> None:
        if not self._summaries:
            return
        summaries, self._summaries = self._summaries, {}
        since, self._summary_from = self._summary_from, {}
        ids = pa.table({"match_id": pa.array(list(summaries), type=S)})  # noqa: F841
        first = dict(self.con.execute(
            "select match_id, first_run_id from matches where match_id in (select match_id from ids)"
        ).fetchall())  # fmt: skip
        partial = {m: r for m, r in since.items() if r > 0}
        for table in SUMMARY_TABLES:
            if table in ROUND_TABLES and partial:
                for m, r in partial.items():
                    self.con.execute(f"delete from {table} where match_id = ? and round_no >= ?", [m, r])
                if len(partial) < len(summaries):
                    self.con.execute(f"delete from {table} where match_id in (select match_id from ids) "
                                     f"and match_id not in (select unnest(?::varchar[]))", [list(partial)])  # fmt: skip
                continue
            self.con.execute(f"delete from {table} where match_id in (select match_id from ids)")
        combined: dict[str, list[tuple[Any, ...]]] = {t: [] for t in SUMMARY_TABLES}
        for match_id, rows in summaries.items():
            for table in SUMMARY_TABLES:
                got = rows.get(table) or []
                if table in ROUND_TABLES and match_id in partial:
                    got = [r for r in got if r[1] is not None and r[1] >= partial[match_id]]
                if table == "matches" and got and first.get(match_id) is not None:
                    names = [n for n, _ in TABLES["matches"]]
                    row = list(got[0])
                    row[names.index("first_run_id")] = first[match_id]
                    got = [tuple(row)]
                combined[table].extend(got)
        for table, rows in combined.items():
            if rows:
                self._insert(table, rows)
