"""Dashboard pages while the database is busy: a `kifu watch` following a match at ×speed, `kifu ingest` and
`kifu export` running on the same database over and over — page first renders, where the pages waited, and
what the watcher and the export went through.

    .venv/bin/python benchmarks/bench_live_load.py [--seconds 90] [--speed 20] [--rounds 200]
    PYTHONPATH=/other/checkout .venv/bin/python benchmarks/bench_live_load.py --repo /other/checkout   # another version

1. A database is made with `kifu ingest` of two recorded matches (so that pages have something to show).
2. `kifu watch LOG` starts on it; `kifu replay-log` writes the first ``--rounds`` rounds of a real dealer
   log into LOG at its recorded pace × ``--speed``.
3. Meanwhile one thread runs `kifu ingest` of five other recorded logs into the same database again and
   again (the first run adds them, the others find them stored: each still copies the database and swaps
   it in), another `kifu export --to LAKE` again and again (wall and CPU of each export are printed).
4. The pages are rendered as a visitor who opens the dashboard would (Streamlit AppTest, a fresh session
   each time: the first render), round robin over the pages, for ``--seconds``.  Every wait at the
   watcher's gate (``queries.sharing.read_gate``) is timed, with what held the file at its end: an ingest
   or a compaction (``<db>.lock`` held, a ``.ingest.tmp`` / ``.compact.tmp`` copy there) or a batch.

5. The watcher's commits are seen without reading the database: after every commit that adds to the match it
   follows it rewrites its resume points (``<db>.watch.resume``), whose stamp is looked at every 20 ms.  For
   every ingest that ran while the match was still being written, the longest gap between two such commits
   (counted from the ingest's start to its end) — how long the live view stood still because of an ingest.

Printed: page first render p50/p95/max per page and over all, gate waits p50/p95/max and the longest with
their cause, exports (wall/CPU), the watcher's commits during ingests, the watcher's notes, the machine's load
average before and after.
"""

from __future__ import annotations

import argparse
import fcntl
import gzip
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
FIX = HERE / "tests" / "fixtures" / "algori-2023"
PAGES = ["matches", "round_browser", "penalties", "player_rounds", "standings", "violations"]
OTHERS = ["misbehave_bind2_40", "deckout_hoard3_aggressor1_12", "noprogress_hoard4_3", "demo4_bind2_60",
          "misbehave_skipbind2_80"]  # fmt: skip


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def cut_rounds(path: Path, rounds: int) -> list[bytes]:
    lines = gzip.open(path).read().splitlines(keepends=True)
    for i, line in enumerate(lines):
        d = json.loads(line)
        if d.get("event") == "finish-turn" and d.get("turn") == rounds:
            return lines[: i + 1]
    return lines


