"""``kifu watch``: follow sources while matches are played, ingest what they add batch by batch, and
tell each new finding the moment it is stored.

A :class:`Watcher` keeps every match it follows open in memory — the ALGORI assembler with its
replay, one per stream — so a batch costs what its new lines cost, however long the match already
is.  Each batch is one DuckDB transaction written in place inside a short window
(:class:`queries.sharing.Writer`): the ``kifu ingest`` guarantees hold batch by batch (a kill at
any moment leaves the database as it was after the last batch; what is read again is recognised
and skipped), and the dashboard reads between windows.  How and why: ``docs/live.md``.

After a restart the sources are read again from their beginning: stored lines are recognised key
by key and skipped, and a match being continued is replayed once from its stored events (as
``kifu ingest`` does for a longer copy), so nothing is stored twice and nothing is lost.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import queries
from common import __version__
from loaders.games.uno import matches
from loaders.games.uno.rows import Boards
from rules.uno.log import RecordError, dumps
from loaders.games import another_game, collectors
from queries import sharing as live
from loaders.core.feeds import Document, Lines, Restart
from loaders.pipeline import RunReport, SourceReport, ingest_source, quarantine_record
from loaders.core.sources import Record
from loaders.core.store import Store
from loaders.live import handoff

#: Records taken into one batch at the most (a backlog — a watcher started late or restarted — goes in
#: several): a batch of new lines costs about 0.2 ms a record on an idle core, so a batch holds the file
#: for about a second at the most, and a restarted watcher commits its first batch within a few seconds
#: however long its backlog (measured: docs/live.md).
MAX_BATCH = 4_000
#: A batch at most this often (seconds): at the dealer's pace a batch holds a second or so of lines, so
#: the fixed cost of a batch (opening the file, the inserts) is paid about once a second, while a
#: finding is still printed within about a second of its line.
BATCH_S = 0.5
#: A batch takes records for this long at the most (seconds; the rest goes in the next one): the file is held
#: for about this long, and a restarted watcher, however long its backlog, commits within about this long
#: once it reaches lines not stored yet.
BATCH_MAX_S = 1.0


@dataclass(frozen=True)
class Finding:
    """One new finding, as ``kifu watch`` prints it."""

    match_id: str
    round: int | None
    turn: int | None
    seq: int | None
    player: str | None
    player_name: str | None
    code: str
    family: str
    severity: str
    message: str
    expected: str | None
    actual: str | None
    game: str
    stored_at: float  # time.time() when the batch holding it committed

    def as_dict(self) -> dict[str, Any]:
        return {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.stored_at)),
                "match_id": self.match_id, "game": self.game, "round": self.round, "turn": self.turn, "seq": self.seq,
                "player": self.player, "player_name": self.player_name, "code": self.code, "family": self.family,
                "severity": self.severity, "message": self.message, "expected": self.expected,
                "actual": self.actual}  # fmt: skip


@dataclass
class Status:
    events: int = 0  # new events stored since the start (ALGORI UNO log lines)
    games: int = 0  # Kakomimasu and CHaser games stored (new, or grown) since the start
    batches: int = 0
    records: int = 0
    quarantined: int = 0
    findings: int = 0
    rate: float = 0.0  # events per second over the last few seconds
    lag_s: float | None = None  # how long the oldest line written and not stored yet has waited (0: none waits)
    behind: int = 0  # bytes written to the files followed and not read yet
    live: int = 0  # matches being played
    waiting: str | None = None  # what the watcher waits for, if anything
    problems: list[str] = field(default_factory=list)  # sources that cannot be read right now
    ingests: int = 0  # files handed over by `kifu ingest` runs (loaders.live.handoff) not read to their end yet


#: What a resume point keeps of an open match (besides its replay): what ``_resume`` would rebuild from
#: the stored events (``matches._summarise`` over them).
RESUME_FIELDS = ("rounds", "players", "finish", "current_round", "current_turn", "first_ms", "last_ms", "legacy",
                 "seen_deal", "white_wild", "replay", "ruleset")  # fmt: skip


class _Assembler(matches.Assembler):
    """An ALGORI assembler kept open across batches (its store is the current batch's).

    ``points`` (match id -> resume point, :meth:`Watcher._save_points`): a match continued after a restart
    takes its replay state from its point instead of replaying every stored event again — when the point
    is of the very events stored (their number and the newest one's text), the same rules and Kifu."""

    points: dict[str, dict[str, Any]] | None = None
    resumed_from_points = 0

    def rebind(self, store: Store) -> None:
        self.store = store
        self.emit = store.add

    def _resume(self, m: matches.MatchBuilder) -> None:
        point = (self.points or {}).get(m.match_id or "")
        state = _point_state(point, m, self) if point is not None else None
        if state is None:
            super()._resume(m)
            return
        m.resumed = True
        for k, v in state.items():
            setattr(m, k, v)
        m.seq = m.existing
        m.boards = Boards()  # as after a full resume: the next board stored is a keyframe
        m.states_from = self.store.max_state_seq(m.match_id) if m.replay is not None else None
        _Assembler.resumed_from_points += 1


def _ruleset_key(ruleset: Any, validate: bool) -> str:
    return f"{__version__}|{validate}|{getattr(ruleset, 'id', ruleset)}"


def _last_line_hash(con: Any, match_id: str, seq: int) -> str | None:
    """A digest of the stored raw line ``seq`` of ``match_id`` (None: not stored)."""
    from queries.rawlines import lines

    raw = lines(con, match_id, seq, seq).get(seq)
    return None if raw is None else hashlib.blake2b(raw.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _point_state(point: dict[str, Any], m: matches.MatchBuilder, asm: _Assembler) -> dict[str, Any] | None:
    """The match state a resume point holds, if it is of the events stored now (else None: replay them)."""
    if not asm.validate or asm.rounds is not None or m.match_id is None:
        return None
    if point.get("seq") != m.existing or point.get("rules") != _ruleset_key(asm.ruleset, asm.validate):
        return None
    asm.store.flush()
    if point.get("last") != _last_line_hash(asm.store.con, m.match_id, m.existing):
        return None
    try:
        state = pickle.loads(point["state"])
    except Exception:  # noqa: BLE001 - a point from another Kifu, or damaged: replay the stored events
        return None
    return state if isinstance(state, dict) and set(state) == set(RESUME_FIELDS) else None


class Watcher:
    """Follows ``feeds`` (:mod:`loaders.core.feeds`) into the database ``db``."""

    def __init__(self, db: str | Path, feeds: list[Any], *, ruleset: Any = None, validate: bool = True,
                 on_finding: Callable[[Finding], None] | None = None, on_note: Callable[[str], None] | None = None,
                 poll_s: float = 0.2, max_batch: int = MAX_BATCH, batch_s: float = BATCH_S,
                 batch_max_s: float = BATCH_MAX_S) -> None:  # fmt: skip
        self.db = Path(db).resolve()
        self.feeds = feeds
        self.ruleset = ruleset
        self.validate = validate
        self.on_finding = on_finding or (lambda f: None)
        self.on_note = on_note or (lambda s: None)
        self.poll_s = poll_s
        self.max_batch = max_batch
        self.batch_s = batch_s
        self._ranges: Any = None  # the integer columns' ranges, asked once (Store._range)
        self._summarised: dict[str, int] = {}  # match -> its seq when its summary rows were last written
        self.status = Status()
        self.run_id: int | None = None
        self.started = time.time()
        self._asm: dict[str, _Assembler] = {}
        self._identity: tuple[int, int] | None = None
        self._known: dict[str, set[tuple[Any, ...]]] = {}  # match -> findings already stored (not told again)
        self._report = RunReport(run_id=0, db=str(self.db))
        self._rates: list[tuple[float, int]] = []
        self._schema_ok = False
        self._live_rows: dict[str, tuple[str, int, int | None]] = {}  # ALGORI match -> (source, seq, last ms)
        self._doc_live: dict[str, str] = {}  # a game document still being played -> its source
        self._rewind_after = False
        self._ended = False  # a match ended in this batch (its log finished, or its file was replaced)
        self._finished: set[str] = set()
        self._last_logged: int | None = None
        self._names: dict[str, dict[str, str | None]] = {}  # match -> player code -> name
        self._points_path = live.resume_file(self.db)
        self._points: dict[str, dict[str, Any]] = _load_points(self._points_path) if validate else {}
        self._pending_seen: list[float] = []  # when each pending item was (at the latest) written
        self._backlog_since: float | None = None  # since when the sources hold bytes not read yet
        self._seen_open: set[str] = set()  # matches this watcher has had open (a point of one closed goes)
        self._rewound = False
        self._insist = True  # a batch waits for readers however long (run() lets it put the batch off a while)
        self._carry: list[Any] = []  # the items a batch left for the next one (it had run for batch_max_s)
        self.batch_max_s = batch_max_s
        self._stop = False
        self._writer = live.Writer(self.db, waiting=self._waiting)
        # `kifu ingest` runs into this database hand their files over (loaders.live.handoff): read here, in
        # bounded batches after the followed lines, instead of a copy swapped in that would hold every batch up
        self.inbox = handoff.Inbox(self.db, resolve_ruleset=_profile)
        self._current: handoff.Request | None = None  # the request whose item the batch is taking
        self._waiting_records = 0  # records polled and not stored yet (run() says, before it polls)
        # Batches that stored what was read since the file was last compacted.  Small batches leave it larger
        # than one ingest would (DuckDB stores each checkpoint's new rows in pieces of their own, and rewrites a
        # table's newest row group whole); it is compacted (rewritten, :func:`queries.sharing.compact`) once a
        # match ends and when the watcher stops — once per match, never per batch, and not again at the stop
        # when no batch read anything since (`kifu dealer`: the match ends, the watcher stops right after; a
        # second copy of the whole file took as long as the first, for the last batch's few bookkeeping rows).
        self._since_compact = 0

    # -- the loop

    def _waiting(self, what: str) -> None:
        self.status.waiting = what
        self.on_note(what)

    def stop(self) -> None:
        """Ask :meth:`run` to end after the batch under way (signal handlers call this)."""
        self._stop = True

    def run(self, until: Callable[[], bool] | None = None, on_tick: Callable[[Status], None] | None = None) -> None:
        """Poll and ingest until :meth:`stop` (or ``until()`` is true); then close every match still open
        (as a one-shot ingest of what was read would) and say no match is live any more."""
        with live.watching(self.db):
            try:
                pending: list[Any] = []
                last = 0.0
                polled = time.time()  # the previous poll: what the next one finds was written since
                deferred: float | None = None  # since when batches are put off for readers
                while not self._stop and not (until is not None and until()):
                    if _records(pending) < self.max_batch:  # a backlog is read as fast as it is stored, no faster
                        self._waiting_records = _records(pending)
                        got = self.poll()
                        pending += got
                        self._pending_seen += [polled] * len(got)
                        pending, self._pending_seen = self._followed_first(pending, self._pending_seen)
                        if self.status.behind and self._backlog_since is None:
                            self._backlog_since = polled
                        elif not self.status.behind:
                            self._backlog_since = None
                        polled = time.time()
                    now = time.monotonic()
                    if pending and (now - last >= self.batch_s or _records(pending) >= self.max_batch):
                        take, rest = _split(pending, self.max_batch)
                        first_seen = self._pending_seen[0]
                        self._rewound = False
                        self._insist = deferred is not None and now - deferred >= live.DEFER_MAX_S
                        try:
                            self.batch(take, bounded=True)
                        except live.Deferred:  # page runs still read: they finish first, the lines wait
                            deferred = deferred if deferred is not None else now
                            if now - deferred > 2.0:  # said as a wait for readers was said before: after 2 s
                                self.status.waiting = "page runs reading: the batch waits for them"
                            time.sleep(self.poll_s)
                        else:
                            deferred = None
                            pending = rest
                            self._pending_seen = self._pending_seen[len(self._pending_seen) - len(pending):] if pending else []
                            if self._rewound:  # the sources are read again from their start: what was read goes
                                pending, self._pending_seen, self._rewound = [], [], False
                            if self._carry:  # what the batch had no time for: first in the next one
                                pending = self._carry + pending
                                self._pending_seen = [first_seen] * len(self._carry) + self._pending_seen
                                self._carry = []
                            last = now
                    else:
                        time.sleep(self.poll_s)
                    self._writer.yield_to_readers()  # a page waits to read: let go of the file
                    self._tick()
                    if on_tick is not None:
                        on_tick(self.status)
            finally:
                try:
                    self.batch(pending if "pending" in locals() else [], final=True)
                finally:
                    self._writer.release(checkpoint=True)
                    for f in self.feeds:
                        f.close()
                    self.inbox.close()  # requests not answered: their ingests see the watcher gone and swap

    def _followed_first(self, pending: list[Any], seen: list[float]) -> tuple[list[Any], list[float]]:
        """``pending`` with the followed sources' items before those of ingests (each stream keeps its order, and
        streams are independent): a line of a match being played waits behind one batch of an ingest at most."""
        if not self.inbox.active():
            return pending, seen
        ours = [i for i, item in enumerate(pending) if not self._handed(item)]
        theirs = [i for i, item in enumerate(pending) if self._handed(item)]
        order = ours + theirs
        return [pending[i] for i in order], [seen[i] for i in order] if len(seen) == len(pending) else seen

    def _handed(self, item: Any) -> bool:
        return isinstance(item, handoff.RequestEnd) or self.inbox.request_of(getattr(item, "key", "")) is not None

    def poll(self) -> list[Any]:
        """What the feeds added, up to :attr:`max_batch` records (the rest comes next time)."""
        items: list[Any] = []
        taken = 0
        problems = []
        for f in self.feeds:
            if taken >= self.max_batch:
                break
            got = f.poll()
            items += got
            taken += sum(len(i.records) for i in got if isinstance(i, Lines))
            if getattr(f, "problem", None):
                problems.append(f.problem)
        # what ingests handed over, after the followed lines and never more than a batch waiting: the followed
        # sources are looked at every poll, and their lines go in the next batch
        items += self.inbox.poll(max(0, self.max_batch - taken - self._waiting_records))
        self.status.ingests = self.inbox.files_left()
        self.status.problems = problems
        self.status.behind = sum(f.behind() for f in self.feeds)
        return items

    def _tick(self) -> None:
        """The status's figures: events stored per second over the last 5 s (or since the start, if
        sooner), and the lag — how long the oldest line written and not stored yet has waited."""
        now = time.monotonic()
        self._rates = [(t, n) for t, n in self._rates if now - t <= RATE_S]
        span = min(RATE_S, time.time() - self.started)
        self.status.rate = sum(n for _, n in self._rates) / span if span > 0 else 0.0
        waiting = self._pending_seen[:1] + ([self._backlog_since] if self._backlog_since is not None else [])
        self.status.lag_s = max(0.0, time.time() - min(waiting)) if waiting else 0.0

    # -- one batch

    def batch(self, items: list[Any], *, final: bool = False, bounded: bool = False) -> list[Finding]:
        """Ingest ``items`` in one transaction (``final``: then close every open match); tell the new findings.

        ``bounded``: take records for :attr:`batch_max_s` at the most and leave the rest in :attr:`_carry`
        (:meth:`run` puts them first in the next batch)."""
        if not items and not final:
            return []
        if final and not items and not self._asm and self.run_id is None:
            return []
        self.status.waiting = None
        found: list[tuple[Any, ...]] = []
        with self._writer.batch(insist=self._insist or final or not bounded) as con:
            if self._identity is not None and self._writer.identity != self._identity:
                self.on_note(f"{self.db} was replaced by another Kifu run: reading the sources again from their start")
                self._rewind()
                return []
            snapshot = con.cursor()  # the database as it was before this batch: findings already known
            snapshot.execute("begin transaction")
            snapshot.execute("select count(*) from information_schema.tables").fetchall()
            con.execute("begin transaction")
            try:
                if not self._schema_ok:
                    queries.apply_schema(con)
                    con.execute("delete from live_matches")  # rows of a watcher that is gone
                    self._schema_ok = True
                if self.run_id is None:
                    self.run_id = int(queries.scalar(con, "select coalesce(max(run_id), 0) + 1 from load_runs"))
                    self._report.run_id = self.run_id
                store = Store(con, self.run_id)
                store._ranges = self._ranges
                found = self._capture(store)
                touched: dict[str, _Assembler] = {}
                ended: list[str] = []  # ingest requests whose last item this batch takes
                deadline = time.monotonic() + self.batch_max_s if bounded and not final else None
                for i, item in enumerate(items):
                    if deadline is not None and i and time.monotonic() > deadline:
                        self._carry = items[i:]  # the batch is long enough: the rest goes in the next one
                        break
                    self._current = self.inbox.request_of(getattr(item, "key", ""))
                    if isinstance(item, handoff.RequestEnd):
                        ended.append(item.request)
                        req = self.inbox.requests.get(item.request)
                        # compacted once the ingest's files are all in (once per ingest), if they added anything
                        self._ended |= req is None or bool(req.report.ingested or req.report.quarantined)
                    elif isinstance(item, Lines):
                        asm = self._assembler(item.key, item.name, store)
                        done = self._take(item, asm, store, deadline)
                        touched[item.key] = asm
                        if done < len(item.records):
                            self._carry = [Lines(item.key, item.name, item.records[done:], item.logged_ms)] + items[i + 1:]
                            break
                        if item.logged_ms is not None:
                            self._last_logged = item.logged_ms
                    elif isinstance(item, Restart):
                        asm = self._asm.pop(item.key, None)
                        self._ended |= self._current is None  # an ingest's file ended: not a match played
                        touched.pop(item.key, None)
                        if asm is not None:
                            asm.rebind(store)
                            asm.on_match_done = self._done(store, item.key)
                            asm.close()
                            if self._current is not None:
                                self._current.report.unknown_events.update(asm.unknown)
                    elif isinstance(item, Document):
                        self._document(item, store)
                self._current = None
                live_now = self._settle(touched, store, final)
                rebuilt = matches.Assembler(source="", run_id=self.run_id, store=store, validate=self.validate,
                                           ruleset=self.ruleset, on_match_done=self._done(store)).reassemble()  # fmt: skip
                if set(rebuilt) & self._open_match_ids():
                    self._rewind_after = True  # a match being followed was put together again: follow it afresh
                store.flush()
                store.close()
                self._ranges = store._ranges
                self._write_live(con, live_now, final)
                self._write_run(con, store)
                con.execute("commit")
            except BaseException:
                self._current = None
                try:
                    store.close(discard=True)  # type: ignore[possibly-undefined]
                except Exception:  # noqa: BLE001
                    pass
                try:
                    con.execute("rollback")
                finally:
                    snapshot.close()
                self._rewind()
                raise
            told = self._new_findings(snapshot, found)
            snapshot.execute("rollback")
            snapshot.close()
            self._save_points(con, final)
            self.inbox.committed(ended, self.run_id, self.db)  # after the commit: the ingests' answers
        self._identity = self._writer.identity
        self._since_compact += 1 if items else 0  # the closing batch (no item: the runs' rows) leaves the file be
        self.status.batches += 1
        stored_at = time.time()
        out = [self._finding(row, stored_at) for row in told]
        self.status.findings += len(out)
        for f in out:  # told as soon as stored: before a compaction, which takes a copy's time
            self.on_finding(f)
        if (final or self._ended) and self._since_compact:
            self._since_compact = 0
            self._writer.release(checkpoint=True)
            live.compact(self.db, self._waiting)  # the space the batches left behind given back
            self._identity = live.file_identity(self.db)
        self._ended = False
        if self._rewind_after:
            self._rewind_after = False
            self._rewind()
        return out

    def _capture(self, store: Store) -> list[tuple[Any, ...]]:
        """Every ``violations`` row the batch writes, in order."""
        rows: list[tuple[Any, ...]] = []
        add, extend, add_violation = store.add, store.extend, store.add_violation
        self._new_events = 0

        def add_(table: str, row: tuple[Any, ...]) -> None:
            if table == "violations":
                rows.append(row)
            elif table == "events":
                self._new_events += 1
                if self._current is not None:
                    self._current.new_events += 1
                    self._current.report.ingested += 1
            add(table, row)

        def extend_(table: str, batch: Any) -> None:
            if table == "violations":
                rows.extend(batch if isinstance(batch, list) else [tuple(r.values()) for r in batch.to_pylist()])
            elif table == "events":
                n = len(batch) if isinstance(batch, list) else batch.num_rows
                self._new_events += n
                if self._current is not None:
                    self._current.new_events += n
                    self._current.report.ingested += n
            extend(table, batch)

        def add_violation_(v: Any) -> None:
            rows.append((v.match_id, v.round_no, v.turn_no, v.seq, v.player, v.code, v.family, v.severity, v.ruleset,
                         v.ruleset_version, v.message, v.expected, v.actual, v.penalty_seq, store.run_id))  # fmt: skip
            add_violation(v)

        store.add, store.extend, store.add_violation = add_, extend_, add_violation_  # type: ignore[method-assign]
        return rows

    def _assembler(self, key: str, name: str, store: Store) -> _Assembler:
        asm = self._asm.get(key)
        if asm is None:
            req = self.inbox.request_of(key)
            asm = _Assembler(source=name, run_id=store.run_id, store=store, on_match_done=self._done(store, key),
                             validate=self.validate, ruleset=self.ruleset if req is None else req.ruleset)  # fmt: skip
            asm.points = self._points if req is None else None  # an ingest's file is read whole: no resume point
            self._asm[key] = asm
        asm.rebind(store)
        asm.run_id = store.run_id
        asm.on_match_done = self._done(store, key)
        return asm

    def _done(self, store: Store, key: str | None = None) -> Callable[[matches.MatchBuilder], None]:
        req = None if key is None else self.inbox.request_of(key)

        def done(m: matches.MatchBuilder) -> None:
            if m.match_id is not None and req is not None:  # as kifu ingest counts the matches of its run
                r = req.report
                if m.match_id not in r.matches_new_events:
                    r.matches.append(m.match_id)
                r.matches_new_events[m.match_id] = r.matches_new_events.get(m.match_id, 0) + m.new_events
            if m.match_id is not None and m.new_events:
                store.replace_summary(m.match_id, matches.summary_rows(m, store.run_id))
        return done

    def _take(self, item: Lines, asm: _Assembler, store: Store, deadline: float | None = None) -> int:
        """Take ``item``'s records until ``deadline`` (monotonic) passes; returns how many were taken."""
        req, one = self._current, self.inbox.file_of(item.key)
        if req is not None and one is not None:  # a file of an ingest: counted in its report, as kifu ingest counts
            report, srep = req.report, self.inbox.source_report(req, one)
        else:
            report, srep = self._report, SourceReport(item.name)
            report.sources = [srep]
        quarantined = srep.quarantined
        taken = len(item.records)
        for j, rec in enumerate(item.records):
            if deadline is not None and j and not j % 64 and time.monotonic() > deadline:
                taken = j
                break
            self.status.records += 1
            if req is not None:
                srep.read += 1
                report.records_read += 1
            self._take_record(rec, item.name, asm, store, srep, report)
        self.status.quarantined += srep.quarantined - quarantined
        return taken

    def _take_record(self, rec: Record, name: str, asm: _Assembler, store: Store, srep: SourceReport,
                     report: RunReport | None = None) -> None:  # fmt: skip
        if rec.error is None and another_game(rec.doc):
            rec.error = "not an ALGORI dealer record (a record of another game in a JSON-lines log: ingest it with kifu ingest)"
        if rec.error is None:
            try:
                asm.add(matches.read(rec), rec.line, rec.raw)
                srep.accepted += 1
                return
            except RecordError as exc:
                rec.error = str(exc)
        srep.quarantined += 1
        quarantine_record(store, report or self._report, name, rec)

    def _document(self, item: Document, store: Store) -> None:
        """A whole document ingested as ``kifu ingest`` would (a game still played stays live)."""
        req = self._current
        report = self._report if req is None else req.report

        refused_here = 0  # records the game loaders refused, said in the watcher's own count (below)

        def bad(src: str, line: int, raw: Any, reason: str, refused: bool = True) -> None:
            nonlocal refused_here
            refused_here += 1
            quarantine_record(store, report, src, Record(line, raw, error=reason))
            srep = report.sources[-1] if report.sources else None
            if req is not None and srep is not None and srep.accepted:  # as kifu ingest counts it
                srep.accepted -= 1 if refused else 0
                srep.quarantined += 1

        games = collectors(store, store.run_id, bad, validate=self.validate)
        before = len(report.matches)
        quarantined = sum(r.quarantined for r in report.sources)
        ingest_source(item.source, store, report, None, self.validate, games, None,
                      self.ruleset if req is None else req.ruleset)  # fmt: skip
        for g in games:
            g.finish()
        ids = {m for g in games for m in g.matches} | set(report.matches[before:])
        self.status.records += report.sources[-1].read if report.sources else 0
        # the reader's refusals are in the sources' counts; the loaders' (``bad``) too for an ingest's file only
        self.status.quarantined += sum(r.quarantined for r in report.sources) - quarantined + (
            refused_here if req is None else 0)
        self.status.games += sum(len(g.matches) for g in games if g.new_records)
        if req is not None:  # an ingest's file: counted in its report; not a game being played
            report.ingested += sum(g.new_records for g in games)
            report.matches += [m for g in games for m in g.matches if m not in report.matches]
            return
        self._ended |= item.final and bool(ids)
        for mid in ids:
            if item.final:
                self._doc_live.pop(mid, None)
            else:
                self._doc_live[mid] = item.source.name

    def _open_ids(self, asm: _Assembler) -> set[str]:
        return {m.match_id for g in asm.open.values() for m in g if m.match_id is not None}

    def _open_match_ids(self) -> set[str]:
        return {mid for asm in self._asm.values() for mid in self._open_ids(asm)}

    def _settle(self, touched: dict[str, _Assembler], store: Store, final: bool) -> set[str]:
        """After the batch's records: the summaries of the matches that grew, the end of those whose log
        ended (or of every one, ``final``).  Returns the ALGORI matches still being played."""
        playing: set[str] = set()
        for key, asm in list(self._asm.items()):
            asm.rebind(store)
            asm.on_match_done = self._done(store, key)
            if final:
                asm.close()
                continue
            handed = self.inbox.request_of(key) is not None  # an ingest's file: no match of it is played live
            if key not in touched:
                if not handed:
                    playing |= {m.match_id for g in asm.open.values() for m in g
                                if m.match_id is not None and m.finish is None}  # fmt: skip
                continue
            for m in [m for g in asm.open.values() for m in g]:
                if m.match_id is None or m.mode not in ("new", "anchored"):
                    continue
                if m.replay is not None:
                    m.ruleset = m.replay.ruleset
                self._names[m.match_id] = dict(m.players)
                if m.new_events and self._summarised.get(m.match_id) != m.seq:
                    prev = self._summarised.get(m.match_id)
                    changed = [r.round_no for r in m.rounds.values() if prev is None or r.last_seq > prev]
                    store.replace_summary(m.match_id, matches.summary_rows(m, store.run_id),
                                          from_round=min(changed) if prev is not None and changed else 0)  # fmt: skip
                    self._summarised[m.match_id] = m.seq
                if m.finish is not None and m.match_id not in self._finished and not handed:
                    self._finished.add(m.match_id)
                    self._ended = True
                if m.finish is None and not handed:
                    self._live_rows[m.match_id] = (asm.source, m.seq, m.last_ms)
                    playing.add(m.match_id)
        if final:
            self._asm.clear()
        return playing

    def _write_live(self, con: Any, playing: set[str], final: bool) -> None:
        con.execute("delete from live_matches")
        self.status.live = 0
        if final:
            self._doc_live.clear()
            self._live_rows.clear()
            return
        rows = []
        for mid in sorted(playing):
            source, seq, last_ms = self._live_rows.get(mid, (None, None, None))
            rows.append((mid, "algori-uno", source, self.run_id, seq, None if last_ms is None else last_ms / 1000))
        for mid, source in self._doc_live.items():
            rows.append((mid, mid.split(":", 1)[0], source, self.run_id, None, None))
        for row in rows:
            con.execute("insert or replace into live_matches values (?, ?, ?, ?, ?, to_timestamp(?)::timestamp, "
                        "current_localtimestamp())", list(row))  # fmt: skip
        self.status.live = len(rows)

    def _write_run(self, con: Any, store: Store) -> None:
        r = self._report
        added = self._new_events
        self.status.events += added
        events = self.status.events
        self._rates.append((time.monotonic(), added))
        con.execute("delete from load_runs where run_id = ?", [self.run_id])
        con.execute(
            "insert into load_runs values (?, to_timestamp(?), to_timestamp(?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [self.run_id, self.started, time.time(), time.time() - self.started, __version__,
             dumps([{"kind": "watch", "feed": getattr(f, "key", "?")} for f in self.feeds]), self.status.records,
             events, 0, self.status.quarantined, dumps(dict(r.unknown_events)),
             len(self._known), 0, "watching"],
        )  # fmt: skip

    def _new_findings(self, snapshot: Any, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The rows of ``rows`` that are new: not stored before this batch, not told before."""
        fresh = sorted({r[0] for r in rows if r[0] is not None and r[0] not in self._known})
        for mid in fresh:
            known = self._known.setdefault(mid, set())
            try:
                old = snapshot.execute("select match_id, seq, player, code, message from violations where match_id = ?",
                                       [mid]).fetchall()  # fmt: skip
            except Exception:  # noqa: BLE001 - a database without the table yet
                old = []
            known.update(old)
        out = []
        for r in rows:
            key = (r[0], r[3], r[4], r[5], r[10])
            seen = self._known.setdefault(r[0], set())
            if key in seen:
                continue
            seen.add(key)
            out.append(r)
        return out

    def _finding(self, r: tuple[Any, ...], stored_at: float) -> Finding:
        mid = str(r[0])
        game = mid.split(":", 1)[0] if mid.startswith(("kakomimasu:", "chaser:")) else "algori-uno"
        name = self._names.get(mid, {}).get(r[4]) if r[4] is not None else None
        return Finding(mid, r[1], r[2], r[3], r[4], name, str(r[5]), str(r[6]), str(r[7]), str(r[10] or ""),
                       r[11], r[12], game, stored_at)  # fmt: skip

    def _rewind(self) -> None:
        """Forget every open match and read every source again from its beginning (stored lines are skipped)."""
        self._asm.clear()
        self._live_rows.clear()
        self._carry = []
        self._rewound = True
        self._identity = None
        self._schema_ok = False
        self.run_id = None
        for f in self.feeds:
            f.rewind()
        self.inbox.rewind()

    def matches(self) -> list[str]:
        """The ids of the ALGORI UNO matches this watcher stored events of, in the order it first stored them."""
        return list(self._summarised)

    def lag_s(self) -> float | None:
        """How long the oldest line written and not stored yet has waited (the status line's "lag")."""
        return self.status.lag_s

    # -- resume points

    def _save_points(self, con: Any, final: bool) -> None:
        """After a commit: the replay state of every open match that grew, with the events it is of
        (``<db>.watch.resume``), so that a restarted watcher continues it without replaying it whole.

        A match closed (its log replaced, or the watcher stopping: closing may add findings a point does
        not know of) loses its point: continued later, it is replayed from its stored events."""
        if not self.validate:
            return
        changed = False
        if final:
            changed, self._points = bool(self._points), {}
        open_now: set[str] = set()
        for key, asm in self._asm.items():
            if self.inbox.request_of(key) is not None:
                continue  # an ingest's file: a restart does not continue it (its ingest swaps then)
            asm.points = self._points
            for g in asm.open.values():
                for m in g:
                    mid = m.match_id
                    if mid is not None:
                        open_now.add(mid)
                    if mid is None or m.mode not in ("new", "anchored") or m.seq <= 0 or m.seq < m.existing:
                        continue
                    if m.existing and not m.resumed:
                        continue  # its stored lines read again, none of its new ones yet: its point still holds
                    if m.finish is not None or type(m.replay) is not matches.MatchReplay:
                        changed |= self._points.pop(mid, None) is not None
                        continue
                    old = self._points.get(mid)
                    if old is not None and old.get("seq") == m.seq:
                        continue
                    last = _last_line_hash(con, mid, m.seq)
                    try:
                        state = pickle.dumps({k: getattr(m, k) for k in RESUME_FIELDS}, protocol=pickle.HIGHEST_PROTOCOL)
                    except Exception:  # noqa: BLE001 - a state that does not pickle: a restart replays the match
                        state = None
                    if last is None or state is None:
                        changed |= self._points.pop(mid, None) is not None
                        continue
                    self._points[mid] = {"seq": m.seq, "last": last, "rules": _ruleset_key(self.ruleset, self.validate),
                                         "state": state, "at": time.time()}  # fmt: skip
                    changed = True
        for mid in [m for m in self._points if m in self._finished or (m in self._seen_open and m not in open_now)]:
            del self._points[mid]
            changed = True
        self._seen_open |= open_now
        if len(self._points) > MAX_POINTS:  # the newest only (matches long gone leave theirs behind)
            for mid in sorted(self._points, key=lambda k: self._points[k].get("at", 0))[:-MAX_POINTS]:
                del self._points[mid]
            changed = True
        if changed:
            _store_points(self._points_path, self._points)


#: Events per second are counted over this many seconds.
RATE_S = 5.0
#: Resume points kept at the most (one per match being played).
MAX_POINTS = 64


def _load_points(path: Path) -> dict[str, dict[str, Any]]:
    """The resume points a watcher left (none when the file is not ours alone: it is unpickled)."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                return {}
            points = pickle.load(fh)
    except Exception:  # noqa: BLE001 - none, or damaged: every continued match is replayed from its events
        return {}
    return points if isinstance(points, dict) else {}


def _store_points(path: Path, points: dict[str, dict[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(points, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        path.unlink(missing_ok=True)  # a point not written is no point: a restart replays the match


def _profile(ruleset_id: str) -> Any:
    from rules.uno.profile import get

    return get(ruleset_id)


def _records(items: list[Any]) -> int:
    return sum(len(i.records) for i in items if isinstance(i, Lines))


def _split(items: list[Any], limit: int) -> tuple[list[Any], list[Any]]:
    """``items`` cut after ``limit`` records (a stream's lines split in two, in order): one batch, the rest."""
    take: list[Any] = []
    n = 0
    for i, item in enumerate(items):
        if n >= limit:
            return take, items[i:]
        if isinstance(item, Lines) and n + len(item.records) > limit:
            k = limit - n
            take.append(Lines(item.key, item.name, item.records[:k]))
            return take, [Lines(item.key, item.name, item.records[k:], item.logged_ms)] + items[i + 1:]
        take.append(item)
        if isinstance(item, Lines):
            n += len(item.records)
    return take, []
