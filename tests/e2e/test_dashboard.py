"""Browser journeys in Debian's chromium against `kifu serve`: upload the sample, browse a round,
visit every page (screenshots in test-results/screenshots/), and a hostile bot name stays text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from urllib.parse import quote

from tests.app.conftest import HOSTILE, HOSTILE_DEALER, hostile_log
from tests.conftest import SAMPLE
from tests.e2e.conftest import screenshot, serve, wait_for_app

PAGES = ["matches", "round_browser", "penalties", "challenges", "special_logic", "violations", "players",
         "standings", "upload"]  # fmt: skip


@pytest.fixture(scope="module")
def empty_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`kifu serve` on an empty database, as a new user starts."""
    d = tmp_path_factory.mktemp("e2e-empty")
    with serve(d / "kifu.duckdb", KIFU_DATA=str(d / "data")) as url:
        yield url


def upload(page: Any, url: str, path: Path) -> None:
    page.goto(f"{url}/upload")
    wait_for_app(page)
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    page.get_by_role("button", name="Ingest").click()
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("new events", timeout=60_000)


def test_new_user_journey(page: Any, empty_app: str) -> None:
    page.goto(empty_app)
    wait_for_app(page)
    expect(page.get_by_test_id("stAlertContentInfo")).to_contain_text("No data yet")
    upload(page, empty_app, SAMPLE)
    screenshot(page, "upload")
    page.goto(f"{empty_app}/round_browser")
    wait_for_app(page)
    header = page.get_by_test_id("stMarkdown").filter(has_text="Round 1 ·").first
    expect(header).to_contain_text("event 1/")
    page.get_by_role("button", name="next ▶").click()
    wait_for_app(page)
    expect(header).to_contain_text("event 2/")
    expect(page.get_by_test_id("stText").first).to_contain_text("'s turn (turn 1)")
    page.get_by_role("button", name="next ▶").click()
    wait_for_app(page)
    expect(header).to_contain_text("event 3/")
    board = page.locator(".kb")
    expect(board).to_contain_text("Misbehaver")
    expect(board).to_contain_text("draw pile")
    assert "seq=" in page.url and "round=1" in page.url
    screenshot(page, "round_browser")
    # the URL reopens the same view
    url = page.url
    page.goto(url)
    wait_for_app(page)
    expect(page.get_by_test_id("stMarkdown").filter(has_text="Round 1 ·").first).to_contain_text("event 3/")


@pytest.mark.parametrize("name", PAGES)
def test_every_page_in_the_browser(page: Any, app_url: str, name: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 1100})
    path = "" if name == "matches" else name  # the default page lives at /
    page.goto(f"{app_url}/{path}" + ("?round=5&seq=650" if name == "round_browser" else ""))
    wait_for_app(page)
    expect(page.get_by_test_id("stHeading").first).to_be_visible()
    assert page.get_by_test_id("stException").count() == 0
    assert page.get_by_text("Page not found").count() == 0
    if name in ("matches", "penalties", "special_logic", "violations", "challenges", "standings"):
        expect(page.locator(".js-plotly-plot, [data-testid='stDataFrame']").first).to_be_visible()
    screenshot(page, f"page_{name}")


def test_hostile_names_stay_text_in_the_browser(page: Any, empty_app: str, tmp_path: Path) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    upload(page, empty_app, hostile_log(tmp_path / "hostile.jsonl"))
    m = quote(HOSTILE_DEALER)
    for name in (f"round_browser?match={m}&round=6", f"?match={m}", "players", f"special_logic?match={m}",
                 f"penalties?match={m}"):  # fmt: skip
        page.goto(f"{empty_app}/{name}")
        wait_for_app(page)
        page.wait_for_timeout(500)
        assert page.locator("img[src='x']").count() == 0
    page.goto(f"{empty_app}/round_browser?match={m}&round=6")
    wait_for_app(page)
    expect(page.locator(".kb")).to_contain_text(HOSTILE)  # shown literally, as text
    screenshot(page, "hostile_round_browser")
    assert dialogs == []
