"""A match being played, in chromium: from a line written to the dealer log to its event (and the finding
about it) shown by an open dashboard page, while `kifu watch` follows the log and `kifu serve` serves.

    .venv/bin/python benchmarks/bench_live_browser.py [--speed 20] [--rounds 80]
                     [--log tests/fixtures/algori-2023/misbehave_skipbind2_80.download.jsonl.gz]

A recorded log (a misbehaving bot: hundreds of findings) is written line by line at its recorded pace
× ``--speed`` (each line's write time kept) into a file a watcher follows (in this process, as
``kifu watch`` runs it); ``kifu serve`` serves the database from its own process; chromium opens the
round replayer on the match with **Follow live** on (the Matches page's "Follow it in the replayer"
link) and this script reads the event it shows (``.kr[data-seq]``) every 50 ms.  For every finding the
watcher stores, latency = the first moment the page shows that event or a later one − the moment its
line was written.  Printed: p50 / p95 / max over every finding of the match (target p95 ≤ 3 s), and
for comparison the same from the line to the finding printed by the watcher.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_watch import cut_rounds, pct  # noqa: E402
from kifu.replay_log import replay_to_file  # noqa: E402
from queries import sharing as live  # noqa: E402
from loaders.core.feeds import follow_path  # noqa: E402
from loaders.live.watch import Finding, Watcher  # noqa: E402

DEFAULT_LOG = REPO / "tests" / "fixtures" / "algori-2023" / "misbehave_skipbind2_80.download.jsonl.gz"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log", type=Path, default=DEFAULT_LOG)
    ap.add_argument("--rounds", type=int, default=80)
    ap.add_argument("--speed", type=float, default=20.0)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM, serve, wait_for_app

    lines = cut_rounds(args.log, args.rounds)
    tmp = Path(tempfile.mkdtemp(prefix="kifu-bench-live-"))
    src, log, db = tmp / "recorded.jsonl", tmp / "Dealer-D-00000001.log", tmp / "kifu.duckdb"
    src.write_bytes(b"\n".join(lines) + b"\n")
    log.touch()
    written = [0.0] * len(lines)
    found: list[tuple[float, Finding]] = []
    watcher = Watcher(db, [follow_path(log, settle_s=0.5)], poll_s=0.1,
                      on_finding=lambda f: found.append((time.time(), f)))  # fmt: skip
    wt = threading.Thread(target=watcher.run, daemon=True)
    wt.start()
    while not live.watcher_present(db):
        time.sleep(0.05)
    head = 200  # the match's first lines at once, so that the database exists for `kifu serve`
    log.write_bytes(b"\n".join(lines[:head]) + b"\n")
    rest = tmp / "rest.jsonl"
    rest.write_bytes(b"\n".join(lines[head:]) + b"\n")
    while watcher.status.events < head:
        time.sleep(0.05)
    print(f"log: {args.log.name}, first {args.rounds} rounds: {len(lines):,} lines; writing at ×{args.speed:g}")
    seen: list[tuple[float, int]] = []
    with sync_playwright() as p, serve(db) as url:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{url}/?lang=ja")
        wait_for_app(page)
        done = threading.Event()

        def write() -> None:
            replay_to_file(rest, log, speed=args.speed, append=True,
                           on_line=lambda i, line, at: written.__setitem__(head + i, at))  # fmt: skip
            done.set()

        found.clear()
        threading.Thread(target=write, daemon=True).start()
        link = page.get_by_role("link", name="リプレイヤで追う")
        link.wait_for(timeout=60_000)
        link.click()
        box = page.locator(".kr")
        t_end: float | None = None
        while True:
            try:
                value = box.get_attribute("data-seq", timeout=1000)
                if value is not None:
                    seen.append((time.time(), int(value)))
            except Exception:  # noqa: BLE001 - the page between two runs
                pass
            if done.is_set() and t_end is None:
                t_end = time.time()
            if t_end is not None and time.time() - t_end > 8:
                break
            page.wait_for_timeout(50)
        browser.close()
    watcher.stop()
    wt.join(timeout=120)
    first = seen[0][0] if seen else float("inf")
    page_lat, term_lat = [], []
    for at, f in found:
        if f.seq is None or not 0 < f.seq <= len(lines) or written[f.seq - 1] < first:
            continue  # before the page was open
        term_lat.append(at - written[f.seq - 1])
        shown = next((t for t, s in seen if s >= f.seq), None)
        if shown is not None:
            page_lat.append(shown - written[f.seq - 1])
    print(f"findings while the page was open: {len(term_lat):,}; shown by the page: {len(page_lat):,}")
    print(f"line written → its event shown by the replayer following live: p50 {pct(page_lat, .5):.2f} s · "
          f"p95 {pct(page_lat, .95):.2f} s · max {max(page_lat, default=float('nan')):.2f} s   (target p95 ≤ 3 s)")
    print(f"line written → finding printed by the watcher (same run): p50 {pct(term_lat, .5):.2f} s · "
          f"p95 {pct(term_lat, .95):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
