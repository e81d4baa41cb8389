"""`kifu serve` started before the database exists (before `kifu watch` or `kifu ingest` made it): the page
says it waits for it, then shows the matches by itself once `kifu ingest` has made the file — no reload."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import REPO
from tests.e2e.conftest import serve, wait_for_app

pytestmark = pytest.mark.alone


def test_the_page_waits_for_the_database_then_shows_it(page: Any, tmp_path: Path) -> None:
    db = tmp_path / "later.duckdb"
    with serve(db) as url:
        page.goto(url)
        wait_for_app(page)
        info = page.get_by_test_id("stAlertContentInfo")
        expect(info).to_contain_text("later.duckdb does not exist yet — the dashboard waits for it")
        made = subprocess.run([sys.executable, "-m", "kifu.cli", "ingest", "--db", str(db), "--no-progress", "--jobs", "1",
                               str(REPO / "samples" / "chaser_greedy-vs-greedy.txt")], cwd=REPO,
                              env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, timeout=120)  # fmt: skip
        assert made.returncode == 0, made.stderr
        expect(page.get_by_text("does not exist yet")).to_have_count(0, timeout=30_000)
        expect(page.get_by_text("greedy_c").first).to_be_visible(timeout=30_000)
