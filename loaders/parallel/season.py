"""Many matches at once: the large files of a run ingested side by side, each by a worker process of its own.

``kifu ingest DIR --jobs N`` on a season (many large log files) would otherwise be bound by the ingest
process's main thread, which reads and parses every file and writes every row however many workers
replay rounds (:mod:`loaders.games.uno.rounds`).  Here each large file is ingested whole by a worker, the ordinary
one-process way (``ingest([file], part, jobs=1)``), into a private DuckDB file next to the target
(``<db>.part-<pid>-<n>.duckdb``: same folder, same disk); the ingest process, inside the run's one
transaction, merges each part as soon as it is ready, in the files' order (the result does not depend on
which worker ends first): ``ATTACH`` read-only, then per table of the part's catalog ``INSERT … BY NAME
SELECT * REPLACE (<run> AS run_id …)`` (every ``run_id`` / ``first_run_id`` / ``last_run_id`` column
carries the run's id; a part only knows its own run 1).  ``load_issues`` rows are merged as the store
writes them (a bad record already recorded, same line, reason and content, is not recorded again); a
part's ``load_runs`` and ``kifu_meta`` rows are not copied: the run writes its one ``load_runs`` row as
ever, its counts summed from the parts' reports.  At most ``N`` files are being ingested at once, and at
most ``N`` more finished parts wait on disk for their turn: results travel as files, not through pipes,
so the memory does not grow with the number of files.

A part can simply be appended only when the file, ingested alone into an empty database, gives exactly
the rows the ordinary run would have written for it — which holds when nothing of it meets anything
stored before it in the run's order.  Before a part is merged its matches are checked against the
database as it stands (the target, the parts merged so far, the files read here so far); a part that
meets anything there is discarded and its file ingested here, the ordinary way, in its turn:

- a match already in the database (a re-ingest must stay a no-op: 0 new events, the lines counted as
  already there) — a part sees an empty database and would store the match again;
- the same ALGORI dealer (code and name) in the database or in another file of the run (a match split
  across files, a copy, a tail): the ALGORI assembler puts the pieces of one dealer's matches in place
  across files and runs (:meth:`loaders.games.uno.matches.Assembler.reassemble`), which a file alone cannot do;
- rows of a table without ``match_id`` (Kakomimasu board sets, CHaser maps: replaced by name) while that
  table holds rows already: their rules of replacement are the game module's, not a plain append.

A worker first reads the first records of its file (:data:`SNIFF_RECORDS`): a dealer already stored in the
target sends the file back unread, so a re-ingest costs no replay in the workers.

Which files go to workers (:func:`plan`): files (never MongoDB or HTTP sources) whose log text is at least
:data:`PART_MIN_BYTES`, when there are two of them or more, ``jobs`` > 1 and the run validates.  Smaller
files, and every source of another kind, are ingested here in their turn, the ordinary way, while the
workers go on.  ``validate=False`` keeps the ordinary path: it is an API-only mode (the benchmarks'
"loader alone", the watcher's tests) that today runs in one process, and a part per file would make it
another thing than what it measures.

Interrupts: the run is one transaction; Ctrl-C or SIGTERM rolls it back, ends the workers at once (their
lifeline is cut, :mod:`loaders.parallel.lifeline`) and removes the part files.  A SIGKILL leaves the part files
behind (the workers end with the ingest process all the same): :func:`remove_stale`, called by every
ingest once it holds the target open for writing, removes them — no live run can own them then, since a
run holds its target's DuckDB write lock for as long as its parts exist.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import shutil
import struct
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from loaders.core.interrupts import signals_held
from loaders.parallel.lifeline import Lifeline, worker_start
from loaders.core.sources import SourceError
from loaders.parallel.workers import PRELOAD, quiet_resource_tracker

#: A file whose log text (a gzip file: the size its trailer says it unpacks to) is smaller than this is
#: ingested in the ingest process, in its turn: a part costs a DuckDB file with the whole schema, a
#: worker's start and a merge (about 0.2 s), which a file of a few rounds does not repay.
PART_MIN_BYTES = 8_000_000
#: Records a worker reads first, looking for a dealer already stored (a re-ingest: the file is sent back).
SNIFF_RECORDS = 2000
#: Rows a part worker's store buffers before a write (the ingest process's store: 20,000; see :func:`_lean_store`).
PART_FLUSH_ROWS = 5000
#: Columns holding the id of the run that wrote a row: a part's run 1 becomes the run's id.
RUN_COLUMNS = ("run_id", "first_run_id", "last_run_id")
#: Tables of a part that are not copied: the run writes its own ``load_runs`` row, ``kifu_meta`` is the target's.
NOT_COPIED = ("load_runs", "kifu_meta")
#: Merged as the store writes them (once per line, reason and content), not as a plain append.
ISSUES = "load_issues"
#: Modules the forkserver imports for the part workers, beyond those of every worker (``workers.PRELOAD``,
#: which begins with ``loaders.parallel.lifeline``): the whole loader. Its pages are then shared by the workers
#: instead of copied into each (a 1,000-round match: the process tree's peak RSS ~90 MiB lower).
PART_PRELOAD = ["loaders.parallel.season"]


# ------------------------------------------------------------------------------------------ planning


def log_bytes(source: Any) -> int:
    """How much log text a file source holds: its size, or for a gzip file the size its trailer gives
    (ISIZE: the unpacked size modulo 4 GiB — an estimate, enough to tell a large file from a small one)."""
    size = int(getattr(source, "size", 0) or 0)
    path = getattr(source, "path", None)
    if path is None or size < 18:
        return size
    try:
        with open(path, "rb") as f:
            if f.read(2) != b"\x1f\x8b":
                return size
            f.seek(-4, os.SEEK_END)
            unpacked = struct.unpack("<I", f.read(4))[0]
    except OSError:
        return size
    return max(size, unpacked)


def plan(sources: list[Any], min_bytes: int | None = None) -> list[bool] | None:
    """Per source, whether a part worker ingests it; None when fewer than two would (the ordinary path).

    Only files on disk (:class:`loaders.core.sources.FileSource` itself: a worker opens the file by its path)
    go to workers; a MongoDB collection, an HTTP response held in memory (a ``FileSource`` subclass) or any
    other reader is read here."""
    from loaders.core.sources import FileSource

    least = PART_MIN_BYTES if min_bytes is None else min_bytes
    flags = [type(s) is FileSource and log_bytes(s) >= least for s in sources]
    return flags if sum(flags) >= 2 else None


# ---------------------------------------------------------------------------------------- part files

_PART = re.compile(r"\.part-\d+-\d+\.duckdb(\.wal|\.tmp)?")


def part_path(db: Path, n: int) -> Path:
    """The n-th part of this process's run into ``db``: ``<db>.part-<pid>-<n>.duckdb``, next to it."""
    return db.with_name(f"{db.name}.part-{os.getpid()}-{n}.duckdb")


