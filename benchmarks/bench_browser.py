"""Browser figures in Debian's chromium, on a 1,000-round match served by `kifu serve`:

* replayer step: a key press -> the new board painted (in-page: keydown to the second animation
  frame after it, p50/p95 over 100 steps), and the same seen from Playwright (press -> the DOM shows
  the next event);
* baseline measured in the same run: one server round trip (a Streamlit rerun, "next round ▶")
  -> the new board, which is what every step cost before the replayer ran in the browser;
* first render of every page (navigation -> the script finished and the heading shown).

Usage:  .venv/bin/python benchmarks/bench_browser.py [--rounds 1000] [--steps 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_pages import pct  # noqa: E402
from benchmarks.synth import long_match, write  # noqa: E402

#: Chromium's switches for timing pages: nothing in the background competing with the page.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip

PAGES = ["", "round_browser", "player_rounds", "penalties", "challenges", "special_logic", "violations", "players",
         "standings", "upload"]  # fmt: skip
# keydown -> the frame that shows the new board has been painted: the handler renders synchronously,
# the next animation frame paints it, and a message posted from that frame runs right after the paint.
STEP_JS = """async (n) => {
  const painted = [], handler = [];
  const afterPaint = () => new Promise((r) => requestAnimationFrame(() => {
    const ch = new MessageChannel(); ch.port1.onmessage = () => r(); ch.port2.postMessage(0); }));
  for (let i = 0; i < n; i++) {
    await new Promise((r) => setTimeout(r, 30));  // a person's key repeat, not a burst
    const t0 = performance.now();
    document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true, composed: true}));
    handler.push(performance.now() - t0);
    await afterPaint();
    painted.push(performance.now() - t0);
  }
  return [painted, handler];
}"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=100)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from loaders.pipeline import ingest, open_sources
    from tests.e2e.conftest import CHROMIUM, serve

    with tempfile.TemporaryDirectory() as tmp:
        log = write(Path(tmp) / "long.jsonl", long_match(args.rounds))
        db = Path(tmp) / "kifu.duckdb"
        report = ingest(open_sources([str(log)]), db)
        match = report.matches[0]
        print(f"{args.rounds}-round match: {report.records_read:,} events; chromium {CHROMIUM}")
        with serve(db) as url, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 900})

            def ready() -> None:
                page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=120_000)

            import duckdb

            con = duckdb.connect(str(db), read_only=True)
            mid = con.execute("select round_no from events where round_no >= ? group by 1 having count(*) > ? "
                              "order by 1 limit 1", [args.rounds // 2, args.steps]).fetchone()[0]  # fmt: skip
            con.close()
            page.goto(f"{url}/round_browser?match={match}&round={mid}")
            ready()
            page.wait_for_selector(".kr-board .ut")
            n_events = page.locator(".kr-list li").count()
            steps = min(args.steps, n_events - 1)
            page.keyboard.press("Home")
            inpage, handler = page.evaluate(STEP_JS, steps)
            page.keyboard.press("Home")
            seen = []
            for _ in range(steps):
                before = page.locator(".kr").get_attribute("data-seq")
                t = time.perf_counter()
                page.keyboard.press("ArrowRight")
                page.locator(f".kr:not([data-seq='{before}'])").wait_for()
                seen.append((time.perf_counter() - t) * 1000)
            rerun = []
            for _ in range(10):
                title = page.locator(".kr-title").inner_text()
                t = time.perf_counter()
                page.get_by_test_id("stButton").filter(has_text="▶").first.click()
                page.wait_for_function("(old) => { const h = document.querySelector('.kr-title') ||"
                                       " [...document.querySelectorAll('*')].map(e => e.shadowRoot)"
                                       ".filter(Boolean).map(s => s.querySelector('.kr-title')).find(Boolean);"
                                       " return h && h.textContent !== old; }", arg=title, timeout=60_000)  # fmt: skip
                rerun.append((time.perf_counter() - t) * 1000)
                ready()
            print(f"\nreplayer, round {mid} ({n_events} events), {steps} steps      p50 ms   p95 ms   max ms")
            for name, xs in (("key -> board painted (in page)", inpage), ("  of which the key handler (render)", handler),
                             ("key -> DOM updated (Playwright)", seen),
                             ("baseline: server rerun -> new board", rerun)):  # fmt: skip
                print(f"  {name:<44}{statistics.median(xs):>7.1f}{pct(xs, 95):>9.1f}{max(xs):>9.1f}")
            print(f"  in-browser step is {statistics.median(rerun) / statistics.median(inpage):.0f}x faster than a "
                  f"server round trip (p50)")  # fmt: skip

            print("\nfirst render (navigation -> script done, heading shown), 3 loads each   p50 ms   max ms")
            for path in PAGES:
                times = []
                for _ in range(3):
                    page.goto("about:blank")
                    t = time.perf_counter()
                    page.goto(f"{url}/{path}?match={match}" + (f"&round={mid}" if path == "round_browser" else ""))
                    ready()
                    page.get_by_test_id("stHeading").first.wait_for()
                    if path == "round_browser":
                        page.wait_for_selector(".kr-board .ut")
                    times.append((time.perf_counter() - t) * 1000)
                print(f"  /{path:<40}{statistics.median(times):>8.0f}{max(times):>9.0f}")
            browser.close()


if __name__ == "__main__":
    main()
