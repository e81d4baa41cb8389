"""Memory of ``kifu ingest`` as the machine sees it: every process of the run, and the whole tree.

    .venv/bin/python benchmarks/memory.py [--matches 5] [--jobs 1 2]
    .venv/bin/python benchmarks/memory.py --export [--before OLD_TREE] [--profile]

``kifu ingest`` replays in worker processes started by a forkserver, so the ingest process's own
peak RSS is not what the run costs. This starts the real command and samples ``/proc`` every
50 ms: each process of the run (found by an environment variable only this run carries, so the
forkserver, the workers and multiprocessing's resource tracker are all counted), its RSS and PSS
(``smaps_rollup``: shared pages divided among the processes sharing them, so the tree's PSS is
not inflated by the libraries the forkserver's children share). It prints, per input and
``--jobs``: the ingest process's peak RSS (``VmHWM``), the largest other process's peak RSS, and
the peak of the tree's summed RSS and summed PSS (both sampled at the same instants).

Inputs (built from the real fixtures, ``benchmarks/synth.py``): the 1,000-round match (137,126
records, ≈206 MB) and ``--matches`` relabelled copies of it (≈1 GB at 5); the Kakomimasu and
CHaser fixture folders.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.synth import long_match, relabelled, write  # noqa: E402



def _kib(pid: int, path: str, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/{path}").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _tagged(tag: bytes) -> list[int]:
    """Pids of the processes whose environment carries ``tag`` (this run's processes)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if tag in Path(f"/proc/{entry}/environ").read_bytes():
                    out.append(int(entry))
            except OSError:
                continue
    return out


@dataclass
class Run:
    wall: float = 0.0
    main_hwm: int = 0
    others_hwm: dict[int, int] = field(default_factory=dict)
    tree_rss: int = 0
    tree_pss: int = 0
    processes: int = 0


def measure(paths: list[Path], db: Path, jobs: int, interval: float = 0.05, *, command: list[str] | None = None,
            tree: Path = REPO) -> Run:  # fmt: skip
    """The memory of ``kifu ingest`` of ``paths`` (or of the kifu ``command`` given), run from the source
    tree ``tree`` (``python -m kifu.cli`` with it first on PYTHONPATH)."""
    tag = f"KIFU_MEMORY_RUN={uuid.uuid4().hex}"
    env = {**os.environ, tag.split("=")[0]: tag.split("=")[1], "PYTHONPATH": str(tree)}
    run = Run()
    t = time.perf_counter()
    argv = command or ["ingest", "--no-progress", "--jobs", str(jobs), "--db", str(db), *map(str, paths)]
    proc = subprocess.Popen([sys.executable, "-m", "kifu.cli", *argv], env=env, cwd=tree,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    seen: set[int] = set()
    while proc.poll() is None:
        pids = _tagged(tag.encode())
        seen.update(pids)
        rss = pss = 0
        for pid in pids:
            rss += _kib(pid, "status", "VmRSS:")
            pss += _kib(pid, "smaps_rollup", "Pss:")
            hwm = _kib(pid, "status", "VmHWM:")
            if pid == proc.pid:
                run.main_hwm = max(run.main_hwm, hwm)
            else:
                run.others_hwm[pid] = max(run.others_hwm.get(pid, 0), hwm)
        run.tree_rss, run.tree_pss = max(run.tree_rss, rss), max(run.tree_pss, pss)
        time.sleep(interval)
    run.wall = time.perf_counter() - t
    run.processes = len(seen)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"kifu {argv[0]} failed ({proc.returncode}): {err}")
    return run


def _vm(key: str) -> int:
    return _kib(os.getpid(), "status", key)


def export_memory(before: Path | None, profile: bool) -> None:
    """``kifu export`` of the 1,000-round match against its ingest (``--jobs 1``): the peak RSS of each, from
    this tree and (``--before DIR``) from another source tree, e.g. ``git archive OLD | tar -x -C DIR``.
    ``--profile``: the export run in this process, table by table, with the peak RSS after each table."""
    mib = 1024
    with tempfile.TemporaryDirectory(prefix="kifu-memory-") as tmp:
        tmpd = Path(tmp)
        one = write(tmpd / "long.jsonl", long_match(1000))
        db = tmpd / "long.duckdb"
        r = measure([one], db, 1)
        print(f"1,000-round match ({one.stat().st_size / 1e6:.0f} MB, {db.stat().st_size / 1e6:.0f} MB database)")
        print(f"{'run':<44}{'wall s':>8}{'peak RSS MiB':>14}")
        print(f"{'kifu ingest --jobs 1':<44}{r.wall:>8.1f}{r.main_hwm / mib:>14,.0f}", flush=True)
        for label, tree in (("kifu export (this tree)", REPO), ("kifu export (--before tree)", before)):
            if tree is None:
                continue
            lake = tmpd / f"lake-{uuid.uuid4().hex[:6]}"
            r = measure([], db, 1, command=["export", "--db", str(db), "--to", str(lake), "--no-progress"], tree=tree)
            print(f"{label:<44}{r.wall:>8.1f}{r.main_hwm / mib:>14,.0f}", flush=True)
        if profile:
            from kifu.export import export

            print("profile (this tree, in this process): table, peak RSS after it (MiB), seconds")
            marks: list[tuple[str, int, float]] = []
            t0 = time.perf_counter()
            export(db, tmpd / "lake-profile", progress=lambda table, done, total: marks.append(
                (table or "(opened)", _vm("VmHWM:"), time.perf_counter() - t0)))  # fmt: skip
            last = 0
            for table, hwm, sec in marks:
                grew = f"  +{(hwm - last) / mib:,.0f}" if hwm > last and last else ""
                print(f"  {table:<28}{hwm / mib:>8,.0f}{grew:>8}{sec:>8.1f}")
                last = hwm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=5, help="relabelled 1,000-round matches in the large input")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="--jobs values to measure")
    ap.add_argument("--export", action="store_true", help="measure kifu export of the 1,000-round match instead")
    ap.add_argument("--before", type=Path, help="with --export: also run the export of this source tree")
    ap.add_argument("--profile", action="store_true", help="with --export: the peak RSS table by table")
    args = ap.parse_args()
    if args.export:
        export_memory(args.before, args.profile)
        return
    mib = 1024
    print(f"kifu ingest, process tree memory (KIFU_MEMORY_LIMIT={os.environ.get('KIFU_MEMORY_LIMIT', 'default')}); "
          f"{os.cpu_count()} cores")  # fmt: skip
    print(f"{'input':<40}{'jobs':>5}{'wall s':>8}{'procs':>6}{'ingest peak RSS':>17}{'largest other':>15}"
          f"{'tree RSS':>10}{'tree PSS':>10}   (MiB)")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="kifu-memory-") as tmp:
        tmpd = Path(tmp)
        one = write(tmpd / "long.jsonl", long_match(1000))
        many = [one] + [write(tmpd / f"long{i}.jsonl", relabelled(one, f"synthetic-{i}", f"D-9999999{i}"))
                        for i in range(1, args.matches)]  # fmt: skip
        fixtures = REPO / "tests" / "fixtures"
        inputs = [
            (f"1,000-round match ({one.stat().st_size / 1e6:.0f} MB)", [one]),
            (f"{len(many)} × 1,000-round matches ({sum(p.stat().st_size for p in many) / 1e6:,.0f} MB)", many),
            ("Kakomimasu + CHaser fixture folders", [fixtures / "kakomimasu", fixtures / "chaser"]),
        ]
        for label, paths in inputs:
            for jobs in args.jobs:
                db = tmpd / f"m{jobs}.duckdb"
                db.unlink(missing_ok=True)
                r = measure(paths, db, jobs)
                other = max(r.others_hwm.values(), default=0)
                print(f"{label:<40}{jobs:>5}{r.wall:>8.1f}{r.processes:>6}{r.main_hwm / mib:>17,.0f}"
                      f"{other / mib:>15,.0f}{r.tree_rss / mib:>10,.0f}{r.tree_pss / mib:>10,.0f}", flush=True)  # fmt: skip
                db.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
