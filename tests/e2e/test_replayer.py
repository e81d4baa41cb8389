"""The round replayer in chromium: keys, autoplay, deep links both ways, refused moves, layout, languages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, wait_for_app

ROUND5 = "round_browser?round=5&seq=649"  # Misbehaver's refused blue 5 (seq 649) and its penalty (seq 650)


def _seq(page: Any) -> int:
    return int(page.locator(".kr").get_attribute("data-seq"))


def _open(page: Any, url: str, path: str) -> None:
    page.goto(f"{url}/{path}")
    wait_for_app(page)
    expect(page.locator(".kr-board .ut")).to_be_visible()


def test_keys_step_home_end_and_the_list(page: Any, app_url: str) -> None:
    _open(page, app_url, ROUND5)
    assert _seq(page) == 649
    page.keyboard.press("ArrowRight")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "650")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "648")
    page.keyboard.press("End")
    last = _seq(page)
    assert last > 650 and page.locator(".kr-next").is_disabled()
    page.keyboard.press("Home")
    assert _seq(page) < 649 and page.locator(".kr-back").is_disabled()
    item = page.locator(".kr-list li").nth(10)
    item.click()
    expect(page.locator(".kr-list li.current")).to_have_attribute("data-seq", item.get_attribute("data-seq"))
    assert _seq(page) == int(item.get_attribute("data-seq"))
    expect(page.locator(".kr-list li.current")).to_be_in_viewport()


def test_autoplay_runs_and_stops(page: Any, app_url: str) -> None:
    _open(page, app_url, "round_browser?round=2")
    start = _seq(page)
    page.locator(".kr-speed").select_option("8")
    page.locator(".kr-play").click()
    expect(page.locator(".kr")).to_have_attribute("data-playing", "1")
    page.wait_for_timeout(700)
    page.locator(".kr-play").click()
    expect(page.locator(".kr")).to_have_attribute("data-playing", "0")
    stopped = _seq(page)
    assert stopped > start
    page.wait_for_timeout(300)
    assert _seq(page) == stopped
    # the place where autoplay stopped reaches the URL
    page.wait_for_url(lambda u: f"event={stopped}" in u, timeout=10_000)


def test_deep_links_both_ways(page: Any, app_url: str) -> None:
    _open(page, app_url, "round_browser?round=7&seq=1000")
    assert _seq(page) == 1000
    expect(page.locator(".kr-title")).to_have_count(1)  # a rerun may briefly show the old component beside the new
    expect(page.locator(".kr-title")).to_contain_text("Round 7")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_url(lambda u: "event=1002" in u and "round=7" in u, timeout=10_000)
    wait_for_app(page)
    assert _seq(page) == 1002  # the rerun after the report does not move the board
    url = page.url
    page.goto("about:blank")
    page.goto(url)  # reload / share: the same event
    wait_for_app(page)
    expect(page.locator(".kr")).to_have_attribute("data-seq", "1002")
    # previous / next round keep working from the page
    page.get_by_test_id("stButton").filter(has_text="▶").first.click()
    wait_for_app(page)
    expect(page.locator(".kr-title").filter(has_text="Round 8")).to_have_count(1)
    expect(page.locator(".kr-title")).to_have_count(1)


def test_refused_move_and_penalty_cards(page: Any, app_url: str) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    _open(page, app_url, ROUND5)
    expect(page.locator(".kr-sentence")).to_contain_text("Misbehaver tries to play blue 5 — refused:")
    expect(page.locator(".kr-sentence")).to_have_class("kr-sentence refused")
    expect(page.locator(".ut-seat.actor .kc.crossed")).to_have_count(1)
    expect(page.locator(".kr-findings li.error")).to_contain_text("card-legal-on-top")
    screenshot(page, "replayer_refused")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".ut-seat[data-player='P-00000006'] .kc.penalty")).to_have_count(2)
    expect(page.locator(".kr-findings")).to_contain_text("Misbehaver")
    screenshot(page, "replayer_penalty")


def test_fits_a_laptop_screen(page: Any, app_url: str) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    _open(page, app_url, ROUND5)
    for sel in (".kr-head", ".kr-controls", ".kr-board .ut", ".kr-list li.current"):
        box = page.locator(sel).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900, (sel, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= 1440, (sel, box)
    screenshot(page, "replayer_1440x900")


def test_phone_back_next_on_one_row_above_the_board(page: Any, app_url: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    _open(page, app_url, ROUND5)
    for _ in range(20):  # measure once the component has laid itself out at the new width
        back, nxt = page.locator(".kr-back").bounding_box(), page.locator(".kr-next").bounding_box()
        if abs(back["y"] - nxt["y"]) < 2:
            break
        page.wait_for_timeout(250)
    board = page.locator(".kr-board .ut").bounding_box()
    assert abs(back["y"] - nxt["y"]) < 2  # one row
    assert back["y"] + back["height"] <= board["y"] < 844  # directly above the board, on the first screen
    assert board["y"] - (back["y"] + back["height"]) < 40
    screenshot(page, "replayer_phone")


def test_language_switch(page: Any, app_url: str) -> None:
    _open(page, app_url, ROUND5)
    page.get_by_test_id("stSidebar").get_by_text("日本語", exact=True).click()
    wait_for_app(page)
    expect(page.locator(".kr-sentence")).to_contain_text("しようとしたが拒否された")
    expect(page.get_by_test_id("stHeading").first).to_contain_text("対戦リプレイヤー")
    expect(page.locator(".kr")).to_have_attribute("data-seq", "649")  # the place is kept
    assert "lang=ja" in page.url
    screenshot(page, "replayer_ja")
    page.get_by_test_id("stSidebar").get_by_text("English", exact=True).click()
    wait_for_app(page)
    expect(page.locator(".kr-sentence")).to_contain_text("tries to play")


def test_japanese_browser_gets_japanese(browser: Any, app_url: str) -> None:
    context = browser.new_context(locale="ja-JP")
    page = context.new_page()
    page.goto(app_url)
    wait_for_app(page)
    expect(page.get_by_test_id("stHeading").first).to_contain_text("試合")
    context.close()


def _click_row(page: Any, table: Any, row: int) -> None:
    """Select a row of an st.dataframe (a canvas grid): click its row marker."""
    box = table.bounding_box()
    page.mouse.click(box["x"] + 14, box["y"] + 35 * (row + 1) + 17)


def test_worst_round_of_a_bot_in_three_clicks(page: Any, app_url: str) -> None:
    """Matches → the bot's row → its worst round's row: the replayer at that round's first penalty."""
    import duckdb

    from tests.e2e.conftest import served_db_path

    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(app_url)
    wait_for_app(page)
    clicks = 0
    players = page.get_by_test_id("stDataFrame").nth(1)
    _click_row(page, players, 3)  # Misbehaver, ranked 4th
    clicks += 1
    page.wait_for_url(lambda u: "/player_rounds" in u, timeout=15_000)
    wait_for_app(page)
    _click_row(page, page.get_by_test_id("stDataFrame").first, 0)  # worst round first
    clicks += 1
    page.wait_for_url(lambda u: "/round_browser" in u, timeout=15_000)
    wait_for_app(page)
    expect(page.locator(".kr-board .ut")).to_be_visible()
    con = duckdb.connect(str(served_db_path()), read_only=True)
    worst = con.execute("""select round_no, count(*) n, min(seq) from penalties where player = 'P-00000006'
                           group by 1 order by n desc, round_no limit 1""").fetchone()
    con.close()
    assert clicks <= 3
    expect(page.locator(".kr-title")).to_contain_text(f"Round {worst[0]} ")
    assert _seq(page) <= worst[2]
    assert page.locator(".kr-findings li").count() > 0 or "Penalty" in page.locator(".kr-event").inner_text()


