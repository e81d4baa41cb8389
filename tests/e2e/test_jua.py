"""The card table of JUA matches in chromium: 2, 4 and 10 seats laid out without overlap (desktop and phone), a
pair play as two cards, the draw stack and who must answer it, a challenge's outcome and the hand shown to the
challenger only (backs for anyone else)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import JUA_MATCHES, ingest, jua_sources, query
from tests.e2e.conftest import screenshot, serve, wait_for_app

SIZES = {"desktop": (1440, 900), "phone": (390, 844)}


@pytest.fixture(scope="module")
def jua(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """`kifu serve` on the JUA matches alone; their ids (by dealer) and the moments each holds."""
    from queries import connect
    from queries import dashboard as q

    d = tmp_path_factory.mktemp("e2e-jua")
    db = d / "kifu.duckdb"
    ingest(db, *jua_sources(d))
    ids = {str(dealer): str(m) for dealer, m in query(db, "select dealer_name, match_id from matches")}
    con = connect(db, read_only=True)
    moments = {dealer: q.jua_moments(con, m) for dealer, m in ids.items()}
    con.close()
    with serve(db) as url:
        yield {"url": url, "ids": ids, "moments": moments, "db": db}


def _open(page: Any, jua: dict[str, Any], dealer: str, round_no: int, seq: int | None = None, lang: str = "en") -> None:
    q = f"match={jua['ids'][dealer]}&round={round_no}&lang={lang}" + (f"&seq={seq}" if seq is not None else "")
    page.goto(f"{jua['url']}/round_browser?{q}")
    wait_for_app(page)
    expect(page.locator(".kr-board .ut")).to_be_visible()
    if seq is not None:
        expect(page.locator(".kr")).to_have_attribute("data-seq", str(seq))


def _overlaps(boxes: list[dict[str, float]]) -> list[tuple[int, int]]:
    out = []
    for i, a in enumerate(boxes):
        for j, b in enumerate(boxes[i + 1 :], i + 1):
            if a["x"] + a["width"] - 1 > b["x"] and b["x"] + b["width"] - 1 > a["x"] and \
                    a["y"] + a["height"] - 1 > b["y"] and b["y"] + b["height"] - 1 > a["y"]:  # fmt: skip
                out.append((i, j))
    return out


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize(("dealer", "seats"), [(d, n) for d, n, *_ in JUA_MATCHES])
def test_every_seat_has_its_own_place(page: Any, jua: dict[str, Any], dealer: str, seats: int, size: str) -> None:
    page.set_viewport_size(dict(zip(("width", "height"), SIZES[size], strict=True)))
    _open(page, jua, dealer, 1)
    expect(page.locator(".ut-seat")).to_have_count(seats)
    page.wait_for_timeout(300)
    boxes = [page.locator(".ut-seat").nth(i).bounding_box() for i in range(seats)]
    boxes.append(page.locator(".ut-center").bounding_box())
    board = page.locator(".kr-board").bounding_box()
    assert not _overlaps(boxes), _overlaps(boxes)
    assert all(b["x"] >= board["x"] - 1 and b["x"] + b["width"] <= board["x"] + board["width"] + 1 for b in boxes)
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    screenshot(page, f"jua-{dealer}-{size}")


def test_pair_stack_and_challenge_on_the_table(page: Any, jua: dict[str, Any]) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    m = jua["moments"]["jua-10p"]
    # a pair play: both cards in the centre, and the sentence
    _open(page, jua, "jua-10p", *m["pair"])
    expect(page.locator(".ut-pair .kc")).to_have_count(2)
    expect(page.locator(".kr-sentence")).to_contain_text(" plays a pair: ")
    # the biggest stack handed to a player: its cards added up, who must answer, the badge on that seat
    _open(page, jua, "jua-10p", *m["stack"])
    stack = page.locator(".ut-stack").inner_text()
    assert stack.startswith("draw stack +") and " = " in stack, stack
    total = int(stack.rsplit("= ", 1)[1])
    assert sum(int(x) for x in stack.split(" = ")[0].split()[2:]) == total
    expect(page.locator(".ut-answer")).to_contain_text(f"or draw {total}")
    expect(page.locator(".ut-seat.to-act .ut-badge.stack")).to_have_text(f"+{total}")
    # a challenge: who challenged whom, the verdict and what it cost
    _open(page, jua, "jua-10p", *m["challenge"])
    note = page.locator(".ut-note.challenge")
    expect(note).to_contain_text("challenges")
    expect(note.locator(".ut-verdict")).to_have_text(re_verdict())
    screenshot(page, "jua-challenge")


def re_verdict() -> Any:
    import re

    return re.compile(r"^(Success: the wild draw 4 was not allowed|Failure: the wild draw 4 was allowed)$")


def test_the_shown_hand_is_the_challengers_alone(page: Any, jua: dict[str, Any]) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    round_no, seq = jua["moments"]["jua-10p"]["challenge"]
    shown = query(jua["db"], "select seq, contents->>'player', contents->>'shown_to' from events where match_id = ? "
                  "and event = 'public-card' and seq < ? order by seq desc limit 1", [jua["ids"]["jua-10p"], seq])[0]  # fmt: skip
    _open(page, jua, "jua-10p", round_no, shown[0])
    note = page.locator(".ut-note.shown")
    expect(note).to_be_visible()
    n = note.locator(".kc").count()
    assert n > 0 and note.locator(".kc.back").count() == 0  # the organiser sees every hand
    view = page.locator(".kr-view")
    view.select_option(shown[2])  # the challenger sees the cards
    assert note.locator(".kc.back").count() == 0
    other = next(p for p in view.locator("option").evaluate_all("os => os.map(o => o.value)") if p not in ("", *shown[1:]))
    view.select_option(other)  # anyone else: backs, and who sees them
    expect(page.locator(".ut-note.shown .kc.back")).to_have_count(n)
    expect(page.locator(".ut-note.shown")).to_contain_text("only ")


def test_japanese_table_words(page: Any, jua: dict[str, Any]) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    _open(page, jua, "jua-10p", *jua["moments"]["jua-10p"]["stack"], lang="ja")
    expect(page.locator(".ut-stack")).to_contain_text("累積ドロー")
    expect(page.locator(".ut-answer")).to_contain_text("枚引く")
