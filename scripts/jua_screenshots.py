"""Screenshots of the JUA rules on the card table, in Japanese: a pair play, a draw stack being answered and a
challenge, found in a refereed JUA match. `kifu serve` must be running on the database to show.

    .venv/bin/python scripts/jua_screenshots.py http://127.0.0.1:8501 kifu.duckdb [--dealer jua-10p] [--out docs/screenshots]

The moments are looked up in the database (``queries/sql/pages/jua_moments.sql``): the first pair play the
referee accepted, the biggest draw stack handed to a player, a challenge (a successful one first). Make such a
match with, e.g., ``kifu play --ruleset jua-2016 --players 10 --seed 3 --bots sloppy,stacker,greedy,random
--out j10.jsonl --ingest --db kifu.duckdb``. Needs Debian's chromium (``scripts/setup.sh dev``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from queries import connect  # noqa: E402
from queries import dashboard as q  # noqa: E402

READY = "[data-testid='stApp'][data-test-script-state='notRunning']"
#: file name -> the moment it shows
SHOTS = {"jua-pair-ja.png": "pair", "jua-stack-ja.png": "stack", "jua-challenge-ja.png": "challenge"}


def jua_match(db: Path, dealer: str | None) -> str:
    """The JUA match to show: the given dealer's, else the one with the most players."""
    con = connect(db, read_only=True)
    try:
        rows = q.match_list(con, "algori-uno")
    finally:
        con.close()
    rows = rows[rows["ruleset"].fillna("").str.startswith("jua-")]
    if dealer:
        rows = rows[rows["dealer_name"] == dealer]
    if rows.empty:
        sys.exit(f"{db}: no JUA match" + (f" of dealer {dealer}" if dealer else ""))
    return str(rows.sort_values(["n_players", "started_at"], ascending=False)["match_id"].iloc[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("db", type=Path)
    ap.add_argument("--dealer", help="the JUA match of this dealer (default: the one with the most players)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = ap.parse_args()
    match = jua_match(args.db, args.dealer)
    con = connect(args.db, read_only=True)
    try:
        moments = q.jua_moments(con, match)
    finally:
        con.close()
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for name, kind in SHOTS.items():
            if kind not in moments:
                print(f"{name}: match {match} has no {kind}; skipped")
                continue
            round_no, seq = moments[kind]
            page = browser.new_page(viewport={"width": 1440, "height": 1000}, locale="ja-JP")
            page.goto(f"{args.url.rstrip('/')}/round_browser?lang=ja&match={match}&round={round_no}&seq={seq}")
            page.wait_for_selector(READY, timeout=60_000)
            page.wait_for_timeout(2500)  # the replayer draws after the run
            page.screenshot(path=str(args.out / name))
            print(args.out / name, f"(round {round_no}, seq {seq})")
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
