"""Screenshots of every dashboard page in chromium (for release notes and reviews).

Usage:  .venv/bin/python scripts/screenshots.py URL OUTDIR [--lang en|ja]
The server at URL must already run (``kifu serve``); pages are shot at 1440x900 (full page) and
the round replayer also at 390x844 (phone).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PAGES = {"matches": "", "round_browser": "round_browser?round=5&seq=649", "player_rounds": "player_rounds",
         "penalties": "penalties", "challenges": "challenges", "special_logic": "special_logic",
         "violations": "violations", "players": "players", "standings": "standings", "upload": "upload"}  # fmt: skip
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    args.outdir.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=ARGS)
        for viewport, pages in (({"width": 1440, "height": 900}, PAGES), ({"width": 390, "height": 844},
                                                                         {"round_browser": PAGES["round_browser"]})):  # fmt: skip
            page = browser.new_page(viewport=viewport)
            for name, path in pages.items():
                sep = "&" if "?" in path else "?"
                page.goto(f"{args.url.rstrip('/')}/{path}{sep}lang={args.lang}")
                page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=60_000)
                page.wait_for_timeout(1500)
                suffix = "_phone" if viewport["width"] < 500 else ""
                out = args.outdir / f"{name}{suffix}.png"
                page.screenshot(path=str(out), full_page=viewport["width"] > 500)
                print(out)
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
