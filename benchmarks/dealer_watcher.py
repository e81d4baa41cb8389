"""`kifu dealer`'s watcher alone: does it keep up with a match, and where does the time after the match go?

    .venv/bin/python benchmarks/dealer_watcher.py LOG [--rate 1500] [--profile]

LOG is a dealer log (e.g. the one `kifu dealer --fill greedy random stacker greedy --rounds 1000 --out LOG`
writes).  Its lines are appended to a new file at --rate lines a second (a fast match: about 1,500) while
:class:`loaders.live.watch.Watcher` follows it into a new database in this process, stopped as `kifu dealer`
stops its watcher (the log complete, read to its end).  Printed: the time to write the log and from its last
line to the watcher's end; every batch's time and records (a sample of them) with how many bytes the watcher
was behind; the batches' time during and after the match; each compaction's time.  --profile: cProfile of the
whole run, the top functions by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from loaders.core import feeds  # noqa: E402
from loaders.live import watch  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", type=Path)
    ap.add_argument("--rate", type=float, default=1500.0, help="lines written a second (default: %(default)s)")
    ap.add_argument("--profile", action="store_true", help="cProfile the watcher")
    args = ap.parse_args()
    lines = args.log.read_bytes().splitlines(keepends=True)
    with tempfile.TemporaryDirectory() as tmp:
        out, db = Path(tmp) / "match.jsonl", Path(tmp) / "k.duckdb"
        out.write_bytes(b"")
        done = threading.Event()
        ended: list[float] = []

        def write() -> None:
            t0 = time.monotonic()
            with open(out, "ab") as f:
                for i in range(0, len(lines), 50):
                    f.write(b"".join(lines[i : i + 50]))
                    f.flush()
                    ahead = t0 + (i + 50) / args.rate - time.monotonic()
                    if ahead > 0:
                        time.sleep(ahead)
            ended.append(time.monotonic())
            done.set()

        batches: list[tuple[float, float, int, int]] = []  # (start, seconds, records, bytes behind)
        compactions: list[float] = []
        batch, compact = watch.Watcher.batch, watch.live.compact

        def timed_batch(self: watch.Watcher, items: list[Any], **kw: Any) -> Any:
            t = time.monotonic()
            try:
                return batch(self, items, **kw)
            finally:
                batches.append((t, time.monotonic() - t, watch._records(items), self.status.behind))

        def timed_compact(*a: Any, **kw: Any) -> None:
            t = time.monotonic()
            try:
                compact(*a, **kw)
            finally:
                compactions.append(time.monotonic() - t)

        watch.Watcher.batch = timed_batch  # type: ignore[method-assign]
        watch.live.compact = timed_compact  # type: ignore[assignment]
        w = watch.Watcher(db, [feeds.follow_path(out)])
        drained = False

        def until() -> bool:  # as kifu dealer's watcher stops (kifu/dealercmd.py _follow)
            nonlocal drained
            if done.is_set() and drained and w.status.behind == 0:
                return True
            drained = done.is_set()
            return False

        prof = cProfile.Profile() if args.profile else None
        threading.Thread(target=write, daemon=True).start()
        t0 = time.monotonic()
        if prof is not None:
            prof.enable()
        w.run(until=until)
        if prof is not None:
            prof.disable()
        t1 = time.monotonic()
        end = ended[0]
        print(f"{len(lines):,} lines at {args.rate:,.0f} lines/s: written in {end - t0:.1f} s; the watcher ended "
              f"{t1 - t0:.1f} s after the start — last line → the watcher's end {t1 - end:.1f} s")  # fmt: skip
        during = [b for b in batches if b[0] < end]
        after = [b for b in batches if b[0] >= end]
        print(f"  batches during the match: {len(during)}, {sum(b[1] for b in during):.1f} s;  after its last line: "
              f"{len(after)}, {sum(b[1] for b in after):.1f} s;  compactions: "
              f"{', '.join(f'{c:.1f} s' for c in compactions) or 'none'}")  # fmt: skip
        step = max(1, len(batches) // 12)
        for k in [*range(0, len(batches), step), len(batches) - 1]:
            t, took, n, behind = batches[k]
            print(f"  batch {k + 1:4d} at {t - t0:6.1f} s: {took:5.2f} s, {n:5,} records, "
                  f"{behind / 2**20:6.1f} MiB behind")  # fmt: skip
    if prof is not None:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
