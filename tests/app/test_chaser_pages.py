"""CHaser pages (AppTest): the replay's data, the end explained, items over time, bots across games,
the shared Matches page, navigation, Japanese, hostile bot names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app import i18n
from tests.app.conftest import HOSTILE
from tests.app.test_pages import App, replay, table, values
from tests.conftest import REPO, SAMPLE, ingest, query

DATA = REPO / "tests" / "data" / "chaser"
CH_PAGES = {"chaser_board": "CHaser replay", "chaser_games": "CHaser games and bots"}


@pytest.fixture(scope="module")
def all_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("three") / "kifu.duckdb"
    ingest(db, SAMPLE, REPO / "tests" / "data" / "kakomimasu", DATA)
    return db


def match_of(db: Path, end_kind: str) -> str:
    return str(query(db, "select match_id from matches where end_kind = ?", [end_kind])[0][0])


def test_replay_steps_every_action(app: App, all_db: Path) -> None:
    match = match_of(all_db, "put-on")
    at = app(all_db, "chaser_board", match=match)
    assert at.title[0].value == "CHaser replay"
    assert at.subheader[0].value.replace("\\", "") == "hunter_c put a block on idle_h at turn 8"
    data = replay(at)
    assert data["game"] == "chaser" and data["map"] == {"w": 15, "h": 17}
    frames = data["frames"]
    assert len(frames) == 16  # the start, then 15 actions
    assert frames[0]["board"]["pos"] == [[7, 5], [7, 11]]
    last = frames[-1]
    assert last["label"] == "COOL PutRight →" and last["board"]["digits"] == last["board"]["replayed"]
    assert last["board"]["cells"][11 * 15 + 7] == "2"  # the block on Hot
    assert "hunter_c put a block on idle_h" in last["sentence"]
    looked = [f for f in frames if f["event"] in ("look", "search")]
    assert looked and all(f["board"]["seen"] for f in looked)
    at = app(all_db, "chaser_board", match=match, seq="5")
    assert replay(at)["jump"]["seq"] == 5


def test_a_bad_direction_is_shown_as_refused(app: App, all_db: Path) -> None:
    data = replay(app(all_db, "chaser_board", match=match_of(all_db, "invalid-direction")))
    bad = [f for f in data["frames"] if f["refused"]]
    assert len(bad) == 1 and "not a valid action" in bad[0]["sentence"]
    assert {x["code"] for x in bad[0]["findings"]} == {"chaser-invalid-direction"}


def test_games_and_bots_page(app: App, all_db: Path) -> None:
    at = app(all_db, "chaser_games", match=match_of(all_db, "surrounded-by-opponent"))
    assert at.subheader[0].value.replace("\\", "") == "surround_h walled idle_c in on all four sides at turn 48"
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {t["name"] for t in chart["data"]} == {"idle_c", "surround_h"}
    assert max(max(values(t["y"])) for t in chart["data"]) == 0  # nobody took an item
    bots = table(at, "Bot", "Games", "Wins").set_index("Bot")
    assert bots.loc["hunter_c", "Wins"] == 1 and bots.loc["idle_h", "Losses"] == 1
    assert bots.loc["surround_h", "Won by"] == "walled the opponent in"  # worded from the winner's side
    assert bots.loc["idle_c", "Lost by"] == "walled in by the opponent"
    # one bot's record over the maps (the first bot: most wins)
    record = table(at, "Map", "Side", "Result", "Opponent")
    first = bots.index[0]
    assert len(record) == bots.loc[first, "Games"] and set(record["Result"]) <= {"win", "loss", "draw"}


def test_matches_page_explains_a_chaser_game(app: App, all_db: Path) -> None:
    at = app(all_db, "matches", match=match_of(all_db, "invalid-direction"))
    assert [h.value.split(" · ")[0] for h in at.header] == ["ALGORI UNO", "Kakomimasu", "CHaser"]  # one table per game
    assert match_of(all_db, "invalid-direction") in set(table(at, "Map", "How it ended")["Match"])
    assert any("baddir_h sent an action without a valid direction" in c.value.replace("\\", "") for c in at.caption)


def test_navigation_lists_the_three_games(app: App, all_db: Path, sample_db: Path) -> None:
    at = app(sample_db)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("app_pages/chaser_board.py")
    for page, title in CH_PAGES.items():
        assert app(all_db, page).title[0].value == title
    assert app(all_db, "kakomimasu_board").title[0].value == "Kakomimasu board"
    assert app(all_db, "round_browser").title[0].value == "Round replayer"


@pytest.mark.parametrize("page", list(CH_PAGES))
def test_chaser_pages_in_japanese(app: App, all_db: Path, page: str) -> None:
    i18n.MISSING.clear()
    at = app(all_db, page, lang="ja", match=match_of(all_db, "put-on"))
    assert not i18n.MISSING, sorted(i18n.MISSING)
    assert at.title[0].value == i18n.translations("ja").gettext(CH_PAGES[page]) != CH_PAGES[page]
    assert "ブロックを置いた" in at.subheader[0].value


def test_hostile_bot_names_stay_text(app: App, tmp_path: Path) -> None:
    text = (DATA / "put_on.txt").read_bytes().decode("utf-8").replace("Name = hunter_c ,", f"Name = {HOSTILE} ,")
    (tmp_path / "h.txt").write_text(text, encoding="utf-8")
    db = tmp_path / "kifu.duckdb"
    ingest(db, tmp_path / "h.txt")
    at = app(db, "chaser_board")
    assert re.search(r"(?<!\\)[<>]", at.subheader[0].value) is None
    assert replay(at)["players"][0]["name"] == HOSTILE  # data; the renderer sets it with textContent


def test_link_to_an_action_the_game_does_not_have(app: App, all_db: Path) -> None:
    match = match_of(all_db, "put-on")
    at = app(all_db, "chaser_board", match=match, seq="999")
    assert [e.value for e in at.error] == [
        "This game has no action 999 (its actions are numbered 0–15). The link names nothing to show."]
    with pytest.raises(LookupError):
        replay(at)  # nothing else shown
    at = app(all_db, "chaser_board", match=match, seq="5")
    assert not at.warning and replay(at)["jump"]["seq"] == 5


def test_a_chaser_bots_first_fault_links_to_its_action(app: App, all_db: Path) -> None:
    """A CHaser fault is linked by its action: the link says ``event=`` (no old ``seq=``), names its turn, and opens
    there."""
    from tests.app.test_path_bot import links

    bot, match, first, turn = query(all_db, """select p.player_name, v.match_id, min(v.seq), arg_min(v.turn_no, v.seq)
        from violations v
        join players p on p.match_id = v.match_id and p.player_code = v.player
        join matches m on m.match_id = v.match_id
        where m.game = 'chaser' and v.severity in ('error', 'warning')
        group by 1, 2 order by 3 limit 1""")[0]  # fmt: skip
    at = app(all_db, "chaser_games", bot=bot)
    assert at.query_params["match"] == match
    fault = [q for label, page, q in links(at) if page.endswith("chaser_board") and "first fault" in label]
    assert fault
    assert {k: v for k, v in fault[0].items() if k != "lang"} == {"match": match, "event": str(first), "bot": bot}
    # its words name the turn, as the board's heading and the finding count it (a turn: Cool's action, then Hot's)
    assert any(f"first fault: turn {turn}" in label for label, _page, _q in links(at)), links(at)
    at = app(all_db, "chaser_board", **fault[0])
    assert replay(at)["jump"]["seq"] == first and at.query_params["event"] == str(first)
