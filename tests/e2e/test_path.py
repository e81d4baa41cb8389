"""The contestant's path in chromium: from the home page to the replayer at the chosen bot's first fault in three
clicks (desktop and phone), Kifu's own Japanese "page not found", and the table toolbar clear of the text above
tables on a phone."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.conftest import query
from tests.e2e.conftest import served_db_path, wait_for_app

SIZES = {"desktop": (1440, 900), "phone": (390, 844)}


class Clicks:
    """Clicks counted: every click of the path goes through here."""

    def __init__(self, page: Any) -> None:
        self.page, self.n = page, 0

    def click(self, locator: Any) -> None:
        locator.click()
        self.n += 1


@pytest.mark.parametrize("size", list(SIZES))
def test_home_to_my_bots_first_fault_in_three_clicks(page: Any, app_url: str, size: str) -> None:
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{app_url}/?lang=en")
    wait_for_app(page)
    clicks = Clicks(page)
    main = page.get_by_test_id("stMain")
    clicks.click(main.get_by_role("combobox", name="My bot"))  # above the fold, no sidebar needed
    clicks.click(page.get_by_role("option", name="Misbehaver"))
    wait_for_app(page)
    clicks.click(main.get_by_role("link", name="Replay its first fault"))
    wait_for_app(page)
    expect(page.locator(".ut")).to_be_visible(timeout=30_000)
    assert clicks.n <= 3
    url = urlparse(page.url)
    params = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert url.path.endswith("/round_browser") and params["bot"].startswith("Misbehaver @ ")
    code, first_seq = query(served_db_path(), """
        select p.player_code, min(f.seq) from players p join (
            select match_id, player, seq from penalties
            union all select match_id, player, seq from violations where severity in ('error', 'warning')
        ) f on f.match_id = p.match_id and f.player = p.player_code
        where p.player_name = 'Misbehaver' group by 1""")[0]  # fmt: skip
    assert params["event"] == str(first_seq) and params.get("player", code) == code


def test_an_unknown_path_shows_kifus_own_page_in_japanese(page: Any, app_url: str) -> None:
    page.goto(f"{app_url}/no_such_page?lang=ja")
    wait_for_app(page)
    expect(page.get_by_test_id("stMain")).to_contain_text("ページが見つかりません")
    expect(page.get_by_test_id("stMain")).to_contain_text("/no_such_page")
    assert not page.locator("[role='dialog']").count()  # not Streamlit's English dialog


def test_the_table_toolbar_covers_no_text_on_a_phone(page: Any, app_url: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{app_url}/player_rounds?lang=ja")
    wait_for_app(page)
    table = page.get_by_test_id("stDataFrame").first
    table.hover()
    toolbar = page.get_by_test_id("stElementToolbar").first
    expect(toolbar).to_be_visible()
    bar = toolbar.bounding_box()
    above = table.locator("xpath=ancestor::*[@data-testid='stElementContainer'][1]/preceding-sibling::*[1]")
    box = above.bounding_box()
    assert bar is not None and box is not None
    assert box["y"] + box["height"] <= bar["y"] + 1, (box, bar)  # the element above ends where the toolbar begins
