"""Kifu's performance benchmark — one command, every figure, measured in one run on this machine.

    .venv/bin/python benchmarks/run.py            (or: make bench)

1. The largest fixture log, and the same match relabelled as 10 distinct matches (10 files):
   the floor (orjson.loads per line; json.loads per line, what community tools do) and
   `kifu ingest` with validation: wall time, records/s, MB/s, peak RSS, ratio to the floor.
2. A 1,000-round match (the fixture's real rounds repeated): peak RSS of its ingest.
3. Page queries on the 10-match database: p50/p95 of the round browser (open a round, step a
   turn), the matches page and the penalties page.
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
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.synth import LARGEST, long_match, relabelled, write  # noqa: E402

INGEST = (
    "import resource, sys, time\n"
    "from loaders.pipeline import ingest, open_sources\n"
    "t = time.perf_counter()\n"
    "r = ingest(open_sources(sys.argv[2:]), sys.argv[1])\n"
    "print(time.perf_counter() - t, ([int(ln.split()[1]) for ln in open('/proc/self/status') if ln.startswith('VmHWM:')] or [resource.getrusage(resource.RUSAGE_SELF).ru_maxrss])[0], r.ingested, r.quarantined)\n"
)


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


def kifu(paths: list[Path], db: Path) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", INGEST, str(db), *map(str, paths)], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.split()  # fmt: skip
    assert int(out[3]) == 0
    return float(out[0]), int(out[1]) / 1024


def db_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + ".wal")) if p.exists())


def row(name: str, t: float, n: int, mb: float, floor_t: float, json_t: float) -> None:
    print(f"  {name:<34}{t:>8.2f}{n / t:>12,.0f}{mb / t:>8.1f}{t / floor_t:>10.2f}{t / json_t:>10.2f}")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    if not LARGEST.exists():
        sys.exit(f"{LARGEST}: not found (the fixtures live in ../shared/fixtures/algori-2023)")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{platform.platform(terse=True)}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        ten = [write(tmpd / f"match{i:02d}.jsonl", relabelled(LARGEST, f"relabelled-{i}", f"D-9{i:07d}")) for i in range(10)]
        sets = {"largest log (1 match)": [LARGEST], "10 matches (relabelled copies)": ten}
        dbs = {}
        for label, paths in sets.items():
            t_json, n, size = floor(paths, json.loads)
            t_orjson, _, _ = floor(paths, orjson.loads)
            db = tmpd / f"{len(paths)}.duckdb"
            t_kifu, rss = kifu(paths, db)
            dbs[label] = db
            mb = size / 1e6
            print(f"\n{label}: {n:,} records, {mb:.1f} MB of JSON")
            print(f"  {'pass':<34}{'seconds':>8}{'records/s':>12}{'MB/s':>8}{'× orjson':>10}{'× json':>10}")
            row("orjson.loads per line (floor)", t_orjson, n, mb, t_orjson, t_json)
            row("json.loads per line", t_json, n, mb, t_orjson, t_json)
            row("kifu ingest + validation", t_kifu, n, mb, t_orjson, t_json)
            print(f"  peak RSS of kifu ingest: {rss:,.0f} MiB")
            print(f"  database: {db_bytes(db) / 1e6:.1f} MB = {db_bytes(db) / size:.2f} × the JSON "
                  f"({db_bytes(db) / sum(p.stat().st_size for p in paths):.2f} × the files as given)")  # fmt: skip

        long_log = write(tmpd / "long.jsonl", long_match(1000))
        t_long, rss_long = kifu([long_log], tmpd / "long.duckdb")
        print(f"\n1,000-round match ({long_log.stat().st_size / 1e6:.0f} MB): ingest + validation {t_long:.1f}s, "
              f"peak RSS {rss_long:,.0f} MiB (target < 1 GiB)")  # fmt: skip

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


if __name__ == "__main__":
    main()
