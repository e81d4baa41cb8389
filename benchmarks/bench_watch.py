"""`kifu watch`: from a line written to its finding printed, the watcher's CPU at the dealer's pace, and
what the watched database looks like next to a one-shot `kifu ingest`.

    .venv/bin/python benchmarks/bench_watch.py [--rounds 200] [--speed 20] [--cpu-seconds 120]
                                               [--log tests/fixtures/algori-2023/demo4_skipbind2_300.download.jsonl.gz]

1. **Latency at ×speed.** The first ``--rounds`` rounds of a real dealer log are written line by line
   at their recorded pace × ``--speed`` (``kifu.replay_log.replay_to_file``, each line's write time
   kept) into a file a fresh ``kifu watch --format json`` process follows; every finding line it
   prints is timestamped as it arrives.  Latency of a finding = arrival − the write of the line it is
   about (its ``seq``: the log holds one match, so seq N is line N).  Printed: p50 / p95 / max over
   every finding of the match, and how many.  Target p95 ≤ 1 s at ×20.
2. **As fast as the writer can go.** The same lines written without pauses: the wall time until the
   watcher has stored the last one, against a one-shot `kifu ingest` of the file (the baseline, same
   run); both databases compared table by table, lineage aside; their sizes (target: within 10 %).
3. **CPU at the dealer's pace (×1).** The watcher's user+system CPU seconds over ``--cpu-seconds`` of
   real-pace writing, as a share of one core.  Target ≤ 10 %.

The browser side (line written → finding visible on an open dashboard page in chromium) is
``benchmarks/bench_live_browser.py``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(os.environ.get("KIFU_BENCH_REPO") or Path(__file__).resolve().parents[1]).resolve()  # another checkout: measured the same way
sys.path.insert(0, str(REPO))

from kifu.replay_log import replay_to_file  # noqa: E402

KIFU = [sys.executable, "-m", "kifu.cli"]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
DEFAULT_LOG = REPO / "tests" / "fixtures" / "algori-2023" / "demo4_skipbind2_300.download.jsonl.gz"


def cut_rounds(path: Path, rounds: int) -> list[bytes]:
    lines = gzip.open(path).read().splitlines() if path.suffix == ".gz" else path.read_bytes().splitlines()
    for i, line in enumerate(lines):
        d = json.loads(line)
        if d.get("event") == "finish-turn" and d.get("turn") == rounds:
            return lines[: i + 1]
    return lines


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


class Watch:
    """A ``kifu watch --format json`` process; its finding lines timestamped on arrival."""

    def __init__(self, log: Path, db: Path) -> None:
        self.proc = subprocess.Popen([*KIFU, "watch", str(log), "--db", str(db), "--format", "json", "--no-status",
                                      "--poll", "0.1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=ENV, cwd=REPO)  # fmt: skip
        self.found: list[tuple[float, dict[str, Any]]] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.found.append((time.time(), json.loads(line)))

    def cpu_s(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / tick

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=300)
        self.thread.join(timeout=10)


def events(db: Path) -> int:
    """Events stored so far, read through the watcher's gate as the dashboard reads."""
    from tests.loaders.test_watch import count_events

    return count_events(db) if db.exists() else 0