def test_shared_html_files_open_without_a_server(page: Any, tmp_path: Any) -> None:
    """The downloaded round and match files replay from file:// with the network cut off."""
    import duckdb

    from app import frames, replayer
    from queries import dashboard as q
    from tests.e2e.conftest import served_db_path

    con = duckdb.connect(str(served_db_path()), read_only=True)
    match = q.match_list(con)["match_id"][0]
    names = q.player_names(con, match)
    rounds = [frames.round_from(con, match, r, names, {}) for r in range(1, 41)]
    con.close()
    one, whole = tmp_path / "round.html", tmp_path / "match.html"
    one.write_text(replayer.standalone_html(rounds[4], title="round 5"), encoding="utf-8")
    whole.write_text(replayer.standalone_html({"rounds": rounds}, title="match"), encoding="utf-8")
    assert "application/x-kifu-gzip-base64" in whole.read_text()  # a whole match travels compressed
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(one.as_uri())
    expect(page.locator(".kr-board .ut")).to_be_visible()
    first = _seq(page)
    page.keyboard.press("ArrowRight")
    assert _seq(page) > first
    page.goto(whole.as_uri())
    expect(page.locator(".kr-board .ut")).to_be_visible()
    page.locator("select").first.select_option(index=4)
    expect(page.locator(".kr-title")).to_contain_text("Round 5")
    assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
    screenshot(page, "shared_match_file")


# ---- the filter, phones, Japanese, hostile names


