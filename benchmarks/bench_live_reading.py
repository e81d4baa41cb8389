"""The dashboard reading while `kifu watch` writes: page runs against the watcher's waits.

A watcher (``tests/app/live_watcher.py``: :class:`loaders.live.watch.Watcher` in a process of its own, each
batch's wait for the file and hold of it timed) follows a file into which a real 300-round dealer log
is written as fast as possible.  Meanwhile the Matches page and the round replayer run again and again
(AppTest, English and Japanese, as one viewer clicking without pause) and ``--readers`` threads read as
overlapping page runs of other viewers do (``ui.reading``: match list, round index, one round's events).

Printed: the page runs done, failed or warned ("being updated"), their p50/p95/max; the overlapping
reads done; the watcher's batches, its waits for the file (p50/p95/max: how long the dashboard kept it
out) and holds; and the wall time to store the whole log, against the same watcher with no reader.

    .venv/bin/python benchmarks/bench_live_reading.py [--readers 2] [--log …300.download.jsonl.gz]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import read_lines  # noqa: E402

DEFAULT_LOG = REPO / "tests" / "fixtures" / "algori-2023" / "demo4_skipbind2_300.download.jsonl.gz"
ENTRY = str(REPO / "app" / "streamlit_app.py")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def events_in(db: Path) -> int:
    from app import ui

    try:
        row = ui.Db(db).execute("select count(*) from events").fetchone()
    except Exception:  # noqa: BLE001 - no table yet
        return 0
    return int(row[0]) if row else 0


def run(log: Path, readers: int, pages: bool) -> dict[str, Any]:
    from queries import sharing as live

    lines = read_lines(log)
    tmp = Path(tempfile.mkdtemp(prefix="kifu-live-"))
    db, feed, out = tmp / "live.duckdb", tmp / "dealer.log", tmp / "watcher.json"
    feed.touch()
    os.environ["KIFU_DB"] = str(db)
    proc = subprocess.Popen([sys.executable, "-m", "tests.app.live_watcher", str(db), str(feed), str(out)], cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    while not live.watcher_present(db):
        time.sleep(0.02)
    stop = threading.Event()
    page_times: list[float] = []
    problems: list[str] = []
    reads = [0]

    def reader() -> None:
        from app import ui
        from queries import dashboard as q

        while not stop.is_set():
            if not db.exists():
                time.sleep(0.05)
                continue
            try:
                with ui.reading():
                    con = ui.Db(db)
                    for mid in q.match_list(con)["match_id"]:
                        rounds = q.round_index(con, mid)
                        if not rounds.empty:
                            q.round_events(con, mid, int(rounds["round_no"].iloc[-1]))
                reads[0] += 1
            except BaseException as exc:  # noqa: BLE001
                problems.append(f"reader: {type(exc).__name__}: {exc}")
                return

    started = time.monotonic()
    threads = [threading.Thread(target=reader, daemon=True) for _ in range(readers)]
    for t in threads:
        t.start()
    with feed.open("ab") as f:  # as fast as the writer can go
        for i in range(0, len(lines), 500):
            f.write(b"".join(line + b"\n" for line in lines[i : i + 500]))
            f.flush()
    if pages:
        from streamlit.testing.v1 import AppTest

        apps = [(p, lang, AppTest.from_file(ENTRY, default_timeout=120)) for p in ("matches", "round_browser")
                for lang in ("en", "ja")]  # fmt: skip
        for _p, lang, at in apps:
            at.query_params["lang"] = lang
    while events_in(db) < len(lines):
        if pages:
            for p, _lang, at in apps:
                t0 = time.monotonic()
                at.run()
                if p == "round_browser":
                    at.switch_page("app_pages/round_browser.py").run()
                page_times.append(time.monotonic() - t0)
                problems += [f"{p}: {e.value}" for e in at.exception] + [f"{p}: {w.value}" for w in at.warning]
        else:
            time.sleep(0.05)
        if time.monotonic() - started > 600:
            problems.append("not done after 600 s")
            break
    wall = time.monotonic() - started
    stop.set()
    for t in threads:
        t.join(30)
    proc.send_signal(signal.SIGTERM)
    proc.wait(120)
    done = json.loads(out.read_text())
    return {"wall": wall, "page_times": page_times, "problems": problems, "reads": reads[0], **done,
            "lines": len(lines)}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", type=Path, default=DEFAULT_LOG)
    ap.add_argument("--readers", type=int, default=2)
    args = ap.parse_args()
    alone = run(args.log, 0, pages=False)
    busy = run(args.log, args.readers, pages=True)
    print(f"log: {args.log.name}, {busy['lines']:,} lines written as fast as possible")
    print(f"watcher alone: stored in {alone['wall']:.1f} s, {alone['batches']} batches, "
          f"wait max {max(alone['waits']):.3f} s, hold p50 {statistics.median(alone['holds']):.2f} s")
    pt = busy["page_times"]
    print(f"with the dashboard reading: stored in {busy['wall']:.1f} s, {busy['batches']} batches")
    print(f"  watcher waits for the file: p50 {pct(busy['waits'], .5):.3f} s, p95 {pct(busy['waits'], .95):.3f} s, "
          f"max {max(busy['waits']):.3f} s; holds p50 {pct(busy['holds'], .5):.2f} s, max {max(busy['holds']):.2f} s; "
          f"'waiting for readers' notes: {len([n for n in busy['notes'] if 'waiting' in n])}")
    print(f"  page runs (AppTest): {len(pt)}, p50 {pct(pt, .5):.2f} s, p95 {pct(pt, .95):.2f} s, max {max(pt):.2f} s; "
          f"overlapping reads by {args.readers} thread(s): {busy['reads']}")
    print(f"  failures or 'being updated' warnings: {len(busy['problems'])} {busy['problems'][:3]}")
    print(f"  events stored: {busy['events']:,} of {busy['lines']:,}")
    return 1 if busy["problems"] or busy["events"] != busy["lines"] else 0


if __name__ == "__main__":
    sys.exit(main())