def remove_part(path: Path) -> None:
    """A part file, its write-ahead log and DuckDB's spill folder."""
    for p in (path, path.with_name(path.name + ".wal")):
        p.unlink(missing_ok=True)
    shutil.rmtree(path.with_name(path.name + ".tmp"), ignore_errors=True)


def remove_stale(db: str | Path) -> int:
    """Remove the part files of runs into ``db`` that ended without removing them (a SIGKILL).

    To be called while this process holds ``db`` open for writing: a run holds its target's write lock
    while any of its parts exists, so no live run owns what is found.  Returns how many were removed."""
    db = Path(db)
    try:
        names = os.listdir(db.parent if str(db.parent) else ".")
    except OSError:
        return 0
    found = 0
    prefix = db.name
    for name in names:
        if name.startswith(prefix) and _PART.fullmatch(name, len(prefix)):
            path = db.with_name(name)
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            found += 1
    return found


# ------------------------------------------------------------------------------------------ workers

_SHARED: Any = None  # in a worker: bytes read so far, per slot (the ingest process shows them)


def _start_worker(lifeline: int, shared: Any) -> None:
    global _SHARED
    _SHARED = shared
    worker_start(lifeline)


class _SharedBar:
    """A progress bar for :func:`loaders.pipeline.ingest` that only counts, in a slot the ingest process reads."""

    def __init__(self, slot: int) -> None:
        self.slot = slot

    def update(self, n: int) -> None:
        if _SHARED is not None:
            _SHARED[self.slot] += n

    def set_postfix_str(self, text: str, refresh: bool = False) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass
