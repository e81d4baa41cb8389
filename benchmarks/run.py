"""Kifu's performance benchmark — one command, every figure, measured in one run on this machine.

    .venv/bin/python benchmarks/run.py            (or: make bench)

1. The largest fixture log, and the same match relabelled as 10 distinct matches (10 files):
   the floor (orjson.loads per line; json.loads per line, what community tools do) and
   `kifu ingest` with validation: wall time, records/s, MB/s, peak RSS, ratio to the floor.
2. A 1,000-round match (the fixture's real rounds repeated): its orjson floor and `kifu ingest`
   with `--jobs 1` and with every core — wall time and ratio to the floor, CPU seconds of the
   ingest process, of its main thread and of its workers, peak RSS, database size — and a
   projection for 8 and 32 cores from those CPU seconds; and the storage floor: DuckDB alone
   inserting the finished tables of that match into an empty database, in the ingest's flushes
   (what no faster replay can remove with this schema); and what each target leaves, per record,
   once the ingest's start, the parse, the storage floor and the rows' Arrow conversion are paid.
3. Page queries on the 10-match database: p50/p95 of the round browser (open a round, step a
   turn), the matches page and the penalties page; then every page (its queries and its full
   server-side run) on the 1,000-round match.
4. Database size relative to the logs.
"""

from __future__ import annotations

import gzip
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.synth import LARGEST, long_match, relabelled, write  # noqa: E402
from loaders.parallel.workers import default_jobs  # noqa: E402

INGEST = (
    "import resource, sys, time\n"
    "from benchmarks.proctree import Descendants\n"
    "from loaders.pipeline import ingest, open_sources\n"
    "t, tt = time.perf_counter(), time.thread_time()\n"
    "with Descendants() as workers:\n"
    "    r = ingest(open_sources(sys.argv[3:]), sys.argv[1], jobs=int(sys.argv[2]))\n"
    "wall, main_thread = time.perf_counter() - t, time.thread_time() - tt\n"
    "me = resource.getrusage(resource.RUSAGE_SELF)\n"
    "hwm = [int(ln.split()[1]) for ln in open('/proc/self/status') if ln.startswith('VmHWM:')] or [me.ru_maxrss]\n"
    "print(wall, hwm[0], workers.peak_rss_mib * 1024, me.ru_utime + me.ru_stime, workers.cpu_seconds, r.ingested,\n"
    "      r.quarantined, r.batches, r.replayed_again, main_thread)\n"
)


@dataclass
class Run:
    wall: float  # seconds
    rss_mib: float  # peak RSS of the ingest process
    worker_rss_mib: float  # peak RSS of the largest worker process (0: none)
    cpu: float  # CPU seconds of the ingest process (all its threads)
    main_cpu: float  # CPU seconds of its main thread (reading, assembling; not the writer thread's inserts)
    worker_cpu: float  # CPU seconds of all worker processes
    batches: int
    replayed_again: int


def floor(paths: list[Path], loads) -> tuple[float, int, int]:
    start = time.perf_counter()
    n = size = 0
    for path in paths:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as f:
            for line in f:
                size += len(line)
                if line.strip():
                    loads(line)
                    n += 1
    return time.perf_counter() - start, n, size


