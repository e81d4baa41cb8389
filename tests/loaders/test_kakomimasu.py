"""The Kakomimasu loader: formats chosen by content, identity, hostile input, mixed with ALGORI."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, SAMPLE, SHARED, ingest, query, table_snapshot

DATA = REPO / "tests" / "data" / "kakomimasu"
KFIX = SHARED / "fixtures" / "kakomimasu"
GAME22 = "kakomimasu:3b6aa426-30ae-4bd8-a964-a0cd5c9ba169"


def game(name: str = "game22_A-2.json") -> dict[str, Any]:
    raw = (DATA / name).read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


def consistency(db: Path) -> int:
    return query(db, "select count(*) from violations where family = 'consistency'")[0][0]


def test_mixed_directory_loads_both_games(tmp_path: Path) -> None:
    d = tmp_path / "logs"
    d.mkdir()
    (d / "uno.jsonl.gz").write_bytes(SAMPLE.read_bytes())
    for f in DATA.iterdir():
        (d / f.name).write_bytes(f.read_bytes())
    db = tmp_path / "k.duckdb"
    report = ingest(db, d)
    assert report.quarantined == 0
    games = dict(query(db, "select game, count(*) from matches group by game"))
    assert games == {"algori-uno": 1, "kakomimasu": 4}
    assert consistency(db) == 0
    # the required columns, one row per logged action and per player and turn
    rows = query(db, "select match_id, turn, player_index, agent_id, type, x, y, res, res_replayed "
                     "from kakomimasu_actions where match_id = ? order by turn, player_index, position", [GAME22])  # fmt: skip
    logged = [(t, p, a["agentId"], a["type"], a["x"], a["y"], a["res"])
              for t, e in enumerate(game()["log"], 1) for p, pl in enumerate(e["players"]) for a in pl["actions"]]  # fmt: skip
    assert [r[1:8] for r in rows] == logged
    assert all(r[7] == r[8] for r in rows)
    pts = query(db, "select turn, player_index, area_point, wall_point, area_point_replayed, wall_point_replayed "
                    "from kakomimasu_points where match_id = ? order by turn, player_index", [GAME22])  # fmt: skip
    assert len(pts) == 20 and all(r[2:4] == r[4:6] for r in pts)
    assert pts[-1][3] == 125  # short-b's final wall points
    final = query(db, "select player_code, final_score, final_rank from players where match_id = ? order by join_order", [GAME22])
    assert final == [("short-a", 204, 1), ("short-b", 125, 2)]
    assert query(db, "select winner, status, log_format from matches where match_id = ?", [GAME22]) == [
        ("short-a", "finished", "kakomimasu-v1")]
    # the ALGORI match is untouched by the other game
    assert query(db, "select count(*) from events")[0][0] > 5000


def test_reingest_is_a_noop(tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    ingest(db, DATA)
    before = table_snapshot(db)
    report = ingest(db, DATA)
    assert report.ingested == 0 and report.quarantined == 0
    assert table_snapshot(db) == before


@pytest.mark.parametrize("layout", ["pretty", "array", "lines", "gzip-lines", "one-line"])
def test_layouts_load_the_same_game(tmp_path: Path, layout: str) -> None:
    g = game()
    other = copy.deepcopy(g)
    other["id"] = "second-game"
    path = tmp_path / "games.json"
    if layout == "pretty":
        path.write_text(json.dumps(g, indent=2, ensure_ascii=False))
    elif layout == "array":
        path.write_text(json.dumps([g, other], indent=1))
    elif layout == "lines":
        path.write_text(json.dumps(g) + "\n" + json.dumps(other) + "\n")
    elif layout == "gzip-lines":
        path = tmp_path / "games.jsonl.gz"
        path.write_bytes(gzip.compress((json.dumps(g) + "\n" + json.dumps(other) + "\n").encode()))
    else:
        path.write_text(json.dumps(g))
    db = tmp_path / "k.duckdb"
    report = ingest(db, path)
    assert report.quarantined == 0
    n = 1 if layout in ("pretty", "one-line") else 2
    assert query(db, "select count(*) from matches where game = 'kakomimasu'")[0][0] == n
    assert query(db, "select count(*) from kakomimasu_actions where match_id = ?", [GAME22])[0][0] == 60
    # the same game in another layout is the same game
    (tmp_path / "again.json").write_text(json.dumps(g, indent=4))
    assert ingest(db, tmp_path / "again.json").ingested == 0


def test_a_game_in_progress_loads_and_a_longer_copy_replaces_it(tmp_path: Path) -> None:
    g = game()
    early = copy.deepcopy(g)
    early["log"] = early["log"][:4]
    early["status"], early["turn"] = "gaming", 5
    early["field"]["tiles"] = None
    for i, p in enumerate(early["players"]):
        del p["agents"]
        p["point"] = early["log"][-1]["players"][i]["point"]  # the points so far
    (tmp_path / "early.json").write_text(json.dumps(early))
    db = tmp_path / "k.duckdb"
    ingest(db, tmp_path / "early.json")
    assert query(db, "select status, winner, n_events from matches") == [("incomplete", None, 4)]
    assert consistency(db) == 0
    (tmp_path / "full.json").write_text(json.dumps(g))
    ingest(db, tmp_path / "full.json")
    assert query(db, "select status, winner, n_events from matches") == [("finished", "short-a", 10)]
    assert query(db, "select max(turn) from kakomimasu_points")[0][0] == 10
    # the earlier copy read again changes nothing
    assert ingest(db, tmp_path / "early.json").ingested == 0
    assert query(db, "select n_events from matches") == [(10,)]


def test_hostile_games_are_quarantined_and_the_rest_loads(tmp_path: Path) -> None:
    good = game()
    huge = copy.deepcopy(good)
    huge["id"], huge["field"]["width"], huge["field"]["height"] = "huge", 1000, 1000
    negative = copy.deepcopy(good)
    negative["id"], negative["field"]["width"] = "negative", -10
    typed = copy.deepcopy(good)
    typed["id"], typed["log"][2]["players"][0]["actions"][0]["agentId"] = "typed", "zero"
    nested = copy.deepcopy(good)
    nested["id"], nested["log"][0]["players"] = "nested", "oops"
    lines = [json.dumps(d) for d in (huge, negative, good, typed, nested)]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n{broken\n")
    db = tmp_path / "k.duckdb"
    report = ingest(db, path)
    assert report.quarantined == 5
    reasons = dict(query(db, "select line, reason from load_issues order by line"))
    assert "larger than Kifu replays" in reasons[1] and "huge" in reasons[1]
    assert "sides must be at least 1" in reasons[2]
    assert "agentId is not an integer" in reasons[4]
    assert "not a list" in reasons[5]
    assert "invalid JSON" in reasons[6]
    assert query(db, "select match_id from matches") == [(GAME22,)]


def test_a_game_without_a_field_and_a_join_answer_load(tmp_path: Path) -> None:
    created = {"field": None, "id": "waiting-game", "log": [], "nAgent": 8, "nPlayer": 2, "name": "test",
               "operationSec": 1, "players": [], "reservedUsers": [], "startedAtUnixTime": None, "status": "free",
               "totalTurn": 30, "transitionSec": 1, "turn": 0, "type": "self"}  # fmt: skip
    joined = {"gameId": "waiting-game", "index": 0, "pic": "1", "spec": "", "userId": "u"}
    (tmp_path / "a.json").write_text(json.dumps(created, indent=2))
    (tmp_path / "b.json").write_text(json.dumps(joined))
    db = tmp_path / "k.duckdb"
    report = ingest(db, tmp_path)
    assert report.quarantined == 0
    assert query(db, "select status, final_scores from matches") == [("waiting", None)]
    assert query(db, "select width, status from kakomimasu_games") == [(None, "free")]


def test_boards_name_the_games_board(tmp_path: Path) -> None:
    g = game()
    boards = {"A-2": {"name": "A-2", "width": 10, "height": 10, "points": g["field"]["points"], "nAgent": 3},
              "other": {"name": "other", "width": 1, "height": 1, "points": [5]}}  # fmt: skip
    (tmp_path / "boards.json").write_text(json.dumps(boards, indent=2))
    (tmp_path / "g.json").write_text(json.dumps(g))
    db = tmp_path / "k.duckdb"
    ingest(db, tmp_path)
    assert query(db, "select b.name from kakomimasu_games g join kakomimasu_boards b using (board_key)") == [("A-2",)]
    assert ingest(db, tmp_path / "boards.json").ingested == 0


def test_the_fixture_folder_loads_without_issues_or_inconsistencies(tmp_path: Path) -> None:
    if not KFIX.exists():
        pytest.skip(f"Kakomimasu fixtures not found at {KFIX} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    db = tmp_path / "k.duckdb"
    report = ingest(db, KFIX)
    assert report.quarantined == 0
    assert query(db, "select count(*) from load_issues")[0][0] == 0
    assert consistency(db) == 0
    assert query(db, "select count(*) from matches where game = 'kakomimasu'")[0][0] == 13
    assert query(db, "select count(*) from kakomimasu_boards")[0][0] == 9
    named = dict(query(db, "select g.game_id, b.name from kakomimasu_games g left join kakomimasu_boards b using (board_key)"))
    assert named["3b6aa426-30ae-4bd8-a964-a0cd5c9ba169"] == "A-2"
    assert ingest(db, KFIX).ingested == 0


def test_a_pretty_printed_game_cut_short_is_quarantined(tmp_path: Path) -> None:
    text = json.dumps(game(), indent=2)
    (tmp_path / "cut.json").write_text(text[: len(text) // 2])
    db = tmp_path / "k.duckdb"
    report = ingest(db, tmp_path / "cut.json")
    assert report.quarantined == 1 and report.ingested == 0
    assert "not closed" in query(db, "select reason from load_issues")[0][0]


def test_a_game_that_contradicts_itself_is_stored_with_the_finding_at_its_turn(tmp_path: Path) -> None:
    # the audit's K19 (turn 5 logged twice: 11 turns in a 10-turn game) and K22 (nAgent 3 -> 2 while
    # agent 2 acts): both used to quarantine the whole game
    base_db = tmp_path / "base.duckdb"
    (tmp_path / "base.json").write_text(json.dumps(game()))
    ingest(base_db, tmp_path / "base.json")
    actions = "select turn, player_index, agent_id, type, x, y, res, res_replayed from kakomimasu_actions order by all"
    points = "select * exclude (match_id) from kakomimasu_points order by all"
    findings = "select code, turn_no, player from violations order by all"
    for name, change, code, turn in (
        ("dup", lambda g: g["log"].insert(5, copy.deepcopy(g["log"][4])), "kakomimasu-turns", 6),
        ("agents", lambda g: g.update(nAgent=2), "kakomimasu-agent-count", 1),
    ):  # fmt: skip
        g = game()
        change(g)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(g))
        db = tmp_path / f"{name}.duckdb"
        report = ingest(db, path)
        assert report.quarantined == 0 and query(db, "select count(*) from load_issues") == [(0,)]
        assert query(db, "select match_id, status, winner from matches") == [(GAME22, "finished", "short-a")]
        assert query(db, "select n_agent, turns_logged from kakomimasu_games") == [(3, 10)]
        new = [r for r in query(db, findings) if r not in query(base_db, findings)]
        assert new == [(code, turn, None)], new
        assert len(query(db, findings)) == len(query(base_db, findings)) + 1  # nothing else found or lost
        assert query(db, actions) == query(base_db, actions)  # every action replayed as in the genuine game
        assert query(db, points) == query(base_db, points)
        assert consistency(db) == 1
        assert ingest(db, path).ingested == 0  # read again: a no-op
