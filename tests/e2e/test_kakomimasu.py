"""The Kakomimasu board in chromium: stepping turns with keys, actions drawn, deep links, both games served."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import REPO, SAMPLE, ingest
from tests.e2e.conftest import screenshot, serve, wait_for_app

DATA = REPO / "tests" / "data" / "kakomimasu"
GAME08 = "kakomimasu:d8242f4e-4a76-4a19-b49f-082b56072c08"


@pytest.fixture(scope="module")
def mixed_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("e2e-km") / "kifu.duckdb"
    ingest(db, SAMPLE, DATA)
    with serve(db) as url:
        yield url


def _turn(page: Any) -> int:
    return int(page.locator(".kr").get_attribute("data-seq"))


def test_board_steps_through_turns_with_actions_drawn(page: Any, mixed_url: str) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{mixed_url}/kakomimasu_board?match={GAME08}&turn=40")
    wait_for_app(page)
    expect(page.locator(".km-field")).to_be_visible()
    assert _turn(page) == 40
    assert page.locator(".km-cell").count() == 400  # a 20×20 field
    assert page.locator(".km-agent").count() == 16  # 8 agents per team, all placed by turn 40
    assert page.locator(".km-act").count() > 0 and page.locator(".km-act.failed").count() > 0
    failed = page.locator(".km-actions li.failed").first.text_content()
    assert "—" in failed  # the reason is printed with the action
    page.keyboard.press("ArrowRight")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "41")
    page.keyboard.press("Home")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "0")
    assert page.locator(".km-agent").count() == 0 and page.locator(".km-wall").count() == 0
    page.keyboard.press("End")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "60")
    totals = page.locator(".km-score td.total").all_text_contents()
    assert totals == ["21", "2584"]
    # the turn reaches the URL (a link to share)
    page.wait_for_url(lambda u: "turn=60" in u, timeout=10_000)
    screenshot(page, "kakomimasu-board")


def test_one_team_only(page: Any, mixed_url: str) -> None:
    page.goto(f"{mixed_url}/kakomimasu_board?match={GAME08}&turn=10")
    wait_for_app(page)
    expect(page.locator(".km-field")).to_be_visible()
    both = page.locator(".km-actions li").count()
    page.locator(".kr-view").select_option("a3")
    only = page.locator(".km-actions li").count()
    assert 0 < only < both
    assert set(page.locator(".km-act").evaluate_all("els => els.map(e => e.dataset.p)")) == {"1"}


def test_both_games_in_one_dashboard(page: Any, mixed_url: str) -> None:
    page.goto(mixed_url)
    wait_for_app(page)
    nav = page.locator("[data-testid='stSidebarNav']")
    expect(nav.get_by_text("Kakomimasu board")).to_be_visible()
    expect(nav.get_by_text("Round replayer")).to_be_visible()
    nav.get_by_text("Round replayer").click()
    wait_for_app(page)
    expect(page.locator(".kr-board .ut")).to_be_visible()  # the card table still renders


def test_board_uses_the_width_it_has_and_needs_no_hover(page: Any, mixed_url: str) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{mixed_url}/kakomimasu_board?match={GAME08}&turn=40")
    wait_for_app(page)
    expect(page.locator(".km-field")).to_be_visible()
    column = page.get_by_test_id("stMainBlockContainer").evaluate(
        "e => { const s = getComputedStyle(e); return e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight); }")
    field = page.locator(".km-field").bounding_box()
    assert field["width"] >= 0.6 * column, (field, column)
    assert abs(field["width"] - field["height"]) < 2  # square cells on a square field
    cell = page.locator(".km-cell[data-x='3'][data-y='3'] rect").first.bounding_box()
    assert abs(cell["width"] - cell["height"]) < 1
    expect(page.locator(".km-legend")).to_be_visible()  # what the drawing means, without hovering
    # a click (a tap on a phone) tells the cell in words, and it stays chosen while stepping
    page.locator(".km-cell[data-x='3'][data-y='3']").click(force=True)
    expect(page.locator(".km-detail")).to_contain_text("(3, 3)")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "41")
    expect(page.locator(".km-detail")).to_contain_text("(3, 3)")
    screenshot(page, "kakomimasu-board-wide")


def test_link_to_a_turn_that_does_not_exist(page: Any, mixed_url: str) -> None:
    page.goto(f"{mixed_url}/kakomimasu_board?match={GAME08}&turn=999")
    wait_for_app(page)
    expect(page.get_by_test_id("stAlert")).to_contain_text("has no turn 999")  # said, and nothing else shown
    expect(page.get_by_test_id("stAlert")).to_contain_text("names nothing to show")
    expect(page.locator(".kr")).to_have_count(0)  # not another turn's board in its place


def test_phone_zooms_the_field_in_its_own_box_and_shows_findings_whole(page: Any, mixed_url: str) -> None:
    """390×844: the 20×20 field fits the column (18 px cells); "+" zooms it to readable cells that scroll sideways
    inside the field's box, never the page; the zoom stays while stepping; the findings are whole, the ones past
    the first two behind "+N more"."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{mixed_url}/kakomimasu_board?match={GAME08}&turn=40")
    wait_for_app(page)
    expect(page.locator(".km-field")).to_be_visible()
    fit = page.locator(".km-cell[data-x='3'][data-y='3'] rect").first.bounding_box()["width"]
    assert fit < 20  # a phone's column: 18 px a cell, numbers too small to read
    findings = page.locator(".kr-findings li:not(.kr-more-row)")
    n = findings.count()
    assert n > 2  # turn 40 has several findings
    box = page.locator(".kr-findings").bounding_box()
    for i in range(2):  # the first two whole, inside the box, above the controls
        li = findings.nth(i).bounding_box()
        assert li["y"] >= box["y"] - 1 and li["y"] + li["height"] <= box["y"] + box["height"] + 1
    assert box["y"] + box["height"] <= page.locator(".kr-controls").bounding_box()["y"]
    assert not findings.nth(2).is_visible()
    more = page.locator(".kr-more")
    expect(more).to_have_text(f"+{n - 2} more findings")
    more.click()
    expect(findings.nth(n - 1)).to_be_visible()
    more.click()
    assert not findings.nth(2).is_visible()
    plus = page.locator(".km-zoom-btn[data-zoom='+1']")
    plus.click()
    plus.click()
    expect(page.locator(".km-zoom-level")).to_have_text("200%")
    cell = page.locator(".km-cell[data-x='3'][data-y='3'] rect").first.bounding_box()["width"]
    assert cell >= 1.9 * fit and cell >= 32
    number = page.locator(".km-pt").first.bounding_box()["height"]
    assert number >= 11  # a number one can read (7 px at the column's width)
    scroll = page.locator(".km-scroll").evaluate("s => [s.scrollWidth, s.clientWidth]")
    assert scroll[0] > 1.8 * scroll[1]  # the field scrolls inside its box...
    widths = page.evaluate("""() => { const main = document.querySelector("[data-testid='stMain']");
        return [document.documentElement.scrollWidth, window.innerWidth, main.scrollWidth, main.clientWidth]; }""")
    assert widths[0] <= widths[1] and widths[2] <= widths[3]  # ...and the page never sideways
    page.locator(".km-scroll").evaluate("s => { s.scrollLeft = 200; }")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "41")
    expect(page.locator(".km-zoom-level")).to_have_text("200%")  # kept while stepping, and where it was scrolled
    assert abs(page.locator(".km-scroll").evaluate("s => s.scrollLeft") - 200) <= 2
    screenshot(page, "kakomimasu-board-phone-zoomed")
    page.locator(".km-zoom-btn[data-zoom='0']").click()
    expect(page.locator(".km-zoom-level")).to_have_text("100%")
    assert page.locator(".km-scroll").evaluate("s => s.scrollWidth <= s.clientWidth + 1")
