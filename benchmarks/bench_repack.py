"""Packing a followed match's raw lines again (``queries.rawlines.repack``, run by a compaction): memory and time.

    .venv/bin/python benchmarks/bench_repack.py [--rounds 1000] [--batch 300]

A watcher stores a match a batch at a time, so its raw lines end in many small blocks; when they are small on
average (a slow match), the compaction packs them again into full blocks.  This script makes such a database —
``kifu play`` writes a 4-bot ALGORI match of --rounds rounds, then its lines are packed in blocks of --batch
lines, as a watcher following it would store them — and packs the match again in a fresh process two ways:

* baseline: the whole match's lines read at once and packed in one go (``rawlines.lines`` then ``pack``, how
  ``repack`` worked before it streamed);
* ``rawlines.repack``: a window of old blocks at a time, the new blocks cut as they fill.

It prints each one's peak RSS (psutil, sampled every 10 ms, over the process's start-up RSS) and wall time, and
checks that both give the same blocks, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CHILD = r"""
import sys, threading, time, json, hashlib
sys.path.insert(0, {repo!r})
import duckdb, psutil
from queries import rawlines
p = psutil.Process(); peak = [0]
def sample():
    while True:
        peak[0] = max(peak[0], p.memory_info().rss); time.sleep(0.01)
con = duckdb.connect({db!r})
base = p.memory_info().rss
threading.Thread(target=sample, daemon=True).start()
t = time.perf_counter()
con.execute("begin transaction")
if {mode!r} == "baseline":
    import pyarrow as pa
    text = rawlines.lines(con, "m", 1, 2**62)
    seqs = sorted(text)
    batch = pa.table({{"match_id": pa.array(["m"] * len(seqs)), "seq": pa.array(seqs, type=pa.int64()),
                      "raw": pa.array([text[s] for s in seqs], type=pa.string())}})
    _, blocks = rawlines.pack(batch)
    del text, batch
    con.execute("delete from raw_blocks where match_id = 'm'")
    con.execute("insert into raw_blocks by name select * from blocks")
else:
    rawlines.repack(con, "m")
con.execute("commit")
wall = time.perf_counter() - t
time.sleep(0.05)
rows = con.execute("select first_seq, last_seq, seqs, lengths, data from raw_blocks order by first_seq").fetchall()
print(json.dumps({{"wall": wall, "peak": peak[0] - base, "blocks": len(rows), "layout": hashlib.md5(repr(rows).encode()).hexdigest()}}))
"""


def make_db(tmp: Path, rounds: int, batch: int) -> tuple[Path, int]:
    import duckdb
    import pyarrow as pa

    from queries import rawlines

    log = tmp / "match.jsonl"
    subprocess.run([sys.executable, "-m", "kifu.cli", "play", "--ruleset", "algori-2023/skip_bind_2", "--players", "4",
                    "--rounds", str(rounds), "--seed", "3", "--out", str(log)],
                   cwd=REPO, check=True, capture_output=True)  # fmt: skip
    lines = log.read_text(encoding="utf-8").splitlines()
    db = tmp / "k.duckdb"
    con = duckdb.connect(str(db))
    con.execute("create table raw_activities (match_id varchar, seq bigint, raw varchar)")
    con.execute("create table raw_blocks (match_id varchar, first_seq bigint, last_seq bigint, codec varchar, "
                "seqs bigint[], lengths bigint[], data blob)")  # fmt: skip
    for lo in range(0, len(lines), batch):
        part = lines[lo : lo + batch]
        table = pa.table({"match_id": pa.array(["m"] * len(part)),
                          "seq": pa.array(range(lo + 1, lo + len(part) + 1), type=pa.int64()),
                          "raw": pa.array(part, type=pa.string())})  # fmt: skip
        rows, blocks = rawlines.pack(table)  # noqa: F841 - read by name below
        con.execute("insert into raw_blocks by name select * from blocks")
        con.execute("insert into raw_activities select match_id, seq, raw from rows")
    con.close()
    return db, len(lines)


def run(db: Path, mode: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", CHILD.format(repo=str(REPO), db=str(db), mode=mode)],
                         check=True, capture_output=True, text=True).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=1000, help="rounds of the match (default: 1000)")
    ap.add_argument("--batch", type=int, default=300, help="lines a block before packing again (default: 300)")
    args = ap.parse_args()
    import shutil

    from queries import rawlines

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        t = time.perf_counter()
        db, n = make_db(tmp, args.rounds, args.batch)
        size = sum(len(x) for x in (tmp / "match.jsonl").read_bytes().splitlines())
        print(f"a {args.rounds}-round match: {n:,} lines, {size / 2**20:.0f} MiB of text, in blocks of {args.batch} "
              f"lines (made in {time.perf_counter() - t:.1f} s); blocks of {rawlines.BLOCK_LINES} lines after")  # fmt: skip
        results = {}
        for mode in ("baseline", "repack"):
            copy = tmp / f"{mode}.duckdb"
            shutil.copy(db, copy)
            results[mode] = r = run(copy, mode)
            label = "whole match at once (baseline)" if mode == "baseline" else \
                f"rawlines.repack (a window of {rawlines.REPACK_WINDOW} blocks)"  # fmt: skip
            print(f"  {label:<45} peak RSS +{r['peak'] / 2**20:6.0f} MiB   {r['wall']:5.1f} s   {r['blocks']:,} blocks")
        b, r = results["baseline"], results["repack"]
        same = b["layout"] == r["layout"]
        print(f"  repack / baseline: memory {r['peak'] / b['peak']:.2f}×, time {r['wall'] / b['wall']:.2f}×; "
              f"same blocks: {'yes' if same else 'NO'}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