def kifu(paths: list[Path], db: Path, jobs: int = 1) -> Run:
    out = subprocess.run([sys.executable, "-c", INGEST, str(db), str(jobs), *map(str, paths)], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.split()  # fmt: skip
    assert int(out[6]) == 0
    return Run(float(out[0]), int(out[1]) / 1024, float(out[2]) / 1024, float(out[3]), float(out[9]), float(out[4]),
               int(out[7]), int(out[8]))  # fmt: skip


def storage_floor(done: Path, empty: Path) -> tuple[float, float]:
    """(wall s, CPU s of this process) for DuckDB to insert the match tables of ``done`` into a
    new database, in flushes of the ingest's size, as one transaction (commit and checkpoint
    included) — the part of an ingest no replay speed-up can remove with this schema."""
    import duckdb

    import queries
    from common import settings
    from loaders.core.store import FLUSH_ROWS, MATCH_TABLES

    with duckdb.connect(str(done), read_only=True) as src:
        data = {t: src.sql(f"select * from {t}").to_arrow_table() for t in MATCH_TABLES}
    con = duckdb.connect(str(empty))
    queries.apply_schema(con)
    queries.set_memory_limit(con, settings.memory_limit())
    con.execute("checkpoint")
    wall, cpu = time.perf_counter(), os.times()
    con.execute("begin")
    for off in range(0, max(a.num_rows for a in data.values()), FLUSH_ROWS):
        for table, arrow in data.items():
            if off < arrow.num_rows:
                con.register("flush", arrow.slice(off, FLUSH_ROWS))
                con.execute(f"insert into {table} by name select * from flush")
                con.unregister("flush")
    con.execute("commit")
    con.execute("checkpoint")
    now = os.times()
    con.close()
    return time.perf_counter() - wall, now.user + now.system - cpu.user - cpu.system


def arrow_floor(done: Path) -> float:
    """CPU s to turn the rows of ``done``'s match tables, as Python values, into Arrow tables in
    flushes of the ingest's size (best of 3; text as UTF-8 bytes, the cheapest form) — what an
    ingest that makes its rows as Python values pays before DuckDB sees them."""
    import duckdb

    from loaders.core.store import FLUSH_ROWS, MATCH_TABLES, TABLES, arrow_table

    with duckdb.connect(str(done), read_only=True) as con:
        data = {t: con.execute(f"select {', '.join(c for c, _ in TABLES[t])} from {t}").fetchall()
                for t in MATCH_TABLES}
    data = {t: [tuple(v.encode() if type(v) is str else v for v in r) for r in rows] for t, rows in data.items()}
    best = float("inf")
    for _ in range(3):
        cpu = time.process_time()
        for table, rows in data.items():
            for off in range(0, len(rows), FLUSH_ROWS):
                arrow_table(table, rows[off : off + FLUSH_ROWS])
        best = min(best, time.process_time() - cpu)
    return best


def budget(t_floor: float, n: int, start: Run, s_cpu: float, a_cpu: float, runs: dict[int, Run]) -> None:
    """What each target leaves, in CPU seconds and µs per record, for everything but the parts any
    ingest storing these tables pays: its start (a 3-line log), the parse, the storage floor and the
    Arrow conversion of the rows."""
    fixed = t_floor + s_cpu + a_cpu
    print(f"  fixed parts: start {start.wall:.2f} s (a 3-line log), parse {t_floor:.2f} + storage floor {s_cpu:.2f}"
          f" + rows to Arrow {a_cpu:.2f} = {fixed:.2f} CPU s")  # fmt: skip
    print(f"  {'target':<22}{'wall s':>8}{'CPU s left':>12}{'µs/record left':>16}{'µs/record spent':>17}")
    for jobs, r in sorted(runs.items()):
        ratio = 6 if jobs == 1 else 3
        wall = ratio * t_floor
        left = (wall - start.wall) * jobs - fixed
        spent = r.cpu + r.worker_cpu - start.cpu - fixed
        print(f"  {f'--jobs {jobs}, ≤ {ratio} × floor':<22}{wall:>8.2f}{left:>12.2f}{left / n * 1e6:>16.1f}"
              f"{spent / n * 1e6:>17.1f}")  # fmt: skip


def db_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + ".wal")) if p.exists())


