"""A match being played, in chromium: `kifu serve` on a database a watcher writes while a recorded 300-round
match is written into the file it follows (×6 its recorded pace, ``tests/e2e/live.py``).

The Matches page marks the match live and its events count grows with no reload; the replayer, following
it, shows the newest event by itself (phone and desktop, English and Japanese) and stops following when the
user steps back.  No page ever shows an exception or "being updated".
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import fixture_path
from tests.e2e.conftest import screenshot, serve, wait_for_app
from tests.e2e.live import LivePlay

#: These tests hold a page or a watcher to the clock: `make test` runs them after the others, alone.
pytestmark = pytest.mark.alone

MARK = {"en": "● live", "ja": "● 対戦中"}
FOLLOW_LINK = {"en": "Follow it in the replayer", "ja": "リプレイヤで追う"}
FOLLOW = {"en": "Follow live", "ja": "ライブを追う"}
SIZES = {"phone": (390, 844), "desktop": (1440, 900)}
EVENTS = re.compile(r"([\d,]+) (?:events|イベント)")


@pytest.fixture(scope="module")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, LivePlay]]:
    d = tmp_path_factory.mktemp("e2e-live")
    play = LivePlay(d / "kifu.duckdb", d / "dealer.log", fixture_path("demo4_skipbind2_300"), speed=6).start()
    try:
        play.wait_events(200)  # the database exists (`kifu serve` refuses one that does not)
        with serve(d / "kifu.duckdb") as url:
            yield url, play
    finally:
        play.stop()
    assert not play.errors, play.errors


def _clean(page: Any) -> None:
    """No exception and no "being updated" on the page, ever."""
    assert page.get_by_test_id("stException").count() == 0
    body = page.locator("[data-testid='stMain']").inner_text()
    assert "being updated" not in body and "更新中" not in body, body[:300]


def _grows(page: Any, read: Any, times: int = 2, timeout: float = 30) -> list[int]:
    """Values read from the page until they grew ``times`` times (no reload, no click)."""
    seen = [read()]
    deadline = time.monotonic() + timeout
    while len(set(seen)) <= times:
        assert time.monotonic() < deadline, f"did not grow {times} times in {timeout} s: {seen}"
        page.wait_for_timeout(400)
        _clean(page)
        value = read()
        assert value >= seen[-1], seen + [value]
        seen.append(value)
    return seen


def _matches_live(page: Any, url: str, play: LivePlay, lang: str) -> Any:
    """The Matches page opened while the recorded match is replayed, its live strip marked live: the strip."""
    assert play.replaying(), "the recorded match ended before the test"
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{url}/?lang={lang}")
    wait_for_app(page)
    strip = page.locator(".st-key-matches-live")
    expect(strip).to_contain_text(MARK[lang], timeout=30_000)
    return strip


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_matches_marks_the_match_live_and_updates_itself(page: Any, live_app: tuple[str, LivePlay], lang: str) -> None:
    url, play = live_app
    strip = _matches_live(page, url, play, lang)

    def events() -> int:
        found = EVENTS.findall(strip.inner_text())
        assert found, strip.inner_text()
        return int(found[0].replace(",", ""))

    _grows(page, events)
    screenshot(page, f"live-matches-{lang}")


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_replayer_follows_the_newest_event(page: Any, live_app: tuple[str, LivePlay], size: str, lang: str) -> None:
    url, play = live_app
    assert play.replaying(), "the recorded match ended before the test"
    page.set_viewport_size(dict(zip(("width", "height"), SIZES[size], strict=True)))
    page.goto(f"{url}/?lang={lang}")
    wait_for_app(page)
    page.get_by_role("link", name=FOLLOW_LINK[lang]).click()  # the Matches page's link: ?follow=1
    box = page.locator(".kr")
    expect(box).to_have_attribute("data-follow", "on", timeout=30_000)
    expect(page.locator(".kr-follow")).to_be_visible()

    def seq() -> int:
        return int(box.get_attribute("data-seq"))

    _grows(page, seq)
    screenshot(page, f"live-replayer-{size}-{lang}")
    expect(page.locator(".kr-next")).to_be_disabled()  # the newest event shows: the replayer sits on its last event
    _clean(page)


@pytest.mark.xfail(strict=False, reason="known race (docs/dashboard.md, follow mode): under load a refresh, or a stale "
                   "rerun of the round picker, can cross the step back's report; the page then switches following "
                   "off on a later event than the one stepped to")  # fmt: skip
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_step_back_stops_following_where_the_user_is(page: Any, live_app: tuple[str, LivePlay], lang: str) -> None:
    url, play = live_app
    assert play.replaying(), "the recorded match ended before the test"
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{url}/?lang={lang}")
    wait_for_app(page)
    page.get_by_role("link", name=FOLLOW_LINK[lang]).click()
    box = page.locator(".kr").last
    expect(box).to_have_attribute("data-follow", "on", timeout=30_000)

    def seq() -> int:
        return int(box.get_attribute("data-seq"))

    _grows(page, seq)
    before = seq()
    page.locator(".kr-back").last.click()
    expect(box).to_have_attribute("data-follow", "paused")
    assert seq() < before  # the step back shows at once, and following stops there
    page.wait_for_timeout(2000)
    stayed = seq()
    page.wait_for_timeout(3000)  # the match goes on; the page no longer follows it
    assert seq() == stayed
    assert play.events() > stayed
    _clean(page)


#: Element containers of the Matches page that are stale (being redrawn) outside its live parts (the strip and the
#: match shown while it is played), and any element faded by Streamlit's stale style anywhere in the main area.
STALE = """() => {
  const main = document.querySelector("[data-testid='stMain']");
  const live = ".st-key-matches-live, .st-key-matches-detail";
  let outside = 0, faded = 0;
  for (const el of main.querySelectorAll("[data-testid='stElementContainer']")) {
    if (el.getAttribute("data-stale") === "true" && !el.closest(live)) outside += 1;
    if (parseFloat(getComputedStyle(el).opacity) < 0.99) faded += 1;
  }
  return [outside, faded];
}"""


def test_matches_refreshes_only_its_live_parts(page: Any, live_app: tuple[str, LivePlay]) -> None:
    """While the watcher writes, only the live strip (and the match shown, when it is the live one) refresh:
    the rest of the page — the intro, every game's table — is never redrawn, and nothing fades to grey."""
    url, play = live_app
    strip = _matches_live(page, url, play, "en")
    expect(page.locator(".st-key-matches-tables [data-testid='stDataFrame']").first).to_be_visible()

    def events() -> int:
        found = EVENTS.findall(strip.inner_text())
        return int(found[0].replace(",", "")) if found else 0

    first, outside, faded, samples = events(), 0, 0, 0
    start = time.monotonic()  # 12 s of refreshes (a loaded machine samples slowly: up to 30 s for 10 samples)
    while time.monotonic() - start < 12 or (samples < 10 and time.monotonic() - start < 30):
        o, f = page.evaluate(STALE)
        outside, faded, samples = outside + o, faded + f, samples + 1
        page.wait_for_timeout(150)
    _clean(page)
    assert events() > first, "the live strip did not refresh while the watcher wrote"
    assert samples >= 5 and outside == 0 and faded == 0, (samples, outside, faded)
    screenshot(page, "live-matches-parts")
