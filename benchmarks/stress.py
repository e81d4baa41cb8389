"""Stress inputs: peak memory and time of ``kifu ingest`` on hostile, huge inputs (not run in CI).

    .venv/bin/python benchmarks/stress.py [--scale 1.0] [--only NAME ...]

Each input is generated into a temporary folder and ingested by a fresh process (so the peak
RSS is that run's alone); the table prints records, wall time, peak RSS and what was stored.
The inputs are the ones a reliability probe used against Kifu:

* ``tiny-no-deal``      1,000,000 tiny activities of one dealer that never deals;
* ``pnsu-after-deal``   a real round's head, then 1,000,000 ``pointed-not-say-uno`` lines;
* ``newline-gzip``      a gzip of 1 GiB of newlines (about 1 MB compressed) with one record at the end;
* ``array-tall``        a JSON array whose elements span many lines (1 MB per element);
* ``many-dealers``      100,000 dealer codes with one join-room each;
* ``array-one-line``    a 300 MB JSON array on one line (``mongoexport --jsonArray``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PROBE = REPO / "tests" / "data" / "probe_head.jsonl"

RUN = (
    "import resource, sys, time\n"
    "from loaders.pipeline import ingest, open_sources\n"
    "t = time.perf_counter()\n"
    "r = ingest(open_sources(sys.argv[2:]), sys.argv[1])\n"
    "hwm = [ln.split()[1] for ln in open('/proc/self/status') if ln.startswith('VmHWM:')]\n"
    "print(time.perf_counter() - t, hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
    " r.records_read, r.ingested,"
    " r.quarantined, len(r.matches))\n"
)


def tiny_no_deal(folder: Path, n: int) -> Path:
    path = folder / "tiny.jsonl"
    line = b'{"dealer_code":"D-1","dealer":"d","event":"mystery","player":"P-1","contents":{}}\n'
    with open(path, "wb") as f:
        for _ in range(n // 10_000):
            f.write(line * 10_000)
    return path


def pnsu_after_deal(folder: Path, n: int) -> Path:
    head = PROBE.read_bytes().splitlines()
    deal = next(i for i, ln in enumerate(head) if b'"first-player"' in ln)
    doc = json.loads(head[deal + 1])
    point = {"dealer_code": doc["dealer_code"], "dealer": doc["dealer"], "event": "pointed-not-say-uno",
             "player": doc.get("player") or "P-00000013", "turn": doc["turn"],
             "contents": {"pointer": "P-00000013", "target": "P-00000002", "have_say_uno": False}}  # fmt: skip
    line = json.dumps(point).encode() + b"\n"
    path = folder / "pnsu.jsonl"
    with open(path, "wb") as f:
        f.write(b"\n".join(head[: deal + 2]) + b"\n")
        for _ in range(n // 10_000):
            f.write(line * 10_000)
    return path


def newline_gzip(folder: Path, n: int) -> Path:
    path = folder / "newlines.jsonl.gz"
    size = max(1, n // 1_000_000) << 30  # 1 GiB at scale 1
    with gzip.open(path, "wb", compresslevel=9) as f:
        block = b"\n" * (1 << 24)
        for _ in range(size >> 24):
            f.write(block)
        f.write(PROBE.read_bytes().splitlines()[0] + b"\n")
    return path


def array_tall(folder: Path, n: int) -> Path:
    doc = {"dealer_code": "D-1", "dealer": "tall", "event": "special-logic", "turn": 1, "player": "P-1",
           "contents": {"title": "x", "pad": list(range(max(1, n // 10)))}}  # fmt: skip
    text = json.dumps(doc, indent=1)
    path = folder / "tall.json"
    with open(path, "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join([text] * 3) + "\n]\n")
    return path


def many_dealers(folder: Path, n: int) -> Path:
    path = folder / "dealers.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n // 10):
            f.write(json.dumps({"dealer_code": f"D-{i:08d}", "dealer": f"dealer {i}", "event": "join-room",
                                "player": "P-1", "contents": {"player_code": "P-1", "player_name": "x"}}) + "\n")  # fmt: skip
    return path


def array_one_line(folder: Path, n: int) -> Path:
    lines = PROBE.read_bytes().splitlines()
    path = folder / "one-line.json"
    reps = max(1, n * 300 // 1_000_000 * 1_000_000 // (sum(map(len, lines)) or 1))
    with open(path, "wb") as f:
        f.write(b"[")
        for i in range(reps):
            f.write((b"," if i else b"") + b",".join(lines))
        f.write(b"]")
    return path


INPUTS: dict[str, Callable[[Path, int], Path]] = {
    "tiny-no-deal": tiny_no_deal, "pnsu-after-deal": pnsu_after_deal, "newline-gzip": newline_gzip,
    "array-tall": array_tall, "many-dealers": many_dealers, "array-one-line": array_one_line,
}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="1.0 = one million records per input")
    ap.add_argument("--only", nargs="*", choices=list(INPUTS), help="run only these inputs")
    args = ap.parse_args()
    n = int(1_000_000 * args.scale)
    print(f"{'input':<17} {'file MB':>8} {'records':>10} {'stored':>10} {'quarant.':>8} {'matches':>7} "
          f"{'wall s':>8} {'peak RSS MiB':>12}")  # fmt: skip
    for name in args.only or INPUTS:
        with tempfile.TemporaryDirectory(prefix="kifu-stress-") as tmp:
            folder = Path(tmp)
            path = INPUTS[name](folder, n)
            size = path.stat().st_size / 1e6
            t = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", RUN, str(folder / "k.duckdb"), str(path)], cwd=REPO,
                                  capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
            wall = time.perf_counter() - t
            if done.returncode != 0:
                print(f"{name:<17} {size:>8.1f}  FAILED after {wall:.0f}s: {done.stderr.strip().splitlines()[-1]}")
                continue
            secs, rss, read, stored, quarantined, matches = done.stdout.split()
            print(f"{name:<17} {size:>8.1f} {int(read):>10,} {int(stored):>10,} {int(quarantined):>8,} "
                  f"{int(matches):>7,} {float(secs):>8.1f} {int(rss) / 1024:>12,.0f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
