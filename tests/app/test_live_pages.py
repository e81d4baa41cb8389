"""Matches being played: the live mark on the Matches page and the replayer's "Follow live".

A database holds a finished match (the sample) and one cut after 3,037 of its lines, with the
``live_matches`` row a watcher writes for it; a fake watcher (``queries.sharing.watching``: the lock a
``kifu watch`` holds) makes the row count.  Without it the same rows mean nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from queries import sharing as live
from tests.conftest import SAMPLE, fixture_path, ingest, read_lines, write_lines

App = Callable[..., AppTest]
CUT = 3037
MARK = {"en": "● live", "ja": "● 対戦中"}
FOLLOW = {"en": "Follow live", "ja": "ライブを追う"}


@pytest.fixture(scope="module")
def live_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """(database, the match being played, the finished one)."""
    d = tmp_path_factory.mktemp("live")
    db = d / "kifu.duckdb"
    lines = read_lines(fixture_path("demo4_bind2_60"))
    ingest(db, write_lines(d / "dealer.log", lines[:CUT]), SAMPLE)
    con = duckdb.connect(str(db))
    playing = con.execute("select match_id from matches where status = 'incomplete'").fetchone()[0]
    finished = con.execute("select match_id from matches where status = 'finished'").fetchone()[0]
    con.execute("insert into live_matches values (?, 'algori-uno', ?, 1, ?, now()::timestamp, now()::timestamp)",
                [playing, str(d / "dealer.log"), CUT])  # fmt: skip
    con.close()
    return db, playing, finished


@pytest.fixture
def watcher(live_db: tuple[Path, str, str]) -> Iterator[None]:
    with live.watching(live_db[0]):
        yield


def _status(at: AppTest) -> dict[str, str]:
    """Match id -> what the ALGORI table's status column says."""
    df = at.dataframe[0].value
    match_col, status_col = df.columns[-1], [c for c in df.columns if c in ("Status", "状態")][0]
    return dict(zip(df[match_col], df[status_col], strict=True))


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_matches_marks_the_match_being_played(app: App, live_db: tuple[Path, str, str], watcher: None, lang: str) -> None:
    db, playing, finished = live_db
    at = app(db, lang=lang)
    status = _status(at)
    assert status[playing] == MARK[lang]
    assert status[finished] == {"en": "finished", "ja": "終了"}[lang]
    strip = [t for t in _texts(at) if MARK[lang] in t]
    assert strip and f"{CUT:,}" in strip[0] and "demo4" in strip[0], strip  # how far it has come
    labels = [at.sidebar.selectbox[0].format_func(o) for o in at.sidebar.selectbox[0].options]
    assert [x for x in labels if x.startswith(MARK[lang])] and len([x for x in labels if MARK[lang] in x]) == 1


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_without_a_watcher_nothing_is_live(app: App, live_db: tuple[Path, str, str], lang: str) -> None:
    db, playing, _finished = live_db
    at = app(db, lang=lang, match=playing)
    assert MARK[lang] not in set(_status(at).values())
    assert not [t for t in _texts(at) if MARK[lang] in t]
    at.switch_page("app_pages/round_browser.py").run()
    assert not at.exception and not at.toggle


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_replayer_offers_follow_for_the_live_match_only(app: App, live_db: tuple[Path, str, str], watcher: None,
                                                            lang: str) -> None:  # fmt: skip
    db, playing, finished = live_db
    at = app(db, "round_browser", lang=lang, match=playing)
    assert [t.label for t in at.toggle] == [FOLLOW[lang]] and at.toggle[0].value is False
    at = app(db, "round_browser", lang=lang, match=finished)
    assert not at.toggle


def test_following_shows_the_newest_round_and_event_until_another_round_is_picked(
        app: App, live_db: tuple[Path, str, str], watcher: None) -> None:  # fmt: skip
    db, playing, _finished = live_db
    at = app(db, "round_browser", match=playing, round="3")
    assert at.query_params["round"] == "3"
    at.toggle[0].set_value(True).run()
    assert not at.exception and at.toggle[0].value is True
    con = duckdb.connect(str(db), read_only=True)
    newest = con.execute("select max(round_no) from events where match_id = ?", [playing]).fetchone()[0]
    con.close()
    assert at.selectbox(key="rb.round").value == newest
    assert at.query_params["round"] == str(newest) and at.query_params["event"] == str(CUT)
    assert at.query_params["follow"] == "1"
    assert any("Following the match" in t for t in _texts(at))
    at.selectbox(key="rb.round").set_value(5).run()  # the user looks back
    assert not at.exception and at.toggle[0].value is False and "follow" not in at.query_params
    assert at.query_params["round"] == "5"


def test_the_matches_page_link_follows_the_match(app: App, live_db: tuple[Path, str, str], watcher: None) -> None:
    db, playing, _finished = live_db
    at = app(db, "round_browser", match=playing, follow="1")
    assert at.toggle[0].value is True
    assert at.query_params["event"] == str(CUT)
