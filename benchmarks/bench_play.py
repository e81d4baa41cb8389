"""`kifu play`: how fast Kifu's referee writes a match, and how long `kifu ingest` takes to judge it.

    .venv/bin/python benchmarks/bench_play.py [--runs 3]

Two matches, each played by a fresh `kifu play` process and ingested by a fresh `kifu ingest`
(every core) into a new database:

* a 1,000-round match under the ALGORI 2023 contest profile (algori-2023/skip_bind_2), four
  built-in bots (random, greedy, stacker, random) — the official dealer kit needs about 51
  minutes of play for the same (its own 1,000-round log's timestamps); target: written in ≤ 30 s;
* a 200-round match under the JUA competition rules (jua-2016(rounds=200)), four built-in bots
  with a sloppy one (its fouls are refused and penalised, so the validator has work).

The baseline, measured in the same run: an orjson pass over the written log (parse every line
and write it out again), what any program that writes this log must at least spend. Figures:
median wall seconds of the runs (min–max), lines, lines/s, MB, × the orjson pass; the ingest's
wall seconds and × the orjson pass; the findings by family in the database.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
KIFU = [sys.executable, "-m", "kifu.cli"]

MATCHES = [
    ("ALGORI 2023, 1,000 rounds", ["--ruleset", "algori-2023/skip_bind_2", "--rounds", "1000",
                                   "--bots", "random,greedy,stacker,random"]),
    ("JUA 2016, 200 rounds", ["--ruleset", "jua-2016(rounds=200)", "--players", "4",
                              "--bots", "random,greedy,stacker,sloppy"]),
]  # fmt: skip


def timed(cmd: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=REPO)
    return time.perf_counter() - t


def orjson_pass(path: Path) -> float:
    """Parse every line and serialise it again: the floor of writing this log."""
    t = time.perf_counter()
    with open(path, "rb") as f, open(os.devnull, "wb") as out:
        for line in f:
            out.write(orjson.dumps(orjson.loads(line)))
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"kifu play benchmark — python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.runs} runs each")
    with tempfile.TemporaryDirectory() as tmp:
        for title, opts in MATCHES:
            log = Path(tmp) / "match.jsonl"
            plays = [timed([*KIFU, "play", *opts, "--seed", "1", "--out", str(log), "--no-progress"])
                     for _ in range(args.runs)]  # fmt: skip
            floors = [orjson_pass(log) for _ in range(args.runs)]
            lines = sum(1 for _ in open(log, "rb"))
            mb = log.stat().st_size / 1e6
            play, floor = statistics.median(plays), statistics.median(floors)
            db = Path(tmp) / f"{len(title)}.duckdb"
            ingest = timed([*KIFU, "ingest", str(log), "--db", str(db), "--no-progress"])
            import duckdb

            con = duckdb.connect(str(db), read_only=True)
            families = dict(con.sql("select family, count(*) from violations group by 1 order by 1").fetchall())
            ruleset, rounds = con.sql("select ruleset, rounds_played from matches").fetchall()[0]
            con.close()
            print(f"\n{title} ({ruleset}, {rounds} rounds): {lines:,} lines, {mb:.1f} MB")
            print(f"  kifu play     {play:6.2f} s  (min {min(plays):.2f}, max {max(plays):.2f})  "
                  f"{lines / play:,.0f} lines/s  {play / floor:4.1f}× the orjson pass ({floor:.2f} s)")  # fmt: skip
            print(f"  kifu ingest   {ingest:6.2f} s  {ingest / floor:4.1f}× the orjson pass;  findings by family: "
                  f"{families or 'none'}")  # fmt: skip
            log.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
