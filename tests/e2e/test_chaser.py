"""The CHaser replay in chromium: stepping actions with keys, the map drawn, the end explained."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import REPO, ingest, query
from tests.e2e.conftest import screenshot, serve, wait_for_app

DATA = REPO / "tests" / "data" / "chaser"


@pytest.fixture(scope="module")
def chaser_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    db: Path = tmp_path_factory.mktemp("e2e-ch") / "kifu.duckdb"
    ingest(db, DATA)
    with serve(db) as url:
        yield url, db


def test_replay_steps_actions_on_the_map(page: Any, chaser_url: tuple[str, Path]) -> None:
    url, db = chaser_url
    match = query(db, "select match_id from matches where end_kind = 'put-on'")[0][0]
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{url}/chaser_board?match={match}")
    wait_for_app(page)
    expect(page.locator(".ch-map")).to_be_visible()
    assert page.locator(".ch-cell").count() == 15 * 17
    assert page.locator(".ch-player").count() == 2
    expect(page.locator(".kr")).to_have_attribute("data-seq", "0")
    expect(page.locator(".kr-pos")).to_have_text("0 / 15")  # the start is step 0; the game's 15 actions follow
    expect(page.locator(".kr-where")).to_contain_text("action 0/15")  # the heading counts alike
    page.keyboard.press("ArrowRight")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "1")
    expect(page.locator(".kr-pos")).to_have_text("1 / 15")
    assert page.locator(".ch-player.acting").get_attribute("data-team") == "COOL"
    page.keyboard.press("End")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "15")
    expect(page.locator(".kr-pos")).to_have_text("15 / 15")
    expect(page.locator(".kr-where")).to_contain_text("action 15/15")
    expect(page.locator(".kr-sentence")).to_contain_text("put a block on idle_h")
    # the block on Hot's cell (7, 11)
    assert "block" in page.locator(".ch-cell[data-x='7'][data-y='11']").get_attribute("class")
    page.wait_for_url(lambda u: "event=15" in u, timeout=10_000)
    screenshot(page, "chaser-replay")