class PartResult:
    """What a worker made of one file: its run's report, and what the part holds that may meet the database."""

    report: Any = None  # loaders.pipeline.RunReport; None: not ingested (a dealer already stored)
    why: str = ""
    match_ids: list[str] = field(default_factory=list)
    groups: list[tuple[str | None, str]] = field(default_factory=list)  # ALGORI (dealer code, dealer name)
    other_tables: list[str] = field(default_factory=list)  # tables without match_id holding rows (not issues)


def _sniff(path: str, known: frozenset[tuple[str | None, str]]) -> tuple[str | None, str] | None:
    """A dealer of ``known`` met in the first records of the file, or None."""
    from loaders.core.sources import FileSource

    records = FileSource(path).records()
    try:
        for n, rec in enumerate(records):
            if n >= SNIFF_RECORDS:
                break
            doc = rec.doc if rec.error is None else None
            if type(doc) is dict and type(doc.get("dealer")) is str:
                code = doc.get("dealer_code")
                group = (code if type(code) is str else None, doc["dealer"])
                if group in known:
                    return group
    finally:
        records.close()  # type: ignore[attr-defined]
    return None


def make_part(ingest: Callable[..., Any], path: str, part: str, slot: int, validate: bool, ruleset: Any,
              memory_limit: str, known: frozenset[tuple[str | None, str]]) -> PartResult:  # fmt: skip
    """Worker side: ingest the file ``path`` alone into the new database ``part`` with ``ingest`` (the
    pipeline's ordinary path, one process, DuckDB on one thread within ``memory_limit``); what it holds
    that may meet the target."""
    import queries
    from loaders.core.sources import FileSource

    met = _sniff(path, known) if known else None
    if met is not None:
        return PartResult(why=f"dealer {met[1]!r} already stored")
    _lean_store()
    try:
        report = ingest([FileSource(path)], part, progress=lambda _source: _SharedBar(slot), jobs=1,
                        validate=validate, ruleset=ruleset, memory_limit=memory_limit, threads=1)  # fmt: skip
        out = PartResult(report=report)
        con = queries.connect(part, read_only=True)
        try:
            columns: dict[str, set[str]] = {}
            for table, column in con.execute("select table_name, column_name from information_schema.columns "
                                             "where table_schema = 'main'").fetchall():  # fmt: skip
                columns.setdefault(table, set()).add(column)
            ids: set[str] = set()
            for table, cols in sorted(columns.items()):
                if "match_id" in cols:
                    ids.update(m for (m,) in con.execute(f'select distinct match_id from "{table}"').fetchall())
                elif table not in NOT_COPIED and table != ISSUES and con.execute(
                        f'select count(*) from (select 1 from "{table}" limit 1)').fetchall()[0][0]:  # fmt: skip
                    out.other_tables.append(table)
            out.match_ids = sorted(m for m in ids if m is not None)
            if {"dealer_code", "dealer_name"} <= columns.get("matches", set()):
                out.groups = [(c, n) for c, n in con.execute(
                    "select distinct dealer_code, dealer_name from matches where dealer_name is not null").fetchall()]
        finally:
            con.close()
        return out
    except BaseException:
        remove_part(Path(part))
        raise