def lock_held(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
    except OSError:
        return False
    return False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=90.0)
    ap.add_argument("--speed", default="20")
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--repo", type=Path, default=HERE, help="the Kifu checkout to measure (default: this one)")
    args = ap.parse_args()
    repo = args.repo.resolve()
    sys.path.insert(0, str(repo))
    env = {**os.environ, "PYTHONPATH": str(repo)}
    kifu = [sys.executable, "-m", "kifu.cli"]
    load_before = os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="kifu-load-"))
    db, log, lake = tmp / "kifu.duckdb", tmp / "Dealer 1-D-00000001.log", tmp / "lake"
    src = tmp / "recorded.jsonl"
    src.write_bytes(b"".join(cut_rounds(FIX / "demo4_skipbind2_300.download.jsonl.gz", args.rounds)))
    subprocess.run([*kifu, "ingest", str(FIX / "misbehave_skipbind2_80.download.jsonl.gz"),
                    str(FIX / "demo4_bind2_60.download.jsonl.gz"), "--db", str(db)], env=env, cwd=repo, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    others = tmp / "others"
    others.mkdir()
    for name in OTHERS:
        (others / f"{name}.jsonl").write_bytes(gzip.open(FIX / f"{name}.stored.jsonl.gz").read())
    log.touch()
    err = open(tmp / "watch.err", "wb")  # noqa: SIM115
    watcher = subprocess.Popen([*kifu, "watch", str(log), "--db", str(db), "--format", "json"], env=env, cwd=repo,
                               stdout=subprocess.DEVNULL, stderr=err)  # fmt: skip
    from queries import sharing as live

    while not live.watcher_present(db):
        time.sleep(0.05)
    replay = subprocess.Popen([*kifu, "replay-log", str(src), "--to", str(log), "--speed", args.speed, "--no-progress"],
                              env=env, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    stop = threading.Event()
    exports: list[tuple[float, float, int]] = []
    ingests: list[tuple[float, int]] = []
    spans: list[tuple[float, float]] = []  # (start, end) of every ingest, monotonic
    commits: list[float] = []  # when the watcher committed lines of the followed match (its resume points rewritten)
    replay_end: list[float] = []

    def loop(cmd: list[str], out: list[Any], cpu: bool) -> None:
        while not stop.is_set():
            t = time.monotonic()
            child = subprocess.Popen(cmd, env=env, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time
            child.returncode = os.waitstatus_to_exitcode(status)
            wall = time.monotonic() - t
            used = usage.ru_utime + usage.ru_stime
            out.append((wall, used, child.returncode) if cpu else (wall, child.returncode))
            if not cpu:
                spans.append((t, t + wall))

    def commits_seen() -> None:
        resume, last = db.with_name(db.name + ".watch.resume"), None
        while not stop.is_set():
            try:
                st = os.stat(resume)
                stamp: Any = (st.st_ino, st.st_mtime_ns, st.st_size)
            except OSError:
                stamp = None
            now = time.monotonic()
            if stamp is not None and stamp != last:
                commits.append(now)
            last = stamp
            if not replay_end and replay.poll() is not None:
                replay_end.append(now)
            time.sleep(0.02)

    threads = [threading.Thread(target=loop, args=([*kifu, "ingest", str(others), "--db", str(db)], ingests, False),
                                daemon=True),
               threading.Thread(target=loop, args=([*kifu, "export", "--db", str(db), "--to", str(lake),
                                                    "--no-progress"], exports, True), daemon=True)]  # fmt: skip
    threads.append(threading.Thread(target=commits_seen, daemon=True))
    for t in threads:
        t.start()

    waits: list[tuple[float, str]] = []
    real_gate = live.read_gate

    @contextmanager
    def timed_gate(path: Any, *a: Any, **kw: Any) -> Any:
        t = time.monotonic()
        with real_gate(path, *a, **kw) as there:
            waited = time.monotonic() - t
            p = Path(path)
            cause = ("compaction" if p.with_name(p.name + ".compact.tmp").exists() else
                     "ingest" if p.with_name(p.name + ".ingest.tmp").exists() else
                     "lock" if lock_held(p.with_name(p.name + ".lock")) else "batch")  # fmt: skip
            waits.append((waited, cause))
            yield there

    live.read_gate = timed_gate  # type: ignore[assignment]
    os.environ["KIFU_DB"] = str(db)
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage())
    from streamlit.testing.v1 import AppTest

    renders: dict[str, list[float]] = {p: [] for p in PAGES}
    problems: list[str] = []
    started = time.monotonic()
    i = 0
    while time.monotonic() - started < args.seconds:
        page = PAGES[i % len(PAGES)]
        i += 1
        at = AppTest.from_file(str(repo / "app" / "streamlit_app.py"), default_timeout=180)
        t = time.monotonic()
        at.run()  # the home page (Matches): a new visitor's first render
        renders["matches"].append(time.monotonic() - t)
        if page != "matches":
            t = time.monotonic()
            at.switch_page(f"app_pages/{page}.py").run()
            renders[page].append(time.monotonic() - t)
        problems += [f"{page}: {str(e.value)[:120]}" for e in at.exception]
        problems += [f"{page}: {str(w.value)[:120]}" for w in at.warning if "updated" in str(w.value)]
    stop.set()
    replay.terminate()
    for t in threads:
        t.join(300)
    watcher.terminate()
    watcher.wait(120)
    err.close()
    load_after = os.getloadavg()
    allr = [x for v in renders.values() for x in v]
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} ({os.cpu_count()} cores)")
    print(f"code: {repo}; watcher on a {args.rounds}-round match at ×{args.speed}; {len(ingests)} ingests, "
          f"{len(exports)} exports meanwhile")  # fmt: skip
    print("page first render (AppTest, fresh session)   runs   p50 s   p95 s   max s")
    for page, v in renders.items():
        if v:
            print(f"  {page:<42}{len(v):>5}{pct(v, .5):>8.2f}{pct(v, .95):>8.2f}{max(v):>8.2f}")
    print(f"  {'all':<42}{len(allr):>5}{pct(allr, .5):>8.2f}{pct(allr, .95):>8.2f}{max(allr):>8.2f}")
    w = [x for x, _ in waits]
    print(f"gate waits: {len(w)}, p50 {pct(w, .5):.3f} s, p95 {pct(w, .95):.3f} s, max {max(w, default=0):.3f} s")
    by: dict[str, list[float]] = {}
    for x, c in waits:
        if x > 0.2:
            by.setdefault(c, []).append(x)
    for c, v in sorted(by.items()):
        print(f"  waits over 0.2 s ending while {c}: {len(v)}, total {sum(v):.1f} s, max {max(v):.2f} s")
    if exports:
        print(f"exports: {len(exports)}, wall p50 {statistics.median(e[0] for e in exports):.1f} s, "
              f"CPU p50 {statistics.median(e[1] for e in exports):.1f} s, failed {sum(1 for e in exports if e[2])}")
    if ingests:
        print(f"ingests: {len(ingests)}, wall p50 {statistics.median(e[0] for e in ingests):.1f} s, "
              f"failed {sum(1 for e in ingests if e[1])}")
    written_until = replay_end[0] if replay_end else time.monotonic()
    gaps = []  # per ingest run, while the match was being written: its longest stretch without a watcher commit
    written_from = commits[0] if commits else written_until  # the replay's first lines stored: the match is on
    for s0, s1 in spans:
        s0, s1 = max(s0, written_from), min(s1, written_until)
        if s1 - s0 < 1.0:
            continue
        marks = [s0] + [c for c in commits if s0 < c < s1] + [s1]
        gaps.append(max(b - a for a, b in zip(marks, marks[1:])))
    inside = [c for c in commits if any(s0 < c < min(s1, written_until) for s0, s1 in spans)]
    outside = [b - a for a, b in zip(commits, commits[1:]) if b < written_until
               and not any(s0 < b and a < s1 for s0, s1 in spans)]  # fmt: skip
    if gaps:
        print(f"watcher commits while ingests ran and the match was being written (until {written_until - started:.0f}"
              f" s): {len(gaps)} ingests, {len(inside)} commits; longest gap between two commits in an ingest: p50 "
              f"{pct(gaps, .5):.1f} s, max {max(gaps):.1f} s; between commits with no ingest running: p95 "
              f"{pct(outside, .95):.1f} s, max {max(outside, default=0):.1f} s")  # fmt: skip
    else:
        print("watcher commits during ingests: no ingest ran while the match was being written (raise --rounds)")
    notes = (tmp / "watch.err").read_text(errors="replace").splitlines()
    waiting = [n for n in notes if "waiting" in n]
    print(f"watcher notes: {len(notes)} ({len(waiting)} about waiting) {waiting[:3]}")
    print(f"page problems: {len(problems)} {problems[:3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
