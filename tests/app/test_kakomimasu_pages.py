"""Kakomimasu pages (AppTest): the board replayer's data, points and actions, the shared Matches page,
navigation by the games present, Japanese, hostile player ids."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from app import i18n
from tests.app.conftest import HOSTILE
from tests.app.test_pages import App, replay, table, values
from tests.conftest import REPO, SAMPLE, ingest, query

DATA = REPO / "tests" / "data" / "kakomimasu"
GAME22 = "kakomimasu:3b6aa426-30ae-4bd8-a964-a0cd5c9ba169"
GAME08 = "kakomimasu:d8242f4e-4a76-4a19-b49f-082b56072c08"
LEGACY = "kakomimasu:6d1ecdea-235c-4d09-86c3-c336503aaa13"
KM_PAGES = {"kakomimasu_board": "Kakomimasu board", "kakomimasu_analysis": "Kakomimasu points and actions"}


@pytest.fixture(scope="module")
def mixed_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("mixed") / "kifu.duckdb"
    ingest(db, SAMPLE, DATA)
    return db


@pytest.fixture(scope="module")
def km_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("km") / "kifu.duckdb"
    ingest(db, DATA)
    return db


def frames(data: dict[str, Any]) -> list[dict[str, Any]]:
    return data["frames"]


def test_board_replays_every_turn(app: App, mixed_db: Path) -> None:
    at = app(mixed_db, "kakomimasu_board", match=GAME22)
    assert at.title[0].value == "Kakomimasu board"
    data = replay(at)
    assert data["game"] == "kakomimasu" and data["round"] is None
    assert len(frames(data)) == 11  # the field before turn 1, then turns 1…10
    assert [p["name"] for p in data["players"]] == ["short-a", "short-b"]
    assert data["field"]["w"] == 10 and len(data["field"]["points"]) == 100
    first, last = frames(data)[0], frames(data)[-1]
    assert set(first["board"]["cells"]) == {"."} and first["turn"] is None
    assert last["board"]["points"] == [[0, 204], [0, 125]] == last["board"]["logged"]
    walls = sum(1 for c in last["board"]["cells"] if c in "AB")
    assert walls == query(mixed_db, "select count(*) from kakomimasu_actions where match_id = ? and res_replayed = 0 "
                                    "and type in (1, 3)", [GAME22])[0][0] or walls > 0  # fmt: skip
    conflicts = [a for f in frames(data) for a in f["board"]["actions"] if not a["ok"]]
    assert conflicts and all("conflict" in a["text"] for a in conflicts)
    assert data["jump"]["seq"] == 0
    # a link to a turn lands on it
    at = app(mixed_db, "kakomimasu_board", match=GAME22, turn="7")
    assert replay(at)["jump"]["seq"] == 7


def test_refused_actions_carry_their_reason(app: App, mixed_db: Path) -> None:
    data = replay(app(mixed_db, "kakomimasu_board", match=GAME08))
    texts = [a["text"] for f in frames(data) for a in f["board"]["actions"] if not a["ok"]]
    assert any("no such agent" in t for t in texts)
    assert any("not one of the 8 neighbouring cells" in t for t in texts)
    assert any("onto another team's wall" in t for t in texts)
    codes = {x["code"] for f in frames(data) for x in f["findings"]}
    assert {"kakomimasu-no-such-agent", "kakomimasu-illegal-action", "kakomimasu-area-rule-departure"} <= codes


def test_2020_log_shows_inferred_actions(app: App, mixed_db: Path) -> None:
    data = replay(app(mixed_db, "kakomimasu_board", match=LEGACY))
    assert len(frames(data)) == 30
    acts = [a for f in frames(data) for a in f["board"]["actions"]]
    assert any("inferred from the snapshots" in a["text"] for a in acts)
    assert any(a["u"] for a in acts)


def test_points_and_actions_page(app: App, mixed_db: Path) -> None:
    at = app(mixed_db, "kakomimasu_analysis", match=GAME22)
    assert at.title[0].value == "Kakomimasu points and actions"
    assert at.subheader[0].value.replace("\\", "") == "short-a wins on total points"
    teams = table(at, "Player", "Area points", "Wall points")
    assert list(teams["Total"]) == [204, 125] and list(teams["Rank"]) == [1, 2]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) == 3  # points per turn, outcomes per agent, collisions on the field
    points, outcomes, heat = charts
    assert len(points["data"]) == 6 and max(values(points["data"][0]["y"])) == 204
    assert sum(sum(values(t["x"])) for t in outcomes["data"]) == 60  # horizontal bars: one per agent
    assert heat["layout"]["xaxis"]["range"] == [-0.5, 9.5] and heat["layout"]["yaxis"]["range"] == [9.5, -0.5]
    assert sum(sum(row) for row in heat["data"][0]["z"]) == 24  # the 24 conflicts of this game
    assert "No finding" not in " ".join(c.value for c in at.caption)


def test_matches_page_lists_every_game(app: App, mixed_db: Path) -> None:
    at = app(mixed_db, "matches")
    assert [h.value.split(" · ")[0] for h in at.header] == ["ALGORI UNO", "Kakomimasu"]  # one table per game
    games = table(at, "Board", "Turns", "Winner")
    row = games.set_index("Match").loc[GAME22]
    assert row["Board"] == "10×10" and row["Winner"] == "short-a" and row["Final scores"] == "short-a 204 · short-b 125"
    at = app(mixed_db, "matches", match=GAME22)
    teams = table(at, "Player", "Area points")
    assert list(teams["Player"]) == ["short-a", "short-b"]


def test_navigation_shows_only_the_games_present(app: App, sample_db: Path, km_db: Path) -> None:
    at = app(sample_db)  # ALGORI only: no Kakomimasu page is registered
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("app_pages/kakomimasu_board.py")
    at = app(km_db)  # Kakomimasu only: no ALGORI page but the shared ones
    for page in ("round_browser", "penalties"):
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            at.switch_page(f"app_pages/{page}.py")
    at = app(km_db, "standings")  # Players and Standings serve every game
    assert any("Kakomimasu" in c.value for c in at.caption) and [s.key for s in at.get("segmented_control")] == ["lang"]
    at = app(km_db, "kakomimasu_board")
    assert at.title[0].value == "Kakomimasu board"
    assert at.sidebar.selectbox(key="filter.match.kakomimasu").value.startswith("kakomimasu:")
    assert app(km_db, "matches").title[0].value == "Matches"


@pytest.mark.parametrize("page", list(KM_PAGES))
def test_kakomimasu_pages_in_japanese(app: App, mixed_db: Path, page: str) -> None:
    i18n.MISSING.clear()
    at = app(mixed_db, page, lang="ja", match=GAME08)
    assert not i18n.MISSING, sorted(i18n.MISSING)
    assert at.title[0].value == i18n.translations("ja").gettext(KM_PAGES[page]) != KM_PAGES[page]
    if page == "kakomimasu_board":
        data = replay(at)
        assert data["labels"]["turn"] == "ターン" or data["labels"]["turn"] != "turn"
        assert any("エージェント" in a["text"] for f in frames(data) for a in f["board"]["actions"])


def test_hostile_player_ids_stay_text(app: App, tmp_path: Path) -> None:
    doc = json.loads((DATA / "game22_A-2.json").read_text())
    doc["players"][0]["id"] = HOSTILE
    (tmp_path / "g.json").write_text(json.dumps(doc))
    db = tmp_path / "kifu.duckdb"
    ingest(db, tmp_path / "g.json")
    at = app(db, "kakomimasu_analysis")
    text = at.subheader[0].value
    assert text.startswith("\\<img") and re.search(r"(?<!\\)[<>]", text) is None  # every < > markdown-escaped
    data = replay(app(db, "kakomimasu_board"))
    assert data["players"][0]["name"] == HOSTILE  # data; the renderer sets it with textContent


def test_link_to_a_turn_the_game_does_not_have(app: App, mixed_db: Path) -> None:
    at = app(mixed_db, "kakomimasu_board", match=GAME22, turn="999")
    assert [e.value for e in at.error] == [
        "This game has no turn 999 (its turns are 0–10). The link names nothing to show."]
    with pytest.raises(LookupError):
        replay(at)  # nothing else shown
    at = app(mixed_db, "kakomimasu_board", match=GAME22, turn="abc")
    assert [e.value for e in at.error] == ["This game has no turn abc (its turns are 0–10). The link names nothing to show."]
    at = app(mixed_db, "kakomimasu_board", match=GAME22, turn="7")  # a turn that exists: no message
    assert not at.warning and replay(at)["jump"]["seq"] == 7


def test_board_legend_and_headline_are_translated(app: App, mixed_db: Path) -> None:
    from app import frames as replayer_frames

    data = replay(app(mixed_db, "kakomimasu_board", match=GAME22))
    assert data["labels"]["legend_wall"] == "wall" and data["labels"]["first"] == "First turn"  # the game's own wins
    with i18n.using("ja"):
        labels = replayer_frames.board_labels({"game": "kakomimasu", "labels": {}})["labels"]
    for key in replayer_frames.KAKOMIMASU_LABELS.keys() | replayer_frames.COMMON_LABELS.keys():
        assert not re.search("[a-z]{3}", re.sub(r"\{\w+\}", "", labels[key])), key
