"""`kifu dealer`'s start and stop: how soon it listens, how soon a match may start, how soon Ctrl-C ends it.

    .venv/bin/python benchmarks/dealer_start.py [--runs 5] [--tree PATH]

Runs the command a contestant runs, `.venv/bin/kifu dealer --room R --rounds 1 --db DB --out LOG --port P`
(with PYTHONPATH=--tree, default this tree: give another checkout to measure it the same way), --runs times,
and prints per run and as the median:

* listen — the process started → its port accepts a connection (a bot could connect);
* line — the process started → its "listening" line on stderr (``listening on`` or, in older versions,
  ``waiting for players on``);
* ready — the process started → the match could start (its watcher follows the log): the same command with
  ``--fill greedy greedy greedy greedy`` and ``--rounds 1``, up to its ``match … starts`` line;
* Ctrl-C — SIGINT sent once the dealer listens, with no player → the process gone; its exit status;
* the files left: the database and what is beside it (``DB*``), after the Ctrl-C run and after the played match.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KIFU = REPO / ".venv" / "bin" / "kifu"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def accepts(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Stderr:
    """The dealer's stderr lines, each with when it came (seconds since the start)."""

    def __init__(self, proc: subprocess.Popen[str], t0: float) -> None:
        self.lines: list[tuple[float, str]] = []
        self._t = threading.Thread(target=self._read, args=(proc, t0), daemon=True)
        self._t.start()

    def _read(self, proc: subprocess.Popen[str], t0: float) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            self.lines.append((time.perf_counter() - t0, line.rstrip("\n")))

    def first(self, *words: str) -> float | None:
        return next((t for t, line in self.lines if any(w in line for w in words)), None)

    def join(self) -> None:
        self._t.join(10)


def start(tree: Path, work: Path, *extra: str) -> tuple[subprocess.Popen[str], int, float, Path]:
    port, db = free_port(), work / "k.duckdb"
    cmd = [str(KIFU), "dealer", "--room", "R", "--rounds", "1", "--db", str(db), "--out", str(work / "m.jsonl"),
           "--port", str(port), *extra]  # fmt: skip
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=work, env={**os.environ, "PYTHONPATH": str(tree)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    return proc, port, t0, db


def left(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.glob(db.name + "*"))


def one(tree: Path, work: Path) -> dict[str, object]:
    for p in work.iterdir():
        p.unlink()
    proc, port, t0, db = start(tree, work)
    err = Stderr(proc, t0)
    listen = None
    while proc.poll() is None and time.perf_counter() - t0 < 60:
        if accepts(port):
            listen = time.perf_counter() - t0
            break
        time.sleep(0.005)
    time.sleep(1.0)  # the line, and the watcher started after listening
    t1 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(120)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    stop = time.perf_counter() - t1
    err.join()
    line = err.first("listening on", "waiting for players on")
    after_ctrl_c = left(db)
    for p in work.iterdir():
        p.unlink()
    proc, port, t0, db = start(tree, work, "--fill", "greedy", "greedy", "greedy", "greedy")
    err2 = Stderr(proc, t0)
    code2 = proc.wait(120)
    err2.join()
    return {"listen": listen, "line": line, "ready": err2.first("starts:"), "ctrl_c": stop, "code": code,
            "left_ctrl_c": after_ctrl_c, "played": code2, "left_played": left(db),
            "last": err.lines[-1][1] if err.lines else ""}  # fmt: skip


def fmt(x: object) -> str:
    return f"{x:5.2f} s" if isinstance(x, float) else "   — "


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", type=Path, default=REPO, help="the Kifu checkout to run (default: this one)")
    args = ap.parse_args()
    print(f"kifu dealer start/stop — tree {args.tree}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            r = one(args.tree.resolve(), Path(tmp))
            rows.append(r)
            print(f"  run {i + 1}: listen {fmt(r['listen'])}  line {fmt(r['line'])}  ready {fmt(r['ready'])}  "
                  f"Ctrl-C → gone {fmt(r['ctrl_c'])} (exit {r['code']})  played: exit {r['played']}")  # fmt: skip
        for key in ("listen", "line", "ready", "ctrl_c"):
            xs = [float(r[key]) for r in rows if isinstance(r[key], float)]
            if xs:
                print(f"  {key:7s} median {statistics.median(xs):.2f} s  min {min(xs):.2f} s  max {max(xs):.2f} s")
        print(f"  files beside the db after Ctrl-C: {rows[-1]['left_ctrl_c'] or 'none'}; after a played match: "
              f"{rows[-1]['left_played'] or 'none'}")  # fmt: skip
        print(f"  the Ctrl-C run's last line: {rows[-1]['last']}")
    print(f"  load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
