"""Kakomimasu rules: the engine's turn, the area fill, replays of real logs, mutations caught."""

from __future__ import annotations

import copy
import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rules.kakomimasu.engine import (
    CONFLICT, ILLEGAL_ACTION, ILLEGAL_AGENT, MOVE, NONE, ONLY_ONE_TURN, PUT, REMOVE, REVERT, SUCCESS, WALL,
    Action, Board, points, ranking, step,
)  # fmt: skip
from rules.kakomimasu.game import GameLogError, classify, from_snapshots, from_v1
from rules.kakomimasu.replay import judge_all
from tests.conftest import REPO, SHARED

DATA = REPO / "tests" / "data" / "kakomimasu"
KFIX = SHARED / "fixtures" / "kakomimasu"


def load(path: Path) -> Any:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def shared(rel: str) -> Path:
    path = KFIX / rel
    if not path.exists():
        pytest.skip(f"Kakomimasu fixtures not found at {KFIX} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    return path


def findings(doc: Any) -> list[Any]:
    game = from_snapshots(doc) if isinstance(doc, list) else from_v1(doc)
    frames, summary = judge_all(game)
    return [v for f in frames for v in f.violations] + summary.end_violations


def codes(found: list[Any], family: str | None = None) -> Counter[str]:
    return Counter(v.code for v in found if family is None or v.family == family)


# ---- the engine, turn by turn -------------------------------------------------------------


def board(w: int = 5, h: int = 5, n_agent: int = 2, n_player: int = 2, pts: list[int] | None = None) -> Board:
    return Board.empty(w, h, pts or [1] * (w * h), n_player, n_agent)


def run(b: Board, *turns: list[list[Action]], shared_tiles: bool = False) -> tuple[Board, list[list[list[int]]]]:
    res = []
    for acts in turns:
        b, outs = step(b, acts, shared_tiles=shared_tiles)
        res.append([[o.res for o in row] for row in outs])
    return b, res


def test_put_makes_a_wall_and_scores_its_value() -> None:
    b, res = run(board(pts=list(range(25))), [[Action(0, PUT, 2, 1)], []])
    assert res == [[[SUCCESS], []]]
    assert b.tile(2, 1) == (WALL, 0) and b.agents[0][0] == (2, 1)
    assert points(b) == [(0, 7), (0, 0)]


def test_result_codes_match_the_servers() -> None:
    b, _ = run(board(), [[Action(0, PUT, 0, 0)], [Action(0, PUT, 4, 4)]])
    b, res = run(b, [[Action(5, MOVE, 1, 1), Action(0, MOVE, 3, 3), Action(1, NONE, 0, 0), Action(1, REMOVE, 1, 1)],
                     [Action(0, MOVE, 4, 4), Action(0, MOVE, 3, 4)]])  # fmt: skip
    # agent 5 does not exist; agent 0 moves two cells; agent 1 NONE + REMOVE = two actions
    assert res == [[[ILLEGAL_AGENT, ILLEGAL_ACTION, ONLY_ONE_TURN, ONLY_ONE_TURN], [ONLY_ONE_TURN, ONLY_ONE_TURN]]]


def test_conflict_and_revert_onto_an_opponents_wall() -> None:
    b, _ = run(board(), [[Action(0, PUT, 0, 0)], [Action(0, PUT, 2, 0)]])
    # both aim at (1, 0): conflict for both
    b2, res = run(b, [[Action(0, MOVE, 1, 0)], [Action(0, MOVE, 1, 0)]])
    assert res == [[[CONFLICT], [CONFLICT]]] and b2.agents == b.agents
    # moving onto the other team's wall is reverted
    b3, _ = run(b, [[Action(0, MOVE, 1, 1)], [Action(0, MOVE, 3, 0)]])
    b4, res = run(b3, [[Action(0, MOVE, 2, 0)], []])
    assert res == [[[REVERT], []]] and b4.agents[0][0] == (1, 1)


def test_moving_onto_a_staying_agent_is_reverted_and_chains() -> None:
    b, _ = run(board(), [[Action(0, PUT, 0, 0), Action(1, PUT, 1, 0)], [Action(0, PUT, 2, 0)]])
    # player 0 agent 0 moves onto agent 1, who moves onto player 1's agent (who stays): both revert
    b2, res = run(b, [[Action(0, MOVE, 1, 0), Action(1, MOVE, 2, 0)], []])
    assert res == [[[REVERT, REVERT], []]] and b2.agents == b.agents


def test_remove_under_an_agent_is_reverted() -> None:
    b, _ = run(board(), [[Action(0, PUT, 0, 0)], [Action(0, PUT, 1, 0)]])
    b2, res = run(b, [[Action(0, REMOVE, 1, 0)], []])
    assert res == [[[REVERT], []]] and b2.tile(1, 0) == (WALL, 1)
    b3, res = run(b, [[Action(0, REMOVE, 1, 0)], [Action(0, MOVE, 1, 1)]])
    assert res == [[[SUCCESS], [SUCCESS]]] and b3.tile(1, 0) == (0, -1)


def ring(b: Board, player: int, cells: list[tuple[int, int]]) -> Board:
    kinds, owners = list(b.kinds), list(b.owners)
    untouched = list(b.untouched)
    for x, y in cells:
        i = y * b.width + x
        kinds[i], owners[i], untouched[i] = WALL, player, False
    return Board(b.width, b.height, b.points, tuple(kinds), tuple(owners), b.agents, tuple(untouched))


SQUARE = [(1, 1), (2, 1), (3, 1), (1, 2), (3, 2), (1, 3), (2, 3), (3, 3)]


def test_enclosure_needs_side_by_side_walls() -> None:
    b, _ = run(ring(board(), 0, SQUARE), [[], []])
    assert b.tile(2, 2) == (0, 0) and points(b)[0] == (1, 8)
    diamond = [(2, 1), (1, 2), (3, 2), (2, 3)]  # touching only at corners: no area
    b, _ = run(ring(board(), 0, diamond), [[], []])
    assert b.tile(2, 2) == (0, -1)


def test_nesting_an_inner_wall_is_not_the_outer_players_area() -> None:
    outer = [(x, y) for x in range(7) for y in range(7) if x in (0, 6) or y in (0, 6)]
    b = ring(board(7, 7), 0, outer)
    b = ring(b, 1, [(x + 1, y + 1) for x, y in SQUARE])  # player 1's square inside, around (3, 3)
    b, _ = run(b, [[], []])
    assert b.tile(3, 3) == (0, 1)  # inner area: player 1's
    assert b.tile(2, 2) == (WALL, 1)  # the inner wall stays player 1's
    assert b.tile(1, 1) == (0, 0)  # between the rings: player 0's area
    # the inner player's wall removed: the whole inside becomes the outer player's area
    b = ring(b, 0, [])
    kinds, owners = list(b.kinds), list(b.owners)
    i = 2 * 7 + 3
    kinds[i], owners[i] = 0, -1
    b = Board(7, 7, b.points, tuple(kinds), tuple(owners), b.agents, b.untouched)
    b, _ = run(b, [[], []])
    assert b.tile(3, 3) == (0, 0) and b.tile(3, 2) == (0, 0)


def test_the_servers_shared_tile_fill_differs_from_the_written_rule() -> None:
    # A square enclosing a never-walled cell: as written it becomes an area; the server's
    # engine writes the owner into the one shared tile object and the last untouched cell
    # (bottom-right, not enclosed) decides for all of them: no area.
    written, _ = run(ring(board(), 0, SQUARE), [[], []], shared_tiles=False)
    server, _ = run(ring(board(), 0, SQUARE), [[], []], shared_tiles=True)
    assert written.tile(2, 2) == (0, 0)
    assert server.tile(2, 2) == (0, -1)


def test_winner_by_total_then_wall_points() -> None:
    assert ranking([(10, 5), (0, 12)]) == ([0], "total")
    assert ranking([(5, 5), (0, 10)]) == ([1], "wall")
    assert ranking([(5, 5), (5, 5)]) == ([0, 1], "draw")


# ---- replays of logs written by the official programs ------------------------------------------


BUNDLED = ["game22_A-2.json", "game08_island-4.json.gz", "afterAction_sample2.json"]


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_v1_games_replay_exactly(name: str) -> None:
    found = findings(load(DATA / name))
    assert codes(found, "consistency") == Counter()


def test_v1_game_with_refused_actions_is_classified_like_the_server() -> None:
    doc = load(DATA / "game08_island-4.json.gz")
    logged = Counter(a["res"] for e in doc["log"] for p in e["players"] for a in p["actions"])
    found = codes(findings(doc), "player-rule")
    assert found["kakomimasu-no-such-agent"] == logged[4]
    assert found["kakomimasu-illegal-action"] + found["kakomimasu-none-action"] == logged[5]
    assert found["kakomimasu-onto-opponent-wall"] + found["kakomimasu-reverted"] == logged[2]
    assert found["kakomimasu-conflict"] == logged[1]
    assert found["kakomimasu-none-action"] == sum(
        1 for e in doc["log"] for p in e["players"] for a in p["actions"] if a["type"] == NONE)


@pytest.mark.parametrize("name", ["game02_A-2", "game08_island-4", "game15_island-1", "game19_A-1", "game22_A-2",
                                  "game26_island-3"])  # fmt: skip
def test_every_fixture_v1_game_replays_exactly(name: str) -> None:
    doc = load(shared(f"v1_games/{name}.json"))
    game = from_v1(doc)
    frames, summary = judge_all(game)
    assert len(frames) == len(doc["log"]) == doc["totalTurn"]
    assert [v for f in frames for v in f.violations if v.family == "consistency"] == []
    assert [v for v in summary.end_violations if v.family == "consistency"] == []
    for f, entry in zip(frames, doc["log"], strict=True):
        assert [a.res_replayed for a in f.actions] == [a["res"] for p in entry["players"] for a in p["actions"]]
        assert list(f.points) == [(p["point"]["areaPoint"], p["point"]["wallPoint"]) for p in entry["players"]]
    final = summary.final
    assert final is not None
    assert [(t["type"], -1 if t["player"] is None else t["player"]) for t in doc["field"]["tiles"]] == list(
        zip(final.kinds, final.owners, strict=True))
    assert [tuple((a["x"], a["y"]) for a in p["agents"]) for p in doc["players"]] == list(final.agents)
    totals = [p["point"]["areaPoint"] + p["point"]["wallPoint"] for p in doc["players"]]
    assert summary.winners == [totals.index(max(totals))]


def test_every_fixture_2020_log_replays_from_its_snapshots() -> None:
    logs = sorted(shared("log_2020").glob("*.log"))
    assert len(logs) == 4
    for path in logs:
        doc = load(path)
        game = from_snapshots(doc)
        frames, summary = judge_all(game)
        assert len(frames) == len(doc) - 1
        found = [v for f in frames for v in f.violations] + summary.end_violations
        assert codes(found, "consistency") == Counter(), path.name
        inferred = [a for f in frames for a in f.actions if not a.undetermined]
        assert inferred and all(a.action.type in (PUT, MOVE, REMOVE) for a in inferred)
        last = doc[-1]["players"]
        assert list(summary.points) == [(p["point"]["basepoint"], p["point"]["wallpoint"]) for p in last]


def test_bundled_2020_log_infers_moves_puts_and_removes() -> None:
    doc = load(DATA / "6d1ecdea-player1.log.gz")
    frames, summary = judge_all(from_snapshots(doc))
    kinds = Counter(a.action.type for f in frames for a in f.actions if not a.undetermined)
    assert kinds[PUT] == 16 and kinds[MOVE] > 100 and kinds[REMOVE] > 0
    assert codes([v for f in frames for v in f.violations], "consistency") == Counter()


# ---- one mutation per check, caught at the right turn --------------------------------------------


def first(found: list[Any], code: str) -> Any:
    hits = [v for v in found if v.code == code]
    assert hits, f"{code} not reported"
    return hits[0]


def test_a_changed_point_is_caught_at_its_turn() -> None:
    doc = copy.deepcopy(load(DATA / "game22_A-2.json"))
    doc["log"][6]["players"][1]["point"]["wallPoint"] += 3
    v = first(findings(doc), "kakomimasu-points")
    assert (v.turn_no, v.player, v.family) == (7, "short-b", "consistency")
    assert v.expected != v.actual


def test_a_wrong_result_code_is_caught_at_its_turn() -> None:
    doc = copy.deepcopy(load(DATA / "game22_A-2.json"))
    action = doc["log"][3]["players"][0]["actions"][0]
    action["res"] = 1 if action["res"] == 0 else 0
    v = first(findings(doc), "kakomimasu-result-code")
    assert (v.turn_no, v.player) == (4, "short-a")


def test_a_moved_agent_is_caught() -> None:
    doc = copy.deepcopy(load(DATA / "game22_A-2.json"))
    agent = doc["players"][0]["agents"][1]
    agent["x"] = (agent["x"] + 1) % 10
    v = first(findings(doc), "kakomimasu-final-agents")
    assert (v.turn_no, v.player) == (10, "short-a")


def test_a_flipped_tile_is_caught() -> None:
    doc = copy.deepcopy(load(DATA / "game22_A-2.json"))
    tile = next(t for t in doc["field"]["tiles"] if t["type"] == WALL)
    tile["player"] = 1 - tile["player"]
    v = first(findings(doc), "kakomimasu-final-tiles")
    assert v.turn_no == 10 and "1 cell(s) differ" in v.message


def test_a_flipped_snapshot_tile_is_caught_at_its_turn() -> None:
    doc = copy.deepcopy(load(DATA / "6d1ecdea-player1.log.gz"))
    shot = doc[11]  # turn 12
    cell = next(i for i, (k, _o) in enumerate(shot["tiled"]) if k == WALL)
    shot["tiled"][cell] = [WALL, 1 - shot["tiled"][cell][1]]
    found = findings(doc)
    v = first(found, "kakomimasu-snapshot-tiles")
    assert v.turn_no == 12
    assert first(found, "kakomimasu-snapshot-points").turn_no == 12  # its points no longer match its tiles


def test_a_teleporting_agent_is_caught() -> None:
    doc = copy.deepcopy(load(DATA / "6d1ecdea-player1.log.gz"))
    doc[20]["players"][0]["agents"][0] = {"x": -1, "y": -1}
    v = first(findings(doc), "kakomimasu-snapshot-agents")
    assert v.turn_no in (20, 21)


# ---- hostile input: a clear reason, never a crash -----------------------------------------------


def game22() -> dict[str, Any]:
    return copy.deepcopy(load(DATA / "game22_A-2.json"))


def _set(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    keys = path.split(".")
    node: Any = doc
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


@pytest.mark.parametrize(("path", "value", "reason"), [
    ("field.width", 1000, "larger than Kifu replays"),
    ("field.width", -3, "sides must be at least 1"),
    ("field.height", "10", "not an integer"),
    ("field.points", [1, 2, 3], "3 values for a 10×10 field"),
    ("field.points.0", 1e9, "outside"),
    ("nPlayer", 10_000, "outside"),
    ("nAgent", -1, "outside"),
    ("log.0.players", {"a": 1}, "not a list"),
    ("log.0.players.0.actions.0.agentId", 2**40, "outside"),
    ("log.0.players.0.actions.0.agentId", True, "not an integer"),
    ("log.0.players.0.actions.0.x", None, "not an integer"),
    ("log.0.players.0.actions.0.res", 9, "outside"),
    ("players.0.agents.0", {"x": 50, "y": 0}, "outside the 10×10 field"),
    ("field.tiles.0.player", 7, "the game has 2 players"),
    ("log.0.players.0.point", [0, 0], "not an object"),
    ("id", 12, "game has no id"),
])  # fmt: skip
def test_hostile_games_are_refused_with_a_reason(path: str, value: Any, reason: str) -> None:
    with pytest.raises(GameLogError, match=reason):
        from_v1(_set(game22(), path, value))


def test_out_of_range_agent_ids_are_replayed_as_the_server_does() -> None:
    doc = game22()
    doc["log"][0]["players"][0]["actions"].append({"agentId": 99, "type": 3, "x": 0, "y": 0, "res": 4})
    found = findings(doc)
    assert codes(found)["kakomimasu-no-such-agent"] == 1
    assert codes(found, "consistency") == Counter()


def test_classify_tells_the_shapes_apart() -> None:
    assert classify(game22()) == "v1-game"
    assert classify(load(DATA / "6d1ecdea-player1.log.gz")[0]) == "snapshot"
    assert classify({"gameId": "g", "index": 0, "userId": "u", "pic": "1"}) == "join"
    assert classify({"A-1": {"name": "A-1", "width": 1, "height": 1, "points": [0]}}) == "boards"
    assert classify({"event": "play-card", "dealer": "d", "contents": {}}) is None
    assert classify([1, 2]) is None


def test_every_check_is_documented_with_its_rule() -> None:
    from rules.kakomimasu.checks import CHECKS

    doc = (REPO / "docs" / "rules" / "kakomimasu.md").read_text(encoding="utf-8")
    assert [code for code in CHECKS if f"| `{code}` |" not in doc] == []
    assert all(c.source for c in CHECKS.values())
