"""The analysis board's keys in chromium: markers, next/previous penalty and finding, Space, the "?" help,
the graph, the playable cards, think time and stepping on into the next round (and back)."""

from __future__ import annotations

from typing import Any

import duckdb
from playwright.sync_api import expect

from tests.e2e.conftest import served_db_path, wait_for_app


def _seq(page: Any) -> int:
    return int(page.locator(".kr").get_attribute("data-seq"))


def test_board_keys_markers_graph_and_rounds(page: Any, app_url: str) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{app_url}/round_browser?round=5&event=649")
    wait_for_app(page)
    board = page.locator(".kr")
    expect(board).to_have_attribute("data-seq", "649")
    # markers on the slider, every kind, with a legend
    expect(board).to_have_attribute("data-marks", "finding penalty refused")
    assert page.locator(".kr-marks .kr-mark.penalty").count() >= 1
    expect(page.locator(".kr-legend-item")).to_have_count(3)
    # p / P: next and previous penalty; f: next finding; r: next refused action
    page.keyboard.press("p")
    expect(board).to_have_attribute("data-seq", "650")
    page.keyboard.press("P")
    assert _seq(page) < 649
    page.keyboard.press("r")
    expect(board).to_have_attribute("data-seq", "649")
    page.keyboard.press("f")
    assert _seq(page) > 649
    # ? opens the help listing the keys; Escape closes it
    page.keyboard.press("?")
    expect(page.locator(".kr-help")).to_be_visible()
    expect(page.locator(".kr-help kbd")).to_have_count(12)
    page.keyboard.press("Escape")
    expect(page.locator(".kr-help")).to_be_hidden()
    # Space plays and pauses
    page.keyboard.press(" ")
    expect(board).to_have_attribute("data-playing", "1")
    page.keyboard.press(" ")
    expect(board).to_have_attribute("data-playing", "0")
    # the graph: one line per player, a click jumps (its left edge: the round's first event)
    expect(page.locator(".kr-graph polyline")).to_have_count(4)
    svg = page.locator(".kr-graph-svg")
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    page.mouse.click(box["x"] + 0.2, box["y"] + box["height"] / 2)
    first = int(page.locator(".kr-list li").first.get_attribute("data-seq"))
    expect(board).to_have_attribute("data-seq", str(first))
    # the player to act: their playable cards marked; an action: its think time
    page.keyboard.press("ArrowRight")
    expect(page.locator(".ut-seat.to-act .kc.playable").first).to_be_visible()
    page.keyboard.press("ArrowRight")
    expect(page.locator(".kr-think")).to_contain_text(" s")
    # past the round's last event: round 6 (its first event); back past the first: round 5's last
    page.keyboard.press("End")
    page.keyboard.press("ArrowRight")
    page.wait_for_url(lambda u: "round=6" in u, timeout=15_000)
    wait_for_app(page)
    expect(page.locator(".kr-title")).to_have_count(1)  # a rerun may briefly show the old board beside the new
    expect(page.locator(".kr-title")).to_contain_text("Round 6 · before the first turn")
    page.locator(".kr").focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(lambda u: "round=5" in u, timeout=15_000)
    wait_for_app(page)
    expect(page.locator(".kr-title")).to_have_count(1)
    expect(page.locator(".kr-title")).to_contain_text("Round 5")
    last = int(page.locator(".kr-list li").last.get_attribute("data-seq"))
    expect(page.locator(".kr")).to_have_attribute("data-seq", str(last))
    # p with no penalty left in the round: the next round that has one, at its first penalty
    con = duckdb.connect(str(served_db_path()), read_only=True)
    after = con.execute("select round_no, min(seq) from events where event = 'penalty' and round_no > 5 "
                        "group by round_no order by round_no limit 1").fetchone()  # fmt: skip
    con.close()
    page.keyboard.press("p")
    page.wait_for_url(lambda u: f"round={after[0]}&" in u, timeout=15_000)
    wait_for_app(page)
    expect(page.locator(".kr-title")).to_have_count(1)
    expect(page.locator(".kr")).to_have_attribute("data-seq", str(after[1]))
    assert not errors, errors
