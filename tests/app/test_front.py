"""The first screen and the shared pages on a database of all three games (AppTest), in English and Japanese:
Matches grouped by game with a click that opens a match, the sidebar's match picker, deep links that name
what they asked for, a sensible default match, per-game Players and Standings, unique column names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from app import i18n, ui
from tests.app.test_pages import App, table
from tests.conftest import query

FRONT = ["matches", "players", "standings"]


def first(db: Path, sql: str, *params: Any) -> Any:
    return query(db, sql, list(params))[0][0]


def newest(db: Path, game: str) -> str:
    return str(first(db, "select match_id from matches where game = ? order by started_at desc, match_id limit 1", game))


def worth_seeing(db: Path, game: str) -> str:
    """The match a page of ``game`` opens on with no bot chosen: the most faults (penalties, errors and warnings
    about a player), newest first among equals; none at all: the newest."""
    return str(first(db, """
        select m.match_id from matches m
        left join (select match_id, count(*) n from penalties group by 1) p using (match_id)
        left join (select match_id, count(*) n from violations where severity in ('error', 'warning') and player is not null
                   group by 1) v using (match_id)
        where m.game = ? order by coalesce(p.n, 0) + coalesce(v.n, 0) desc, m.started_at desc, m.match_id limit 1""", game))


def opened(db: Path, page: str, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    """A page opened from a link (its URL's query on the very first run, as a browser does)."""
    from tests.app.conftest import ENTRY

    monkeypatch.setenv("KIFU_DB", str(db))
    at = AppTest.from_file(ENTRY, default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    if page != "matches":  # the default page is the first run's
        at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def dup_columns(at: AppTest) -> list[list[str]]:
    return [list(df.value.columns) for df in at.dataframe if len(set(df.value.columns)) != len(df.value.columns)]


# ----------------------------------------------------------------------------- column names


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_column_names_are_told_apart_in_both_languages(lang: str) -> None:
    """Two different column names never translate to the same text (pandas refuses a table with duplicate columns)."""
    tr = i18n.translations(lang)
    seen: dict[str, str] = {}
    for english in sorted(set(ui.COLUMN_NAMES.values())):
        shown = tr.gettext(english)
        assert shown not in seen, f"{english!r} and {seen[shown]!r} both read {shown!r} in {lang}"
        seen[shown] = english


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("page", FRONT)
def test_front_pages_in_both_languages_on_every_game(app: App, mixed_db: Path, page: str, lang: str) -> None:
    i18n.MISSING.clear()
    at = app(mixed_db, page, lang=lang)
    assert not at.error and not dup_columns(at)
    assert not i18n.MISSING, sorted(i18n.MISSING)
    if page != "matches":  # every game's statistics, one after the other
        key = "pl.game" if page == "players" else "st.game"
        key = key if lang == "en" else f"{key}:{lang}"  # one key per language (ui.lkey)
        assert len(at.segmented_control(key=key).options) == 3
        for game in ("algori-uno", "kakomimasu", "chaser"):
            at.segmented_control(key=key).set_value(game).run()
            assert not at.exception, [e.value for e in at.exception]
            assert not at.error and not dup_columns(at) and at.dataframe
        assert not i18n.MISSING, sorted(i18n.MISSING)


# ----------------------------------------------------------------------------- Matches


def test_matches_first_screen_says_what_kifu_is_and_groups_by_game(app: App, mixed_db: Path) -> None:
    at = app(mixed_db, "matches")
    intro = next(m.value for m in at.markdown if "replays contest logs" in m.value)  # under the match named on top
    assert intro.startswith("**Kifu**")
    links = [el.proto.page for el in at.get("page_link")]
    assert links[:3] == ["app_pages/player_rounds.py", "app_pages/penalties.py", "app_pages/round_browser.py"] or \
        [p.split("/")[-1] for p in links[:3]] == ["player_rounds", "penalties", "round_browser"]  # fmt: skip
    headers = [h.value for h in at.header]
    assert [h.split(" · ")[0] for h in headers] == ["ALGORI UNO", "Kakomimasu", "CHaser"]
    counts = {g: first(mixed_db, "select count(*) from matches where game = ?", g) for g in ("algori-uno", "kakomimasu", "chaser")}
    for header, game in zip(headers, ("algori-uno", "kakomimasu", "chaser"), strict=True):  # English: 1 match, 2 matches
        assert header.endswith(f" · {counts[game]} {'match' if counts[game] == 1 else 'matches'}"), header
    uno = table(at, "Dealer", "Final scores")
    started = list(uno["Started"])
    assert started == sorted(started, reverse=True) and len(uno) == counts["algori-uno"]  # newest first
    # names, not player codes, in the final scores
    assert not any("P-0000" in s for s in uno["Final scores"])
    row = uno.set_index("Dealer").loc["misbehave-bind2-40"]
    assert row["Final scores"] == "Alternative 4 3088 · Alternative 3 1595 · JS Demo 724 · Misbehaver -5407"
    assert len(table(at, "Map", "How it ended")) == counts["chaser"]
    # the default match on a shared page: the ALGORI match with the most faults (no bot chosen), shown under its table
    assert at.query_params["match"] == first(mixed_db, "select match_id from penalties group by 1 order by count(*) desc limit 1")
    assert table(at, "Player", "Rank") is not None


@pytest.mark.parametrize(("game", "page"), [("kakomimasu", "Kakomimasu board"), ("chaser", "CHaser replay")])
def test_a_click_on_a_row_opens_the_match_on_its_game_page(app: App, mixed_db: Path, game: str, page: str) -> None:
    at = app(mixed_db, "matches")
    at.session_state[f"matches.table.{game}"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert at.title[0].value == page
    assert at.query_params["match"] == newest(mixed_db, game)


def test_a_click_on_an_algori_row_shows_it_below(app: App, mixed_db: Path) -> None:
    at = app(mixed_db, "matches")
    uno = table(at, "Dealer", "Final scores")
    pick = list(uno["Dealer"]).index("misbehave-bind2-40")
    at.session_state["matches.table.algori-uno"] = {"selection": {"rows": [pick], "columns": [], "cells": []}}
    at.run()
    assert at.title[0].value == "Matches"
    assert at.query_params["match"] == first(mixed_db, "select match_id from matches where dealer_name = 'misbehave-bind2-40'")
    assert list(table(at, "Player", "Rank")["Player"]) == ["Alternative 4", "Alternative 3", "JS Demo", "Misbehaver"]


# ----------------------------------------------------------------------------- sidebar, deep links, default match


def test_sidebar_picker_groups_by_game_with_labels_people_tell_apart(app: App, mixed_db: Path) -> None:
    at = app(mixed_db, "matches")
    game = at.sidebar.selectbox(key="filter.game")
    assert game.options == ["ALGORI UNO (7)", "Kakomimasu (13)", "CHaser (12)"] or len(game.options) == 3
    for code in ("algori-uno", "kakomimasu", "chaser"):
        at.sidebar.selectbox(key="filter.game").set_value(code).run()
        picker = at.sidebar.selectbox(key=ui.match_key(code))
        labels = picker.options
        assert len(labels) == first(mixed_db, "select count(*) from matches where game = ?", code)
        assert len(set(labels)) == len(labels)  # no two alike
        assert picker.value == worth_seeing(mixed_db, code)  # the one worth seeing: the most faults
        assert at.query_params["match"] == worth_seeing(mixed_db, code)


def test_a_link_to_no_match_says_so_and_shows_nothing_else(mixed_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for page in ("matches", "penalties", "round_browser"):
        at = opened(mixed_db, page, monkeypatch, match="no-such-match")
        assert "no-such-match" in at.error[0].value and "no match" in at.error[0].value
        assert not at.dataframe and not at.warning, page  # not another match in its place
        at.run()  # said once: the next run (a click in the sidebar) shows the match worth seeing
        assert not at.error and at.query_params["match"] == worth_seeing(mixed_db, "algori-uno")


def test_another_games_match_on_a_game_page_says_so(mixed_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    km = newest(mixed_db, "kakomimasu")
    at = opened(mixed_db, "penalties", monkeypatch, match=km)
    text = at.warning[0].value
    assert km in text and "Kakomimasu" in text and "ALGORI UNO" in text
    assert at.query_params["match"] == worth_seeing(mixed_db, "algori-uno")
    at = opened(mixed_db, "kakomimasu_board", monkeypatch, match=newest(mixed_db, "chaser"), lang="ja")
    assert "CHaser" in at.warning[0].value and "囲みマス" in at.warning[0].value
    assert at.sidebar.selectbox(key="filter.match.kakomimasu").value == worth_seeing(mixed_db, "kakomimasu")


def test_a_link_to_a_match_of_another_game_on_a_shared_page_opens_it(app: App, mixed_db: Path) -> None:
    ch = newest(mixed_db, "chaser")
    at = app(mixed_db, "matches", match=ch)
    assert not at.warning
    assert at.sidebar.selectbox(key="filter.game").value == "chaser"
    assert at.query_params["match"] == ch


def test_demo_database_opens_on_the_algori_sample(app: App, tmp_path: Path) -> None:
    from kifu.cli import SAMPLES
    from tests.conftest import ingest

    db = tmp_path / "demo.duckdb"
    for path in SAMPLES:  # the CHaser sample last: it is the newest start, yet ALGORI opens first
        ingest(db, path)
    at = app(db)
    assert at.query_params["match"] == newest(db, "algori-uno")
    at = app(db, "chaser_board")
    assert at.query_params["match"] == newest(db, "chaser")


# ----------------------------------------------------------------------------- Players, Standings


def test_players_keeps_each_games_statistics_apart(app: App, mixed_db: Path) -> None:
    at = app(mixed_db, "players")
    uno = table(at, "Player", "Win rate", "Penalties")
    assert "hunter_h" not in set(uno["Player"]) and "hanako" not in set(uno["Player"])  # ALGORI bots only
    assert str(uno["Rounds"].dtype) in ("Int64", "int32", "int64")  # counts as integers
    at.segmented_control(key="pl.game").set_value("chaser").run()
    bots = table(at, "Bot", "Games", "Wins").set_index("Bot")
    assert bots.loc["hunter_c", "Games"] == 1 and bots.loc["hunter_c", "Wins"] == 1
    assert bots.loc["hunter_c", "Win rate"] == 100  # shown as a percentage
    assert "Rounds" not in bots.columns
    at.segmented_control(key="pl.game").set_value("kakomimasu").run()
    km = table(at, "Player", "Games", "Points").set_index("Player")
    assert km.loc["short-a", "Wins"] == 1 and km.loc["short-a", "Points"] == 204


def test_standings_ranks_other_games_by_wins(app: App, mixed_db: Path) -> None:
    at = app(mixed_db, "standings")
    assert any("ALGORI matches only" in c.value for c in at.caption)
    at.segmented_control(key="st.game").set_value("chaser").run()
    rows = table(at, "Player", "Wins", "Draws")
    assert list(rows["Rank"]) == list(range(1, len(rows) + 1))
    assert list(rows["Wins"]) == sorted(rows["Wins"], reverse=True)
    assert any("no contest ranking" in c.value for c in at.caption)
    games = first(mixed_db, "select count(*) from matches where game = 'chaser'")
    assert rows["Games"].sum() == 2 * games  # every game of the stage, both bots
