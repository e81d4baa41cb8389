"""The contestant's path in every game, in chromium: home → My bot → its first fault in two clicks on a phone for a
Kakomimasu and a CHaser bot (the header stacked full width: the picker's options and the button's words whole), and
the CHaser event list keeping the highlighted action inside a laptop's window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.conftest import REPO, SAMPLE, ingest, query
from tests.e2e.conftest import screenshot, serve, wait_for_app

FIRST = """
    select p.player_name, m.match_id, f.seq from players p join matches m using (match_id)
    join (select match_id, player, seq from violations where severity in ('error', 'warning') and player is not null) f
      on f.match_id = p.match_id and f.player = p.player_code
    where m.game = ? order by f.seq limit 1"""


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    db: Path = tmp_path_factory.mktemp("e2e-path-games") / "kifu.duckdb"
    ingest(db, SAMPLE, REPO / "tests" / "data" / "kakomimasu", REPO / "tests" / "data" / "chaser")
    with serve(db) as url:
        yield url, db


@pytest.mark.parametrize(("game", "page_path", "param", "words"), [
    ("kakomimasu", "/kakomimasu_board", "turn", "Kakomimasu"), ("chaser", "/chaser_board", "event", "CHaser")])  # fmt: skip
def test_phone_home_to_a_bots_first_fault_in_two_picks(page: Any, three: tuple[str, Path], game: str, page_path: str,
                                                       param: str, words: str) -> None:  # fmt: skip
    url, db = three
    name, match, seq = query(db, FIRST, [game])[0]
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{url}/?lang=en")
    wait_for_app(page)
    main = page.get_by_test_id("stMain")
    picker = main.get_by_role("combobox", name="My bot")
    box = picker.bounding_box()
    assert box["width"] >= 300, box  # the header stacked: the picker the column's width
    button = main.get_by_role("button", name="Change match")
    assert button.evaluate("b => b.scrollWidth <= b.clientWidth + 1")  # its words whole, not "Chang…"
    picker.click()
    option = page.get_by_role("option", name=f"{name} · {words}")
    expect(option).to_be_visible()
    whole = """o => { const t = o.firstElementChild || o;
                       return t.scrollWidth <= t.clientWidth + 1 && t.scrollHeight <= t.clientHeight + 1; }"""
    assert option.evaluate(whole)  # the option's text whole (on two lines), the longest UNO ones too
    assert all(o.evaluate(whole) for o in page.get_by_role("option").all()), [
        o.inner_text() for o in page.get_by_role("option").all() if not o.evaluate(whole)]  # fmt: skip
    option.click()  # the first pick
    wait_for_app(page)
    link = main.get_by_role("link", name="Replay its first fault")
    expect(link).to_be_visible()
    link.click()  # the second
    wait_for_app(page)
    page.wait_for_url(lambda u: urlparse(u).path.endswith(page_path), timeout=30_000)
    params = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert params["match"] == match and params[param] == str(seq) and params["bot"] == name
    expect(page.locator(".kr")).to_have_attribute("data-seq", str(seq), timeout=30_000)
    screenshot(page, f"path-{game}-phone")


def test_the_highlighted_chaser_action_is_inside_a_laptops_window(page: Any, three: tuple[str, Path]) -> None:
    url, db = three
    name, match, seq = query(db, FIRST, ["chaser"])[0]
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{url}/chaser_board?lang=en&match={match}&bot={name}&event={seq}")
    wait_for_app(page)
    expect(page.locator(".kr")).to_have_attribute("data-seq", str(seq), timeout=30_000)
    current = page.locator(".kr-list li.current")
    expect(current).to_have_count(1)
    page.wait_for_timeout(300)  # the list is scrolled once laid out (next animation frame)
    box = current.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900, box
    screenshot(page, "chaser-current-in-window")


def test_a_hand_of_one_card_says_1_card(page: Any, three: tuple[str, Path]) -> None:
    url, db = three
    match = query(db, "select match_id from matches where game = 'algori-uno' limit 1")[0][0]
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{url}/round_browser?lang=en&match={match}&round=1")
    wait_for_app(page)
    expect(page.locator(".ut")).to_be_visible(timeout=30_000)
    page.locator(".kr").focus()
    page.keyboard.press("End")  # the round's end: its winner held one card just before
    metas: list[str] = []
    for _ in range(60):
        metas = page.locator(".ut-meta").all_inner_texts()
        if any(m.startswith("1 card ") or m == "1 card" for m in metas):
            break
        page.keyboard.press("ArrowLeft")
    assert any(m.startswith("1 card") for m in metas), metas
    assert not any(m.startswith("1 cards") for m in metas), metas
