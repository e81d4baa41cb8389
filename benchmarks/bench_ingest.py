"""Ingest benchmark: Kifu against a plain JSON pass over the same dealer log, in one run.

Prints, for the largest fixture (or the files given on the command line):
  * the floor: ``json.loads`` per line and ``orjson.loads`` per line (decompression included);
  * ``kifu ingest`` into a fresh DuckDB file: wall time, records/s, MB/s (uncompressed log
    bytes), peak RSS of the ingest process, and the ratio to both floors;
  * the database size relative to the log (uncompressed and as shipped).

Usage:  .venv/bin/python benchmarks/bench_ingest.py [LOG ...]
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.run import floor as _floor  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "algori-2023"
DEFAULT = FIXTURES / "demo4_skipbind2_300.download.jsonl.gz"


def kifu_ingest(paths: list[Path], db: Path, validate: bool = True) -> tuple[float, int]:
    """Run `kifu ingest` in a child process; return wall seconds and its peak RSS (KiB)."""
    code = (
        "import resource, sys, time\n"
        "from loaders.pipeline import ingest, open_sources\n"
        "t = time.perf_counter()\n"
        "r = ingest(open_sources(sys.argv[3:]), sys.argv[1], validate=sys.argv[2] == '1')\n"
        "dt = time.perf_counter() - t\n"
        "print(dt, ([int(ln.split()[1]) for ln in open('/proc/self/status') if ln.startswith('VmHWM:')] or [resource.getrusage(resource.RUSAGE_SELF).ru_maxrss])[0], r.ingested, r.quarantined)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(db), "1" if validate else "0", *map(str, paths)],
        cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout.split()
    seconds, rss, quarantined = float(out[0]), int(out[1]), int(out[3])
    assert quarantined == 0, "benchmark input should be clean"
    return seconds, rss


def main() -> None:
    paths = [Path(p) for p in sys.argv[1:]] or [DEFAULT]
    for p in paths:
        if not p.exists():
            sys.exit(f"{p}: not found (the fixtures live in tests/fixtures/algori-2023)")
    print(f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"input: {', '.join(p.name for p in paths)}")
    t_json = t_orjson = 0.0
    n = size = 0
    for p in paths:
        dt, n1, s1 = _floor([p], json.loads)
        t_json += dt
        dt, _, _ = _floor([p], orjson.loads)
        t_orjson += dt
        n += n1
        size += s1
    shipped = sum(p.stat().st_size for p in paths)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        t_load, rss_load = kifu_ingest(paths, Path(tmp) / "load-only.duckdb", validate=False)
        t_kifu, rss = kifu_ingest(paths, db)
        db_size = db.stat().st_size + (db.with_suffix(".duckdb.wal").stat().st_size if db.with_suffix(".duckdb.wal").exists() else 0)
    mb = size / 1e6
    print(f"records: {n:,}   log bytes: {mb:.1f} MB uncompressed, {shipped / 1e6:.2f} MB as given")
    print(f"{'pass':<30}{'seconds':>9}{'records/s':>12}{'MB/s':>8}{'× json':>8}{'× orjson':>10}")
    rows = (("json.loads per line", t_json), ("orjson.loads per line", t_orjson),
            ("kifu ingest, no validation", t_load), ("kifu ingest (validated)", t_kifu))
    for name, t in rows:
        print(f"{name:<30}{t:>9.2f}{n / t:>12,.0f}{mb / t:>8.1f}{t / t_json:>8.2f}{t / t_orjson:>10.2f}")
    print(f"peak RSS: {rss_load / 1024:.0f} MiB without validation, {rss / 1024:.0f} MiB validated")
    print(f"database size: {db_size / 1e6:.1f} MB = {db_size / size:.2f} × uncompressed log, {db_size / shipped:.2f} × as given")


if __name__ == "__main__":
    main()