def wait_for(db: Path, n: int, timeout: float = 600) -> float:
    t = time.monotonic()
    while time.monotonic() - t < timeout:
        if db.exists() and events(db) >= n:
            return time.monotonic()
        time.sleep(0.05)
    raise SystemExit(f"the watcher did not store {n} events in {timeout} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log", type=Path, default=DEFAULT_LOG)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--speed", type=float, default=20.0)
    ap.add_argument("--cpu-seconds", type=float, default=120.0)
    ap.add_argument("--parts", default="1,2,3", help="which parts to run (4: restarts under kills; default: %(default)s)")
    ap.add_argument("--kill-every", type=float, default=10.0, help="part 4: seconds between two SIGKILLs")
    args = ap.parse_args()
    parts = {int(p) for p in args.parts.split(",") if p.strip()}
    lines = cut_rounds(args.log, args.rounds)
    tmp = Path(tempfile.mkdtemp(prefix="kifu-bench-watch-"))
    src = tmp / "recorded.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    size_mb = src.stat().st_size / 1e6
    print(f"log: {args.log.name}, first {args.rounds} rounds: {len(lines):,} lines, {size_mb:.1f} MB")

    if 4 in parts:
        kills(src, tmp, len(lines), args.kill_every)
    if 1 not in parts:
        return 0

    # 1. latency at ×speed
    out, db = tmp / "Dealer-D-00000001.log", tmp / "paced.duckdb"
    out.touch()
    written: list[float] = [0.0] * len(lines)
    w = Watch(out, db)
    time.sleep(1.0)
    t0 = time.time()
    replay_to_file(src, out, speed=args.speed, append=True,
                   on_line=lambda i, line, at: written.__setitem__(i, at))  # fmt: skip
    wall = time.time() - t0
    wait_for(db, len(lines))
    time.sleep(1.0)
    w.stop()
    lat = [at - written[f["seq"] - 1] for at, f in w.found if isinstance(f.get("seq"), int) and 0 < f["seq"] <= len(lines)]
    print(f"\n1. ×{args.speed:g} pace ({wall:.0f} s of writing): {len(w.found):,} findings printed")
    print(f"   line written → finding printed: p50 {pct(lat, .5) * 1000:.0f} ms · p95 {pct(lat, .95) * 1000:.0f} ms · "
          f"max {max(lat, default=float('nan')) * 1000:.0f} ms   (target p95 ≤ 1000 ms)")  # fmt: skip

    if 2 not in parts:
        return 0

    # 2. as fast as the writer can go, against a one-shot ingest
    out2, db2, one = tmp / "fast.log", tmp / "fast.duckdb", tmp / "one.duckdb"
    out2.touch()
    w2 = Watch(out2, db2)
    time.sleep(1.0)
    t = time.monotonic()
    replay_to_file(src, out2, speed=0, append=True)
    wrote = time.monotonic() - t
    done = wait_for(db2, len(lines)) - t
    w2.stop()
    t = time.perf_counter()
    subprocess.run([*KIFU, "ingest", str(src), "--db", str(one), "--no-progress", "--jobs", "1"], check=True,
                   capture_output=True, env=ENV, cwd=REPO)  # fmt: skip
    one_s = time.perf_counter() - t
    sys.path.insert(0, str(REPO / "tests"))
    from tests.loaders.test_watch import content

    same = content(db2) == content(one)
    a, b = db2.stat().st_size / 1e6, one.stat().st_size / 1e6
    print(f"\n2. full speed: written in {wrote:.1f} s, all stored by the watcher after {done:.1f} s; "
          f"one-shot kifu ingest --jobs 1: {one_s:.1f} s (watch / ingest {done / one_s:.2f}×)")
    print(f"   tables equal to the one-shot ingest (lineage aside): {'yes' if same else 'NO'}")
    print(f"   database size: watched {a:.1f} MB, one-shot {b:.1f} MB ({(a / b - 1) * 100:+.1f} %; target within ±10 %)")

    if 3 not in parts:
        return 0

    # 3. CPU at the dealer's pace
    out3, db3 = tmp / "real-pace.log", tmp / "real.duckdb"
    out3.touch()
    w3 = Watch(out3, db3)
    time.sleep(2.0)
    cpu0, t = w3.cpu_s(), time.monotonic()
    stop = threading.Event()

    def writer() -> None:
        try:
            replay_to_file(src, out3, speed=1.0, append=True, on_line=lambda *a: stop.is_set() and (_ for _ in ()).throw(
                KeyboardInterrupt))  # fmt: skip
        except KeyboardInterrupt:
            pass

    th = threading.Thread(target=writer, daemon=True)
    th.start()
    time.sleep(args.cpu_seconds)
    cpu = w3.cpu_s() - cpu0
    span = time.monotonic() - t
    stop.set()
    th.join(timeout=30)
    n = events(db3)
    w3.stop()
    print(f"\n3. ×1 (the dealer's pace), {span:.0f} s: {n:,} events stored, watcher CPU {cpu:.2f} s = "
          f"{cpu / span * 100:.1f} % of one core (target ≤ 10 %)")
    return 0


def kills(src: Path, tmp: Path, n_lines: int, every: float) -> None:
    """4. The whole log there before the start; the watcher SIGKILLed every ``every`` s and started again
    until it has stored every line: the events each start added (every restart should add some)."""
    log, db = tmp / "killed.log", tmp / "killed.duckdb"
    log.write_bytes(src.read_bytes())
    added: list[int] = []
    t = time.monotonic()
    while True:
        before = events(db)
        w = Watch(log, db)
        deadline = time.monotonic() + every
        while time.monotonic() < deadline and events(db) < n_lines:
            time.sleep(0.2)
        if events(db) >= n_lines:
            w.stop()
            added.append(events(db) - before)
            break
        w.proc.kill()
        w.proc.wait()
        added.append(events(db) - before)
        if len(added) >= 60:
            break
    total = time.monotonic() - t
    print(f"\n4. SIGKILL every {every:g} s, the log ({n_lines:,} lines) there from the start: {len(added)} starts, "
          f"all stored after {total:.0f} s; starts that added nothing: {sum(1 for a in added if a <= 0)}")
    print(f"   events added per start: {added}")


if __name__ == "__main__":
    raise SystemExit(main())