def test_arrow_keys_step_after_changing_the_filter(page: Any, app_url: str) -> None:
    """The Show filter is a select outside the replayer: after a change the arrows still step the replayer."""
    page.set_viewport_size({"width": 1440, "height": 900})
    _open(page, app_url, "round_browser?round=5&seq=600")
    every = page.locator(".kr-list li").count()
    page.get_by_role("combobox", name="Show", exact=True).click()
    page.get_by_role("option", name="events with findings").click()
    wait_for_app(page)
    for _ in range(40):  # the replayer has taken its new data
        if 0 < page.locator(".kr-list li").count() < every:
            break
        page.wait_for_timeout(250)
    items = [int(s) for s in page.locator(".kr-list li").evaluate_all("els => els.map(e => e.dataset.seq)")]
    at = _seq(page)
    assert at in items and items.index(at) + 1 < len(items)
    page.keyboard.press("ArrowRight")
    expect(page.locator(".kr")).to_have_attribute("data-seq", str(items[items.index(at) + 1]))
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".kr")).to_have_attribute("data-seq", str(at))


def test_phone_japanese_buttons_keep_their_words_on_one_line(browser: Any, app_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="ja-JP")
    page = context.new_page()
    _open(page, app_url, ROUND5 + "&lang=ja")
    expect(page.locator(".kr-back")).to_contain_text("戻る")
    page.wait_for_timeout(500)
    one_line = page.locator(".kr-first").bounding_box()["height"]  # "|◀": one line by construction
    for sel in (".kr-back", ".kr-next", ".kr-play"):
        box = page.locator(sel).bounding_box()
        assert box["height"] <= one_line + 2, (sel, box, one_line)  # "戻/る" on two lines would be ~20 px taller
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (sel, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "replayer_phone_ja")
    context.close()


LONG = "ＬｏｎｇＮａｍｅ" + "W" * 1500 + "長" * 1492  # 3,000 characters, half of them with no break opportunity


@pytest.fixture(scope="module")
def long_name_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    import duckdb

    from tests.conftest import SAMPLE, ingest
    from tests.e2e.conftest import serve

    db: Path = tmp_path_factory.mktemp("e2e-long") / "kifu.duckdb"
    ingest(db, SAMPLE)
    con = duckdb.connect(str(db))
    con.execute("update players set player_name = ? where player_code = 'P-00000006'", [LONG])  # Misbehaver
    con.close()
    with serve(db) as url:
        yield url, db


def _fits(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate("document.body.scrollWidth") <= width


def test_a_3000_character_name_does_not_widen_the_page(browser: Any, long_name_db: tuple[str, Path]) -> None:
    url, _db = long_name_db
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    _open(page, url, ROUND5)
    _fits(page, 390)
    who = page.locator(".ut-seat[data-player='P-00000006'] .kr-name")
    assert who.get_attribute("title") == LONG  # the whole name on hover …
    assert who.bounding_box()["height"] < 30  # … clipped to one line
    who.tap()  # … and on a tap (no hover on a phone)
    expect(who).to_have_class(re.compile(r"\bopen\b"))
    assert who.bounding_box()["height"] > 60
    _fits(page, 390)
    screenshot(page, "replayer_long_name_phone")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.wait_for_timeout(500)
    _fits(page, 1440)
    context.close()


def test_a_3000_character_name_in_the_downloaded_file(browser: Any, long_name_db: tuple[str, Path], tmp_path: Path) -> None:
    import duckdb

    from app import frames, i18n, replayer
    from queries import dashboard as q

    _url, db = long_name_db
    con = duckdb.connect(str(db), read_only=True)
    match = q.match_list(con)["match_id"][0]
    names = q.player_names(con, match)
    assert LONG in names.values()
    with i18n.using("ja"):
        rounds = [frames.round_from(con, match, r, names, {}) for r in (4, 5)]
    con.close()
    files = {"round": replayer.standalone_html(rounds[1], title="第 5 対戦", lang="ja"),
             "match": replayer.standalone_html({"rounds": rounds}, title="試合", lang="ja")}  # fmt: skip
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    for name, html in files.items():
        path = tmp_path / f"{name}.html"
        path.write_text(html, encoding="utf-8")
        page.goto(path.as_uri())
        expect(page.locator(".kr-board .ut")).to_be_visible()
        _fits(page, 390)
        who = page.locator(".ut-seat .kr-name", has_text="ＬｏｎｇＮａｍｅ")
        assert who.get_attribute("title") == LONG
        who.tap()
        expect(who).to_have_class(re.compile(r"\bopen\b"))
        _fits(page, 390)
        expect(page.locator(".kr-back")).to_contain_text("戻る")
    screenshot(page, "shared_file_long_name_phone")
    context.close()
