"""The README's screenshots, in Japanese: `kifu serve` must be running on the database to show.

    .venv/bin/python scripts/screenshots.py http://127.0.0.1:8501 [--out docs/screenshots]

Needs Debian's chromium (``scripts/setup.sh dev``) and a database holding the bundled ALGORI sample
(``misbehave-bind2-40``) — for the mixed view, every game.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import sync_playwright

READY = "[data-testid='stApp'][data-test-script-state='notRunning']"
#: The bot of the path's screenshots (its identity: name @ dealer), URL-encoded.
BOT = quote("Misbehaver @ misbehave-bind2-40")
#: file name -> (page and query, viewport height)
SHOTS = {
    "matches-ja.png": ("?lang=ja", 1300),
    "player-rounds-ja.png": ("player_rounds?lang=ja&match=misbehave-bind2-40&player=P-00000006", 1100),
    "replayer-penalty-ja.png": ("round_browser?lang=ja&match=misbehave-bind2-40&round=5&seq=650", 1500),
    # the contestant's path: my bot chosen once, its faults, the board at its first fault
    "path-1-bot-ja.png": (f"?lang=ja&bot={BOT}", 900),
    "path-2-faults-ja.png": (f"player_rounds?lang=ja&bot={BOT}", 900),
    "path-3-fault-ja.png": (f"round_browser?lang=ja&bot={BOT}&match=misbehave-bind2-40&round=1&event=37&seq=37", 1100),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs" / "screenshots")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for name, (path, height) in SHOTS.items():
            page = browser.new_page(viewport={"width": 1440, "height": height}, locale="ja-JP")
            page.goto(f"{args.url.rstrip('/')}/{path}")
            page.wait_for_selector(READY, timeout=60_000)
            page.wait_for_function("() => !document.querySelector(\"[data-testid='stSkeleton']\")", timeout=30_000)
            page.wait_for_timeout(2500)  # charts, page links and the replayer draw after the run
            page.wait_for_selector(READY, timeout=60_000)
            page.screenshot(path=str(args.out / name))
            print(args.out / name)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