def row(name: str, t: float, n: int, mb: float, floor_t: float, json_t: float) -> None:
    print(f"  {name:<34}{t:>8.2f}{n / t:>12,.0f}{mb / t:>8.1f}{t / floor_t:>10.2f}{t / json_t:>10.2f}")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    from common.settings import SettingError, memory_limit

    if not LARGEST.exists():
        sys.exit(f"{LARGEST}: not found (the fixtures live in tests/fixtures/algori-2023)")
    try:
        memory_limit()  # the ingests below use it: a bad one ends the run here, in one line
    except SettingError as exc:
        sys.exit(f"benchmarks/run.py: {exc}")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{platform.platform(terse=True)}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        ten = [write(tmpd / f"match{i:02d}.jsonl", relabelled(LARGEST, f"relabelled-{i}", f"D-9{i:07d}")) for i in range(10)]
        sets = {"largest log (1 match)": [LARGEST], "10 matches (relabelled copies)": ten}
        dbs = {}
        cores = default_jobs()
        for label, paths in sets.items():
            t_json, n, size = floor(paths, json.loads)
            t_orjson, _, _ = floor(paths, orjson.loads)
            db = tmpd / f"{len(paths)}.duckdb"
            run = kifu(paths, db, cores)
            dbs[label] = db
            mb = size / 1e6
            print(f"\n{label}: {n:,} records, {mb:.1f} MB of JSON")
            print(f"  {'pass':<34}{'seconds':>8}{'records/s':>12}{'MB/s':>8}{'× orjson':>10}{'× json':>10}")
            row("orjson.loads per line (floor)", t_orjson, n, mb, t_orjson, t_json)
            row("json.loads per line", t_json, n, mb, t_orjson, t_json)
            row(f"kifu ingest + validation, {cores} jobs", run.wall, n, mb, t_orjson, t_json)
            print(f"  peak RSS of kifu ingest: {run.rss_mib:,.0f} MiB (largest worker {run.worker_rss_mib:,.0f} MiB)")
            print(f"  database: {db_bytes(db) / 1e6:.1f} MB = {db_bytes(db) / size:.2f} × the JSON "
                  f"({db_bytes(db) / sum(p.stat().st_size for p in paths):.2f} × the files as given)")  # fmt: skip

        long_log = write(tmpd / "long.jsonl", long_match(1000))
        t_floor, n, size = floor([long_log], orjson.loads)
        print(f"\n1,000-round match: {n:,} records, {size / 1e6:.0f} MB; orjson floor {t_floor:.2f} s")
        print(f"  {'kifu ingest + validation':<28}{'wall s':>8}{'× floor':>9}{'ingest CPU s':>13}{'main thread':>12}"
              f"{'workers CPU s':>15}"
              f"{'peak RSS MiB':>14}{'worker RSS':>12}{'DB MB':>8}{'batches':>9}{'again':>7}")  # fmt: skip
        runs = {}
        for jobs in sorted({1, cores}):
            db = tmpd / f"long{jobs}.duckdb"
            r = runs[jobs] = kifu([long_log], db, jobs)
            print(f"  {f'--jobs {jobs}':<28}{r.wall:>8.1f}{r.wall / t_floor:>9.1f}{r.cpu:>13.1f}{r.main_cpu:>12.1f}"
                  f"{r.worker_cpu:>15.1f}"
                  f"{r.rss_mib:>14,.0f}{r.worker_rss_mib:>12,.0f}{db_bytes(db) / 1e6:>8.1f}{r.batches:>9}"
                  f"{r.replayed_again:>7}")  # fmt: skip
        par = runs[max(runs)] if len(runs) > 1 else kifu([long_log], tmpd / "long2.duckdb", 2)
        long_db = tmpd / f"long{max(runs)}.duckdb"
        print("  projection from the CPU above (wall ≈ max(main thread, (ingest + workers) / cores)):")
        for p in (2, 8, 32):
            est = max(par.main_cpu, (par.cpu + par.worker_cpu) / p)
            print(f"    {p:>2} cores: {est:6.1f} s = {est / t_floor:5.1f} × floor")
        s_wall, s_cpu = storage_floor(long_db, tmpd / "storage-floor.duckdb")
        print(f"  storage floor (DuckDB alone inserting the finished tables, flushes of the ingest's size): "
              f"{s_wall:.2f} s = {s_wall / t_floor:.1f} × floor, {s_cpu:.2f} CPU s")  # fmt: skip
        short = write(tmpd / "short.jsonl", (line for _, line in zip(range(3), long_match(1))))
        start = min((kifu([short], tmpd / f"short{i}.duckdb", 1) for i in range(3)), key=lambda r: r.wall)
        budget(t_floor, n, start, s_cpu, arrow_floor(long_db), runs)

        import duckdb

        from queries import dashboard as q

        con = duckdb.connect(str(dbs["10 matches (relabelled copies)"]), read_only=True)
        matches = list(q.match_list(con)["match_id"])
        match = matches[len(matches) // 2]
        rounds = list(q.round_index(con, match)["round_no"])
        events = q.round_events(con, match, rounds[len(rounds) // 2])
        seqs = list(events["seq"])
        cases = {
            "round browser: open a round": lambda i: (q.round_info(con, match, rounds[i % len(rounds)]),
                                                      q.round_events(con, match, rounds[i % len(rounds)])),
            "round browser: step a turn": lambda i: (q.event_findings(con, match, int(seqs[i % len(seqs)])),
                                                     q.raw_event(con, match, int(seqs[i % len(seqs)]))),
            "matches page": lambda i: (q.match_list(con), q.match_summary(con, matches[i % 10]), q.score_race(con, matches[i % 10])),
            "penalties page": lambda i: q.penalties(con, matches[i % 10]),
        }  # fmt: skip
        print(f"\npage queries on the 10-match database ({len(matches)} matches), 50 runs each:")
        print(f"  {'':<34}{'p50 ms':>8}{'p95 ms':>9}")
        for name, fn in cases.items():
            fn(0)
            times = []
            for i in range(50):
                t = time.perf_counter()
                fn(i)
                times.append((time.perf_counter() - t) * 1000)
            print(f"  {name:<34}{statistics.median(times):>8.1f}{pct(times, 95):>9.1f}   (target p95 < 50 ms)")
        con.close()

        import duckdb as _duckdb

        from benchmarks.bench_pages import pages

        with _duckdb.connect(str(long_db), read_only=True) as c:
            long_match_id = c.execute("select match_id from matches").fetchone()[0]
        print(f"\nevery page on the 1,000-round match ingested above with --jobs {max(runs)}:")
        pages(long_db, long_match_id, 1000)


if __name__ == "__main__":
    main()
