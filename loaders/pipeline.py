"""One ingest run: read sources, normalise, group into matches, write DuckDB rows.

Everything a run writes happens inside one DuckDB transaction: if the process dies, the
database is exactly as it was before the run.  Records that cannot be used go to
``load_issues`` with source, line and reason; everything else is ingested.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import queries
from common import __version__, settings
from common.safe import terminal
from loaders.games.uno import matches
from rules.uno.log import RecordError, dumps
from loaders.games import SKIPPED_KINDS, claimed, collectors
from loaders.core.interrupts import signals_held
from loaders.parallel.workers import ROUNDS_PER_TASK, RoundPool
from loaders.core.sources import BINARY, READ_NAMES, Record, SourceError
from loaders.core.store import Store

ISSUE_RAW_LIMIT = 65536


class Source(Protocol):
    name: str
    kind: str
    size: int
    bytes_done: int

    def records(self) -> Iterable[Record]: ...

    def describe(self) -> dict[str, Any]: ...


@dataclass
class SourceReport:
    name: str
    read: int = 0
    accepted: int = 0
    quarantined: int = 0
    games: int = 0  # records of other games than ALGORI (Kakomimasu)
    skipped: int = 0  # records recognised and skipped (nothing to load: a CHaser game index)
    size: int | None = None  # bytes of a file source (0: an empty file)


@dataclass
class RunReport:
    run_id: int
    db: str
    sources: list[SourceReport] = field(default_factory=list)
    records_read: int = 0
    ingested: int = 0
    duplicates: int = 0
    skipped_records: Counter[str] = field(default_factory=Counter)  # why -> records recognised and skipped
    quarantined: int = 0
    issues_new: int = 0
    unknown_events: Counter[str] = field(default_factory=Counter)
    matches: list[str] = field(default_factory=list)
    matches_new_events: dict[str, int] = field(default_factory=dict)
    bytes_read: int = 0
    duration_s: float = 0.0
    issue_examples: list[tuple[str, int, str]] = field(default_factory=list)
    issue_reasons: Counter[str] = field(default_factory=Counter)
    jobs: int = 1  # processes replaying rounds (1: this one)
    batches: int = 0  # batches of rounds replayed by worker processes
    replayed_again: int = 0  # of them, replayed again here from the true state (see loaders.games.uno.rounds)
    games_in_workers: int = 0  # Kakomimasu / CHaser games replayed by worker processes
    files_in_workers: int = 0  # files ingested whole by worker processes, each into a part merged here
    files_read_again: int = 0  # files a worker was given but ingested here (a match met stored or in another file)
    source_reasons: dict[str, Counter[str]] = field(default_factory=dict)  # source -> quarantine reasons
    skipped: list[str] = field(default_factory=list)  # files of the folders given that Kifu does not read
    database: str = "written"  # nothing ingested: "unchanged" (the file was left as it was) or "not made"

    @property
    def accepted(self) -> int:
        return self.ingested + self.duplicates

    @property
    def status(self) -> str:
        return "ok" if self.accepted else "empty"


ProgressFactory = Callable[[Source], Any]


def ingest(
    sources: list[Source],
    db: str | Path,
    *,
    progress: ProgressFactory | None = None,
    validate: bool = True,
    jobs: int = 1,
    rounds_per_task: int | None = None,
    ruleset: Any = None,
    memory_limit: str | None = None,
    threads: int | None = None,
) -> RunReport:
    """Ingest ``sources`` into the database file ``db`` in one transaction.

    ``jobs`` > 1 replays the rounds of each ALGORI match in that many worker processes
    (:mod:`loaders.games.uno.rounds`); the tables written are the same as with one.  With two large files or
    more, those files are ingested whole side by side by that many worker processes instead, each
    into a part merged here (:mod:`loaders.parallel.season`); a ``rounds_per_task`` given (batches of rounds:
    a test of the round-parallel path) keeps every file on the round-parallel path.  ``ruleset`` (a
    UNO profile) judges every UNO match by that profile, whatever its log names.  ``memory_limit``
    (default: the ``KIFU_MEMORY_LIMIT`` setting) and ``threads`` (default: DuckDB's) are DuckDB's
    for this run's connection (a part worker's run uses a share of the memory and one thread).
    """
    started = time.time()
    whole_files = None
    if jobs > 1 and validate and rounds_per_task is None:
        from loaders.parallel import season

        whole_files = season.plan(sources)  # None: fewer than two large files
    per_task = ROUNDS_PER_TASK if rounds_per_task is None else rounds_per_task
    pool = RoundPool(jobs, per_task) if jobs > 1 and validate and whole_files is None else None
    # checked before anything is opened (SettingError: one line)
    limit = settings.memory_limit() if memory_limit is None else memory_limit
    con = queries.connect(db)
    # DuckDB's buffer pool would otherwise grow to most of the machine's memory on large runs
    queries.set_memory_limit(con, limit)
    if threads is not None:
        con.execute(f"set threads = {max(1, int(threads))}")
    store: Store | None = None
    parts: Any = None  # loaders.parallel.season.Season: the large files' workers
    try:
        _remove_stale_parts(db)  # left by a run SIGKILLed (none can be alive: this process holds the file)
        con.execute("begin transaction")
        try:
            queries.apply_schema(con)
            run_id = int(queries.scalar(con, "select coalesce(max(run_id), 0) + 1 from load_runs"))
            report = RunReport(run_id=run_id, db=str(db), jobs=jobs if pool is not None else 1)
            store = Store(con, run_id)
            if pool is not None:
                store.settle = pool.settle  # rows the workers still make are written before any lookup
            events_before = int(queries.scalar(con, "select count(*) from events"))
            def bad(src: str, line: int, raw: Any, reason: str, refused: bool = True) -> None:
                """A game collector refused a record it had claimed: it counts as quarantined, not accepted
                (``refused=False``: it kept the record's first part and quarantines the rest)."""
                quarantine_record(store, report, src, Record(line, raw, error=reason))
                srep = report.sources[-1] if report.sources else None
                if srep is not None and srep.accepted:
                    srep.accepted -= 1 if refused else 0
                    srep.quarantined += 1

            games = collectors(store, run_id, bad, validate=validate, pool=pool)
            if whole_files is not None:
                parts = season.Season(db, sources, whole_files, ingest=ingest, jobs=jobs, validate=validate,
                                      ruleset=ruleset, memory_limit=limit, progress=progress)  # fmt: skip
                queries.set_memory_limit(con, parts.limit)  # the setting shared with the workers: flat in files
                report.jobs = jobs
                parts.start(frozenset(con.execute("select distinct dealer_code, dealer_name from matches "
                                                  "where dealer_name is not null").fetchall()))  # fmt: skip
                parts.run(store, report, lambda s: ingest_source(s, store, report, progress, validate, games, None,
                                                                  ruleset))  # fmt: skip
                report.files_in_workers, report.files_read_again = parts.merged, parts.redone
                # the workers are gone: the commit gets the run's whole setting (it writes what every part added)
                queries.set_memory_limit(con, limit)
            else:
                for source in sources:
                    ingest_source(source, store, report, progress, validate, games, pool, ruleset)
            for g in games:
                g.finish()
            final = matches.Assembler(source="", run_id=run_id, store=store, rounds=pool, ruleset=ruleset,
                                     on_match_done=lambda m: _match_done(m, store, report), validate=validate)  # fmt: skip
            final.reassemble()
            if pool is not None:
                report.batches, report.replayed_again, report.games_in_workers = pool.batches, pool.replayed_again, pool.games
            store.flush()
            alive = {m for (m,) in con.execute("select match_id from matches").fetchall()}
            report.matches = [m for m in report.matches if m in alive]
            for g in games:
                report.matches += [m for m in g.matches if m in alive and m not in report.matches]
            report.ingested = int(queries.scalar(con, "select count(*) from events")) - events_before + sum(
                g.new_records for g in games) + (parts.extra_ingested if parts is not None else 0)
            report.duplicates = max(0, sum(s.accepted for s in report.sources) - report.ingested)
            report.duration_s = time.time() - started
            store.flush()
            store.close()
            report.issues_new = store.rows_written["load_issues"] + (parts.issues_new if parts is not None else 0)
            _write_run(con, store, report, sources, started)
            con.execute("commit")
        except BaseException:
            with signals_held():  # a second Ctrl-C waits: no insert may run beside the rollback
                try:
                    if store is not None:
                        store.close(discard=True)
                    con.execute("rollback")
                except Exception:  # noqa: BLE001 - the connection may already be gone
                    pass
            raise
    finally:
        try:
            if parts is not None:
                parts.close()
            if pool is not None:
                pool.close()
        finally:
            con.close()
    return report


def _remove_stale_parts(db: str | Path) -> None:
    """The part files (:mod:`loaders.parallel.season`) of a run into ``db`` that was killed: removed."""
    from loaders.parallel.season import remove_stale

    remove_stale(db)


def ingest_source(
    source: Source, store: Store, report: RunReport, progress: ProgressFactory | None, validate: bool = True,
    games: list[Any] | None = None, pool: RoundPool | None = None, ruleset: Any = None,
) -> None:
    srep = SourceReport(source.name, size=source.size if source.kind == "file" else None)
    report.sources.append(srep)

    assembler = matches.Assembler(
        source=source.name, run_id=store.run_id, store=store,
        on_match_done=lambda m: _match_done(m, store, report), validate=validate, rounds=pool, ruleset=ruleset,
    )  # fmt: skip
    bar = progress(source) if progress else None
    last_done = 0

    def advance(done: int) -> None:
        nonlocal last_done
        if bar is not None and done > last_done:
            bar.update(done - last_done)
            last_done = done

    if bar is not None and hasattr(source, "progress"):
        source.progress = advance  # type: ignore[attr-defined]  # bytes read, even while no record comes
    source_started = time.time()
    try:
        for rec in source.records():
            srep.read += 1
            report.records_read += 1
            game, kind = claimed(rec, games)
            why_skipped = SKIPPED_KINDS.get(kind) if game is not None and kind is not None else None
            if why_skipped is not None:  # recognised, nothing to load: neither accepted nor a duplicate
                srep.skipped += 1
                report.skipped_records[why_skipped] += 1
            elif game is not None:
                srep.accepted += 1
                srep.games += 1
                game.add(kind, rec.doc, source.name, rec.line, rec.raw)
            elif rec.error is None:
                try:
                    activity = matches.read(rec)
                except RecordError as exc:
                    rec.error = str(exc)
                else:
                    srep.accepted += 1
                    assembler.add(activity, rec.line, rec.raw)
            if rec.error is not None:
                srep.quarantined += 1
                quarantine_record(store, report, source.name, rec)
            if bar is not None and srep.read % 1024 == 0:
                elapsed = time.time() - source_started
                bar.set_postfix_str(f"{srep.read:,} records, {srep.read / elapsed:,.0f} rec/s", refresh=False)
                advance(source.bytes_done)
        assembler.close()
        for g in games or ():
            g.close_source()
    finally:
        if bar is not None:
            advance(source.bytes_done)
            bar.close()
    report.bytes_read += source.size if source.kind == "file" else 0
    report.unknown_events.update(assembler.unknown)


def _match_done(m: matches.MatchBuilder, store: Store, report: RunReport) -> None:
    assert m.match_id is not None
    if m.match_id not in report.matches_new_events:  # a dict: membership in constant time
        report.matches.append(m.match_id)
    report.matches_new_events[m.match_id] = report.matches_new_events.get(m.match_id, 0) + m.new_events
    if m.new_events:
        store.replace_summary(m.match_id, matches.summary_rows(m, store.run_id))


def quarantine_record(store: Store, report: RunReport, source: str, rec: Record) -> None:
    """A ``load_issues`` row: where, why, a bounded prefix of the text and its true length.

    The same bad record (same line, reason and content) is recorded once, whatever the path
    it was read under; :meth:`Store.flush` skips rows already stored.
    """
    raw = rec.raw.encode("utf-8", "replace") if isinstance(rec.raw, str) else rec.raw
    length = rec.length if rec.length is not None else len(raw)
    reason = rec.error or "unknown"
    digest = hashlib.blake2b(raw[:ISSUE_RAW_LIMIT] + str(length).encode(), digest_size=8).hexdigest()
    report.quarantined += 1
    report.issue_reasons[reason] += 1
    report.source_reasons.setdefault(source, Counter())[reason] += 1
    if len(report.issue_examples) < 20:
        report.issue_examples.append((source, rec.line, reason))
    store.add(
        "load_issues",
        (store.run_id, source, rec.line, reason, raw[:ISSUE_RAW_LIMIT].decode("utf-8", "replace"), length, digest),
    )


def _write_run(con: Any, store: Store, report: RunReport, sources: list[Source], started: float) -> None:
    con.execute(
        """insert into load_runs values (?, to_timestamp(?), to_timestamp(?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [
            report.run_id, started, started + report.duration_s, report.duration_s, __version__,
            dumps([s.describe() for s in sources]), report.records_read, report.ingested,
            report.duplicates, report.quarantined, dumps(dict(report.unknown_events)),
            len(report.matches), report.bytes_read, report.status,
        ],
    )  # fmt: skip


def open_sources(paths: list[str], skipped: list[Path] | None = None) -> list[Source]:
    """File sources for paths, directories and globs (raises SourceError on a bad path); the files of
    the directories that Kifu does not read are appended to ``skipped``."""
    from loaders.core.sources import FileSource, expand_paths

    return [FileSource(p) for p in expand_paths(paths, skipped)]


def printable(text: Any) -> str:
    """Untrusted text for a terminal: control characters (escape sequences, line breaks) shown escaped."""
    return terminal(text)


def print_summary(report: RunReport, out: Any = None) -> None:
    """A short human summary of a run."""
    out = out or sys.stdout
    rate = report.records_read / report.duration_s if report.duration_s else 0.0
    mb = report.bytes_read / 1e6
    print(
        f"run {report.run_id}: {report.records_read:,} records from {len(report.sources)} source(s) "
        f"in {report.duration_s:.1f}s ({rate:,.0f} records/s, {mb / report.duration_s if report.duration_s else 0:.1f} MB/s)",
        file=out,
    )
    print(
        f"  new events {report.ingested:,} · already in the database {report.duplicates:,} · "
        + "".join(f"skipped {n:,} ({why}) · " for why, n in report.skipped_records.most_common())
        + f"quarantined {report.quarantined:,} · matches {len(report.matches)}",
        file=out,
    )
    if report.batches:
        print(f"  rounds replayed in {report.jobs} processes: {report.batches:,} batches"
              + (f", {report.replayed_again:,} replayed again in order" if report.replayed_again else ""), file=out)
    if report.games_in_workers:
        print(f"  games replayed in {report.jobs} processes: {report.games_in_workers:,}", file=out)
    if report.files_in_workers or report.files_read_again:
        print(f"  matches ingested in {report.jobs} processes: {report.files_in_workers:,} file(s) side by side"
              + (f", {report.files_read_again:,} read again here (a match met already stored or in another file)"
                 if report.files_read_again else ""), file=out)  # fmt: skip
    if report.unknown_events:
        kinds = ", ".join(f"{printable(k)} ×{v}" for k, v in report.unknown_events.most_common())
        print(f"  unknown event types kept raw: {kinds}", file=out)
    if report.quarantined:
        kept = report.database == "written"
        where = "see table load_issues" if kept else "not stored: nothing was ingested"
        print(f"  quarantined records ({where}):", file=out)
        for source, line, reason in report.issue_examples[:10]:
            print(f"    {printable(source)}:{line}: {printable(reason)}", file=out)
        if report.quarantined > 10:
            print(f"    … and {report.quarantined - 10:,} more", file=out)
    for s in report.sources:
        problem = source_problem(report, s)
        if problem is not None:
            said = f"nothing ingested — {printable(problem)}" if s.read and problem != BINARY else printable(problem)
            print(f"  {printable(s.name)}: {said}", file=out)
    if report.skipped:
        print(f"  {skipped_line(report.skipped)}", file=out)
    db = printable(report.db)
    said = {"unchanged": f"{db} (unchanged: nothing was ingested)",
            "not made": f"none made at {db} (nothing was ingested)"}.get(report.database, db)  # fmt: skip
    print(f"  database: {said}", file=out)


#: How the reasons of the game modules and of unreadable files begin: the file's kind was recognised, so
#: "unknown game format?" would mislead.
_KNOWN_KIND = ("Kakomimasu ", "CHaser ", "chaser-log ", "chaser-map ", "file unreadable", "the gzip stream ",
               "binary data, not a log", "MongoDB ")


def source_problem(report: RunReport, s: SourceReport) -> str | None:
    """Why nothing of the source ``s`` was ingested, in one line (None when something was): the file is empty,
    or the exact reason its records were quarantined (the most frequent one, with the others counted)."""
    if s.accepted:
        return None
    if s.skipped and s.skipped == s.read:
        return next(why for why, n in report.skipped_records.most_common())  # one kind of skip, in practice
    if not s.read:
        if s.size == 0:
            return "the file is empty"
        return "no record in it (only blank lines)" if s.size is not None else "no record in it"
    reasons = report.source_reasons.get(s.name)
    if not reasons:
        return "no record of a game Kifu knows in it (ALGORI, Kakomimasu, CHaser; unknown game format?)"
    (top, n), *rest = reasons.most_common()
    total = sum(reasons.values())
    if rest:
        text = f"{top} ({n:,} of {total:,} records; the others for {len(rest):,} other reason(s))"
    else:
        text = top if n == 1 else f"{top} ({n:,} records)"
    if not top.startswith(_KNOWN_KIND):
        text += " — unknown game format? (Kifu reads logs of ALGORI UNO, Kakomimasu and CHaser)"
    return text


def skipped_line(skipped: list[Any], shown: int = 5) -> str:
    """"skipped N file(s) Kifu does not read: a, b, … and M more" (names terminal-safe)."""
    names = ", ".join(printable(p) for p in skipped[:shown])
    more = f" … and {len(skipped) - shown:,} more" if len(skipped) > shown else ""
    return f"skipped {len(skipped):,} file(s) Kifu does not read: {names}{more} (Kifu reads {READ_NAMES})"


__all__ = ["RunReport", "SourceError", "ingest", "open_sources", "print_summary", "skipped_line",
           "source_problem"]