def _lean_store() -> None:
    """In a part worker: the store's write batches smaller (the rows of :data:`PART_FLUSH_ROWS` records, one
    batch queued). A worker has a small share of the memory and ingests one file; a 1,000-round match then
    peaks about 80 MiB lower (~290 MiB of RSS instead of ~370) in the same time. The rows are the same; only
    how ``raw_blocks`` cuts a match's lines into blocks follows the batches (its content does not)."""
    from loaders.core import store

    if isinstance(getattr(store, "FLUSH_ROWS", None), int):
        store.FLUSH_ROWS = min(store.FLUSH_ROWS, PART_FLUSH_ROWS)
    if isinstance(getattr(store, "WRITE_QUEUE", None), int):
        store.WRITE_QUEUE = 1


# ------------------------------------------------------------------------------------------ the run


def worker_memory(limit: str, jobs: int) -> str:
    """DuckDB's memory limit in each part worker and in the ingest process while they run: the run's setting
    (``KIFU_MEMORY_LIMIT``) shared by them all (``limit`` / (jobs + 1)), at least 64 MiB each."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?|\.\d+)([A-Za-z]+)", limit)
    scale = {"kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
             "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}  # fmt: skip
    if m is None or m.group(2).lower() not in scale:
        return limit
    share = float(m.group(1)) * scale[m.group(2).lower()] / (jobs + 1)
    return f"{max(64, int(share / 2**20))}MiB"


class Season:
    """The part workers of one run, and the merge of their parts into the run's transaction."""

    def __init__(self, db: str | Path, sources: list[Any], flags: list[bool], *, ingest: Callable[..., Any], jobs: int,
                 validate: bool, ruleset: Any, memory_limit: str, progress: Callable[[Any], Any] | None = None) -> None:  # fmt: skip
        self.db = Path(db)
        self.ingest = ingest  # the pipeline's one-process ingest of a file, run by each part worker
        self.sources = sources
        self.flags = flags
        self.jobs = max(1, jobs)
        self.validate = validate
        self.ruleset = ruleset
        self.limit = worker_memory(memory_limit, self.jobs)
        self.progress = progress
        self.window = 2 * self.jobs  # files given to workers and not merged yet: N being read, N waiting on disk
        self._todo = [i for i, f in enumerate(flags) if f]
        self._next = 0  # index into _todo of the next file to hand out
        self._futures: dict[int, Future[PartResult]] = {}
        self._paths: dict[int, Path] = {}
        self._slots: dict[int, int] = {}
        self._made: list[Path] = []
        self._known: frozenset[tuple[str | None, str]] = frozenset()
        self._executor: ProcessPoolExecutor | None = None
        self._lifeline: Lifeline | None = None
        self._shared: Any = None
        self._attached = 0
        # what the run's report needs beyond the parts' own reports
        self.extra_ingested = 0  # accepted by parts, not counted by the target's events (Kakomimasu, CHaser games)
        self.issues_new = 0
        self.merged = 0  # parts merged
        self.redone = 0  # files a worker was given but that were ingested here (see the module's docstring)
        self.matches = 0  # matches the merged parts brought

    # -- workers

    def _start(self) -> ProcessPoolExecutor:
        if self._executor is None:
            ctx = multiprocessing.get_context("forkserver")
            quiet_resource_tracker()
            # loaders.parallel.lifeline first: it ties the forkserver's life to this process's. The same modules as a
            # RoundPool's and more: whichever pool of this process starts the forkserver, the other's workers
            # find what they expect preloaded.
            ctx.set_forkserver_preload(list(dict.fromkeys(PRELOAD + PART_PRELOAD)))
            self._shared = ctx.Array("q", self.window, lock=False)
            self._lifeline = Lifeline()
            self._executor = ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx, initializer=_start_worker,
                                                 initargs=(self._lifeline, self._shared))  # fmt: skip
        return self._executor

    def start(self, known: frozenset[tuple[str | None, str]]) -> None:
        """Hand out the first files (``known``: the dealers the target holds; a worker that meets one in its
        file sends it back unread)."""
        self._known = known
        self._fill()

    def _fill(self) -> None:
        while self._next < len(self._todo) and len(self._futures) < self.window:
            i = self._todo[self._next]
            self._next += 1
            path = part_path(self.db, i)
            remove_part(path)
            slot = self._next % self.window
            executor = self._start()
            self._shared[slot] = 0
            self._paths[i], self._slots[i] = path, slot
            self._made.append(path)
            with signals_held():  # a submit may start a worker: not to be cut in half
                self._futures[i] = executor.submit(make_part, self.ingest, str(self.sources[i].path), str(path),
                                                   slot, self.validate, self.ruleset, self.limit, self._known)  # fmt: skip

    def _wait(self, i: int) -> PartResult:
        """The part of source ``i`` (its progress shown meanwhile); any worker's failure raised at once."""
        future = self._futures[i]
        source = self.sources[i]
        bar = self.progress(source) if self.progress is not None else None
        shown = 0
        try:
            while True:
                for j, f in list(self._futures.items()):
                    if f.done() and f.exception() is not None:
                        self._raise(j, f)
                if future.done():
                    break
                pending = [f for f in self._futures.values() if not f.done()]
                wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                if bar is not None:
                    done = min(int(self._shared[self._slots[i]]), int(source.size or 0))
                    if done > shown:
                        bar.update(done - shown)
                        shown = done
            result = future.result()
            del self._futures[i]  # (kept on a failure: close() sees what still runs)
            if bar is not None and source.size and source.size > shown:
                bar.update(source.size - shown)
            return result
        finally:
            if bar is not None:
                bar.close()

    def _raise(self, i: int, future: Future[PartResult]) -> None:
        exc = future.exception()
        assert exc is not None
        if isinstance(exc, BrokenProcessPool):
            raise SourceError(f"{self.sources[i].name}: the worker process ingesting it ended abruptly (killed, or out "
                              "of memory?); nothing was ingested") from exc  # fmt: skip
        raise exc

    # -- the run

    def run(self, store: Any, report: Any, ordinary: Callable[[Any], None]) -> None:
        """Every source in its turn: a part merged, or the source ingested here by ``ordinary(source)``."""
        for i, source in enumerate(self.sources):
            if not self.flags[i]:
                ordinary(source)
                continue
            result = self._wait(i)
            self._fill()
            path = self._paths.pop(i)
            try:
                if result.report is None or self._meets(store, result):
                    self.redone += 1
                    ordinary(source)
                else:
                    self._merge(store, report, path, result)
            finally:
                remove_part(path)  # attached, it stays readable until the connection lets go of it

    def _meets(self, store: Any, part: PartResult) -> bool:
        """Whether the part meets anything the database holds now (see the module's docstring)."""
        store.flush()
        con = store.con
        if part.match_ids:
            ids = pa.table({"match_id": pa.array(part.match_ids, type=pa.string())})  # noqa: F841 - read below
            if con.execute("select count(*) from matches where match_id in (select match_id from ids)").fetchall()[0][0]:
                return True
        if part.groups:
            if any(tuple(g) in store.groups_touched for g in part.groups):
                return True  # a dealer of a file read here in this run (its pieces may wait for the run's end)
            want = pa.table({"dealer_code": pa.array([g[0] for g in part.groups], type=pa.string()),  # noqa: F841
                             "dealer_name": pa.array([g[1] for g in part.groups], type=pa.string())})  # fmt: skip
            if con.execute("select count(*) from matches m join want w on m.dealer_code is not distinct from "
                           "w.dealer_code and m.dealer_name = w.dealer_name").fetchall()[0][0]:  # fmt: skip
                return True
        for table in part.other_tables:
            if con.execute(f'select count(*) from (select 1 from "{table}" limit 1)').fetchall()[0][0]:
                return True
        return False

    def _merge(self, store: Any, report: Any, path: Path, part: PartResult) -> None:
        """Append the part's rows to the target, inside the run's transaction, and its report to the run's."""
        con = store.con
        self._attached += 1
        alias = f"kifu_part_{self._attached}"
        if con.execute("select count(*) from duckdb_databases() where database_name = ?", [alias]).fetchall()[0][0]:
            alias += f"_{os.getpid()}"  # a target file of that very name (its catalog is named after it)
        literal = str(path).replace("'", "''")
        con.execute(f"attach '{literal}' as {alias} (read_only)")  # detached when the connection closes
        columns: dict[str, list[str]] = {}
        for table, column in con.execute(
            "select table_name, column_name from information_schema.columns where table_catalog = ? "
            "and table_schema = 'main' order by table_name, ordinal_position", [alias]
        ).fetchall():  # fmt: skip
            columns.setdefault(table, []).append(column)
        run = int(store.run_id)
        events = 0
        for table, cols in columns.items():
            if table in NOT_COPIED:
                continue
            runs = [c for c in cols if c in RUN_COLUMNS]
            select = (f"select * replace ({', '.join(f'{run} as {_ident(c)}' for c in runs)})" if runs
                      else "select *") + f" from {alias}.{_ident(table)}"  # fmt: skip
            if table == ISSUES:  # once per line, reason and content, as the store writes them
                done = con.execute(
                    f"insert into {ISSUES} by name select * from ({select}) b where not exists (select 1 from "
                    f"{ISSUES} l where l.line = b.line and l.reason = b.reason and l.raw_hash = b.raw_hash)"
                ).fetchall()  # fmt: skip
                self.issues_new += int(done[0][0]) if done else 0
                continue
            done = con.execute(f"insert into {_ident(table)} by name {select}").fetchall()
            if table == "events":
                events = int(done[0][0]) if done else 0
        # The store caches which dealers the database holds: the merged ones are among them now.
        if hasattr(store, "_known_groups"):
            store._known_groups = None
        r = part.report
        self.merged += 1
        self.matches += len(r.matches)
        self.extra_ingested += r.ingested - events
        add_report(report, r)

    def close(self) -> None:
        """End the workers and remove every part this run made: once every file is done, the idle workers
        leave; a run stopped half way (an error, Ctrl-C) cuts their lifeline first, so that a worker still
        reading a file exits at once rather than when its file is done."""
        with signals_held():
            busy = False
            for f in self._futures.values():
                busy |= not f.cancel() and not f.done()
            try:
                if busy and self._lifeline is not None:
                    self._lifeline.close()
                    self._lifeline = None
                if self._executor is not None:
                    self._executor.shutdown(wait=True, cancel_futures=True)
                    self._executor = None
                if self._lifeline is not None:
                    self._lifeline.close()
                    self._lifeline = None
            finally:
                self._futures.clear()
                for path in self._made:
                    remove_part(path)


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def add_report(report: Any, r: Any) -> None:
    """Add a part's report (one file's run) to the run's: its source, its counts, its matches and issues."""
    report.sources.extend(r.sources)
    report.records_read += r.records_read
    report.skipped_records.update(r.skipped_records)
    report.quarantined += r.quarantined
    report.unknown_events.update(r.unknown_events)
    for m in r.matches:
        if m not in report.matches_new_events:
            report.matches.append(m)
    for m, n in r.matches_new_events.items():
        report.matches_new_events[m] = report.matches_new_events.get(m, 0) + n
    report.bytes_read += r.bytes_read
    report.issue_examples.extend(r.issue_examples[: max(0, 20 - len(report.issue_examples))])
    report.issue_reasons.update(r.issue_reasons)
    for source, reasons in r.source_reasons.items():
        report.source_reasons.setdefault(source, Counter()).update(reasons)


__all__ = ["PART_MIN_BYTES", "Season", "log_bytes", "plan", "remove_stale"]
