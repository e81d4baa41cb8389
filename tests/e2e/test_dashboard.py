"""Browser journeys in Debian's chromium against `kifu serve`: upload the sample, browse a round,
visit every page (screenshots in test-results/screenshots/), and a hostile bot name stays text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from urllib.parse import quote

from tests.app.conftest import HOSTILE, HOSTILE_DEALER, hostile_log
from tests.conftest import SAMPLE
from tests.e2e.conftest import screenshot, serve, wait_for_app

#: These tests hold a page or a watcher to the clock: `make test` runs them after the others, alone.
pytestmark = pytest.mark.alone

PAGES = ["matches", "round_browser", "player_rounds", "penalties", "challenges", "special_logic", "violations",
         "players", "standings", "upload"]  # fmt: skip


@pytest.fixture(scope="module")
def empty_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`kifu serve` on an empty database, as a new user starts (a file DuckDB made, no table yet: `kifu serve`
    refuses a database that does not exist)."""
    import duckdb

    d = tmp_path_factory.mktemp("e2e-empty")
    duckdb.connect(str(d / "kifu.duckdb")).close()
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
    # the upload names what it added, the sidebar lists it at once, one click opens it
    expect(page.get_by_text("Added or updated")).to_contain_text("misbehave-bind2-40")
    expect(page.get_by_test_id("stSidebar").get_by_role("combobox", name="Match")).to_have_value(re.compile("^misbehave-bind2-40"))
    page.get_by_role("button", name="Open in the replayer").first.click()
    wait_for_app(page)
    expect(page.locator(".ut")).to_be_visible()
    assert "/round_browser" in page.url
    page.goto(f"{empty_app}/round_browser")
    wait_for_app(page)
    header = page.locator(".kr-title")
    expect(header).to_contain_text("event 1/")
    page.locator(".kr-next").click()
    expect(header).to_contain_text("event 2/")
    expect(page.locator(".kr-sentence")).to_contain_text("'s turn (turn 1)")
    page.locator(".kr-next").click()
    expect(header).to_contain_text("event 3/")
    board = page.locator(".ut")
    expect(board).to_contain_text("Misbehaver")
    expect(board).to_contain_text("draw pile")
    seq = page.locator(".kr").get_attribute("data-seq")
    page.wait_for_url(lambda u: f"event={seq}" in u and "round=1" in u, timeout=10_000)
    screenshot(page, "round_browser")
    # the URL reopens the same view
    url = page.url
    page.goto(url)
    wait_for_app(page)
    expect(page.locator(".kr-title")).to_contain_text("event 3/")


@pytest.mark.parametrize("name", PAGES)
def test_every_page_in_the_browser(page: Any, app_url: str, name: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 1100})
    path = "" if name == "matches" else name  # the default page lives at /
    page.goto(f"{app_url}/{path}" + ("?round=5&seq=650" if name == "round_browser" else ""))
    if name == "round_browser":
        expect(page.locator(".kr")).to_have_attribute("data-seq", "650")
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
    expect(page.locator(".ut")).to_contain_text(HOSTILE)  # shown literally, as text, inside the component
    expect(page.locator(".kr-view")).to_contain_text(HOSTILE)
    assert page.locator(".kr img, .ut img").count() == 0
    screenshot(page, "hostile_round_browser")
    assert dialogs == []


def test_page_load_asks_nothing_beyond_the_server(page: Any, app_url: str) -> None:
    """The page icon and every asset come from the server itself (a ":material/…" page icon made every
    browser fetch a favicon from fonts.gstatic.com)."""
    from urllib.parse import urlparse

    host = urlparse(app_url).hostname
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if urlparse(r.url).scheme in ("http", "https", "ws", "wss")
            and urlparse(r.url).hostname != host else None)  # fmt: skip
    for path in ("", "players"):
        page.goto(f"{app_url}/{path}")
        wait_for_app(page)
        page.wait_for_timeout(1000)
    assert outside == []
    icon = page.locator("link[rel*='icon']").first.get_attribute("href", timeout=5000) or ""
    assert urlparse(icon).hostname in (None, host), icon  # a data: URL or the server's own file
