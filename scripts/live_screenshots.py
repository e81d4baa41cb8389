"""The README's screenshots of a match being played: a recorded log played into a file `kifu watch` follows.

    .venv/bin/python scripts/live_screenshots.py [--out docs/screenshots] [--speed 4]
                                                 [--log tests/fixtures/algori-2023/misbehave_skipbind2_80.download.jsonl.gz]

The log's lines are written at their recorded pace × ``--speed`` (``kifu.replay_log.replay_to_file``) into a
file a watcher (``loaders.live.watch.Watcher``) follows into a fresh database, and `kifu serve` shows that database.
Once the match is well under way (``--after`` events), it saves

* ``live-matches-{en,ja}.png``: the Matches page marking the match live (1440×1000);
* ``live-replayer-{en,ja}.png``: the round replayer following it (``?follow=1``);
* ``live-findings-en.png``: the Penalties page of the live match.

Needs Debian's chromium (``scripts/setup.sh dev``).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.e2e.live import LivePlay  # noqa: E402

READY = "[data-testid='stApp'][data-test-script-state='notRunning']"
DEFAULT_LOG = REPO / "tests" / "fixtures" / "algori-2023" / "misbehave_skipbind2_80.download.jsonl.gz"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kifu.cli", "serve", "--db", str(db), "--port", str(port)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit("kifu serve did not start")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    ap.add_argument("--log", type=Path, default=DEFAULT_LOG)
    ap.add_argument("--speed", type=float, default=4.0)
    ap.add_argument("--after", type=int, default=4000, help="events stored before the first screenshot")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="kifu-live-shots-"))
    play = LivePlay(tmp / "kifu.duckdb", tmp / "dealer.log", args.log, speed=args.speed).start()
    proc = None
    try:
        play.wait_events(args.after, timeout=600)
        proc, url = serve(tmp / "kifu.duckdb")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for lang in ("en", "ja"):
                page = browser.new_page(viewport={"width": 1440, "height": 1000},
                                        locale="ja-JP" if lang == "ja" else "en-US")  # fmt: skip
                page.goto(f"{url}/?lang={lang}")
                page.wait_for_selector(READY, timeout=60_000)
                page.wait_for_selector(".st-key-matches-live", timeout=60_000)
                page.wait_for_timeout(2500)  # the score race draws after the run
                page.screenshot(path=str(args.out / f"live-matches-{lang}.png"))
                print(args.out / f"live-matches-{lang}.png")
                page.get_by_role("link", name={"en": "Follow it in the replayer", "ja": "リプレイヤで追う"}[lang]).click()
                page.wait_for_selector(".kr[data-follow='on']", timeout=60_000)
                page.wait_for_timeout(3500)  # a refresh or two: the newest event
                page.screenshot(path=str(args.out / f"live-replayer-{lang}.png"))
                print(args.out / f"live-replayer-{lang}.png")
                if lang == "en":
                    match = page.url.split("match=", 1)[1].split("&", 1)[0]
                    page.goto(f"{url}/penalties?lang=en&match={match}")
                    page.wait_for_selector(READY, timeout=60_000)
                    page.wait_for_timeout(2500)
                    page.screenshot(path=str(args.out / "live-findings-en.png"), full_page=False)
                    print(args.out / "live-findings-en.png")
                page.close()
            browser.close()
        if not play.replaying():
            print("note: the recorded match ended before the last screenshot (try a lower --speed)", file=sys.stderr)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        play.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
