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
    ("players.0.agents.0", {"x": "50", "y": 0}, "not an integer"),
    ("field.tiles.0.player", "7", "not an integer"),
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


# ---- contradictions inside a readable game: stored, one finding at its turn -------------------


def _dup_turn(doc: dict[str, Any]) -> None:  # audit K19: turn 5 logged twice (11 turns, totalTurn 10)
    doc["log"].insert(5, copy.deepcopy(doc["log"][4]))


def _extra_turn(doc: dict[str, Any]) -> None:  # a turn past totalTurn that is no copy: replayed as logged
    extra = copy.deepcopy(doc["log"][-1])
    for row in extra["players"]:
        row["actions"] = []
    doc["log"].append(extra)


def _one_agent_less(doc: dict[str, Any]) -> None:  # audit K22: nAgent 3 -> 2, agent 2's actions stay
    doc["nAgent"] -= 1


def _one_player_less(doc: dict[str, Any]) -> None:
    doc["nPlayer"] = 1


def _agent_off_the_field(doc: dict[str, Any]) -> None:
    doc["players"][0]["agents"][0] = {"x": 50, "y": 0}


def _tile_of_nobody(doc: dict[str, Any]) -> None:
    doc["field"]["tiles"][0]["player"] = 7


CONTRADICTIONS = {  # change -> (the finding's code, its turn: 'first agent 2' / a number / 'last')
    "a turn duplicated": (_dup_turn, "kakomimasu-turns", 6),
    "a turn past totalTurn": (_extra_turn, "kakomimasu-turns", 11),
    "nAgent one less": (_one_agent_less, "kakomimasu-agent-count", "first agent 2"),
    "nPlayer one less": (_one_player_less, "kakomimasu-player-count", 1),
    "a final agent off the field": (_agent_off_the_field, "kakomimasu-final-agents", "last"),
    "a final tile of nobody": (_tile_of_nobody, "kakomimasu-final-tiles", "last"),
}


@pytest.mark.parametrize("kind", CONTRADICTIONS)
def test_a_contradiction_inside_a_game_is_one_finding_at_its_turn_and_the_rest_replays_as_before(kind: str) -> None:
    doc = game22()
    change, code, t = CONTRADICTIONS[kind]
    changed = copy.deepcopy(doc)
    change(changed)
    if t == "first agent 2":
        t = next(i for i, e in enumerate(doc["log"], 1) for pl in e["players"] for a in pl["actions"] if a["agentId"] == 2)
    elif t == "last":
        t = len(doc["log"])
    key = lambda v: (v.code, v.turn_no, v.player, v.message)  # noqa: E731
    base, found = Counter(map(key, findings(doc))), findings(changed)
    extra = [(c, turn) for c, turn, _p, _m in (Counter(map(key, found)) - base).elements()]
    if kind == "a turn past totalTurn":  # the extra turn is replayed: its own findings come with it
        assert (code, t) in extra and all(turn == t for _c, turn in extra), extra
        assert [v.message for v in found if v.code == code] == [
            "the log has 11 turns, more than totalTurn 10: turn 11 replayed as logged"]
    else:
        assert extra == [(code, t)], extra
    assert sum((base - Counter(map(key, found))).values()) == 0  # nothing the genuine log gives is lost
    game, original = from_v1(changed), from_v1(doc)
    assert (game.n_agent, game.n_player) == (original.n_agent, original.n_player)
    if kind == "a turn duplicated":  # an exact copy of the turn before: skipped, the game is the genuine one
        assert game.turns == original.turns
        v = next(v for v in found if v.code == code)
        assert "logged turn 6 repeats turn 5 exactly and is skipped" in v.message
    if kind == "nAgent one less":
        v = next(v for v in found if v.code == code)
        assert (v.expected, v.actual) == ("3", "2") and "replayed with 3 agents" in v.message
        assert not [v for v in found if v.code == "kakomimasu-no-such-agent" and (key(v) not in base)]


def test_a_missing_player_row_is_one_finding_and_that_player_stays() -> None:
    doc = game22()
    doc["log"][3]["players"].pop()
    found = findings(doc)
    v = [v for v in found if v.code == "kakomimasu-player-count"]
    assert len(v) == 1 and v[0].turn_no == 4 and "has 1 player row, the game has 2 players" in v[0].message
    assert len(from_v1(doc).turns[3].actions) == 2 and from_v1(doc).turns[3].actions[1] == ()


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


# ---- forbidden placements: one player-rule finding each, the server's silent success reported ------------


def test_an_unplaced_agents_put_onto_an_opponents_wall_is_forbidden_whatever_the_server_answers() -> None:
    b, _ = run(board(), [[Action(0, PUT, 0, 0)], []], [[Action(0, MOVE, 1, 0)], []])  # walls (0, 0), (1, 0)
    # 配置「相手チームの壁となっているマスには配置できません」: the engine answers 0 and leaves the agent off
    b2, outs = step(b, [[], [Action(0, PUT, 0, 0)]])
    assert outs[1][0].res == SUCCESS and outs[1][0].forbidden and b2.agents[1][0] == (-1, -1)
    assert b2.tile(0, 0) == (WALL, 0)
    # aimed at by another action too: the engine answers conflict, the rules still forbid it
    _, outs = step(b, [[Action(0, MOVE, 0, 0)], [Action(0, PUT, 0, 0)]])
    assert (outs[1][0].res, outs[0][0].res, outs[0][0].forbidden) == (CONFLICT, CONFLICT, "")
    assert outs[1][0].forbidden
    # where an agent of the other team stands: sent back, still forbidden
    _, outs = step(b, [[], [Action(0, PUT, 1, 0)]])
    assert outs[1][0].res == REVERT and outs[1][0].forbidden
    # its own team's wall is no opponent's
    _, outs = step(b, [[Action(1, PUT, 0, 0)], []])
    assert outs[0][0].res == SUCCESS and not outs[0][0].forbidden
    frames, _ = judge_all(_tiny_game([[(0, PUT, 0, 0, 0)], []], [[(0, MOVE, 1, 0, 0)], []], [[], [(0, PUT, 0, 0, 0)]]))
    found = [v for f in frames for v in f.violations]
    assert [(v.code, v.family, v.turn_no, v.player) for v in found] == [
        ("kakomimasu-put-onto-opponent-wall", "player-rule", 3, "b"),
        ("kakomimasu-forbidden-action-accepted", "dealer-judgement", 3, None)]


def _tiny_game(*turns: list[list[tuple[int, int, int, int, int]]]) -> Any:
    """A 5×5 two-team game from turns of (agent, type, x, y, logged result) per team."""
    b, log = board(), []
    for acts in turns:
        b, _ = step(b, [[Action(*a[:4]) for a in row] for row in acts])
        log.append({"players": [{"point": {"areaPoint": ar, "wallPoint": wa},
                                 "actions": [dict(zip(("agentId", "type", "x", "y", "res"), a, strict=True)) for a in row]}
                                for row, (ar, wa) in zip(acts, points(b), strict=True)]})  # fmt: skip
    return from_v1({"id": "tiny", "totalTurn": len(log), "nPlayer": 2, "nAgent": 2, "status": "ended",
                    "field": {"width": 5, "height": 5, "points": [1] * 25}, "log": log,
                    "players": [{"id": "a", "type": "guest"}, {"id": "b", "type": "guest"}]})  # fmt: skip


#: game → (forbidden placements, of which the server answered 0)
FORBIDDEN_PUTS = {"game02_A-2": (19, 18), "game08_island-4": (0, 0), "game15_island-1": (24, 20),
                  "game19_A-1": (137, 67), "game22_A-2": (8, 7), "game26_island-3": (0, 0)}  # fmt: skip


@pytest.mark.parametrize("name", sorted(FORBIDDEN_PUTS))
def test_every_forbidden_placement_of_the_fixture_games_is_reported_once(name: str) -> None:
    doc = load(shared(f"v1_games/{name}.json"))
    frames, summary = judge_all(from_v1(doc))
    found = [v for f in frames for v in f.violations] + summary.end_violations
    # what the log shows, read from the log and the replayed board before each turn
    want = Counter()
    for f, entry in zip(frames, doc["log"], strict=True):
        for p, row in enumerate(entry["players"]):
            for a in row["actions"]:
                if a["type"] != PUT or not 0 <= a["agentId"] < len(f.before.agents[p]):
                    continue
                kind, owner = f.before.tile(a["x"], a["y"]) if f.before.inside(a["x"], a["y"]) else (0, -1)
                if f.before.agents[p][a["agentId"]] == (-1, -1) and kind == WALL and owner not in (p, -1):
                    want[(f.turn, p, "player")] += 1
                    want[(f.turn, p, "server")] += a["res"] == SUCCESS
    codes_ = [v.code for v in found]
    players = [p.id for p in from_v1(doc).players]
    got = Counter()
    for v in found:
        if v.code == "kakomimasu-put-onto-opponent-wall":
            assert v.family == "player-rule" and v.player is not None
            got[(v.turn_no, players.index(v.player), "player")] += 1
        elif v.code == "kakomimasu-forbidden-action-accepted":
            assert v.family == "dealer-judgement" and v.player is None and (v.expected, v.actual) == ("refused (無効)", "0 (success)")
            team = next(p for p, pid in enumerate(players) if f" {pid} agent " in v.message)
            got[(v.turn_no, team, "server")] += 1
    assert +got == +want
    assert (codes_.count("kakomimasu-put-onto-opponent-wall"), codes_.count("kakomimasu-forbidden-action-accepted")) \
        == FORBIDDEN_PUTS[name]
    assert [v for v in found if v.family == "consistency"] == []


# ---- one change to a log: reported once, at its turn, with its cause; the replay follows the log ---------


NEIGHBOURS8 = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0)]


def _moves(doc: dict[str, Any], frames: list[Any], t: int) -> list[tuple[int, int, dict[str, Any], tuple[int, int]]]:
    """Successful MOVEs of turn t: (player, index, action, where the agent stood)."""
    return [(p, k, a, frames[t - 1].before.agents[p][a["agentId"]])
            for p, row in enumerate(doc["log"][t - 1]["players"]) for k, a in enumerate(row["actions"])
            if a["type"] == MOVE and a["res"] == SUCCESS]  # fmt: skip


def mutate(doc: dict[str, Any], kind: str) -> tuple[dict[str, Any], int, int, str]:
    """One change to a fixture game: (the changed copy, turn, player, the code naming the cause)."""
    frames, _ = judge_all(from_v1(doc))
    n, d = len(doc["log"]), copy.deepcopy(doc)
    w, h = doc["field"]["width"], doc["field"]["height"]
    if kind == "onto an opponent's wall":  # a MOVE to a neighbouring cell walled by another team
        for t in range(n // 3, n):
            aimed = {(a["x"], a["y"]) for row in doc["log"][t - 1]["players"] for a in row["actions"]}
            before = frames[t - 1].before
            for p, k, _a, (x, y) in _moves(doc, frames, t):
                for cx, cy in ((x + dx, y + dy) for dx, dy in NEIGHBOURS8):
                    if before.inside(cx, cy) and (cx, cy) not in aimed and before.tile(cx, cy)[0] == WALL \
                            and before.tile(cx, cy)[1] not in (p, -1):  # fmt: skip
                        d["log"][t - 1]["players"][p]["actions"][k].update(x=cx, y=cy)
                        return d, t, p, "kakomimasu-onto-opponent-wall"
        raise AssertionError("no MOVE next to an opponent's wall")
    if kind == "a MOVE into a REMOVE of an own wall":  # accepted all the same: only the points and later MOVEs tell
        for t in range(n // 3, n):
            aimed = {(a["x"], a["y"]) for row in doc["log"][t - 1]["players"] for a in row["actions"]}
            before = frames[t - 1].before
            taken = {xy for row in before.agents for xy in row}
            for p, k, _a, (x, y) in _moves(doc, frames, t):
                for cx, cy in ((x + dx, y + dy) for dx, dy in NEIGHBOURS8):
                    if before.inside(cx, cy) and (cx, cy) not in aimed | taken and before.tile(cx, cy) == (WALL, p) \
                            and before.points[cy * w + cx] != 0:  # fmt: skip
                        d["log"][t - 1]["players"][p]["actions"][k].update(type=REMOVE, x=cx, y=cy)
                        return d, t, p, "kakomimasu-points"
        pytest.skip("no accepted MOVE next to its team's own wall")
    t = next(t for t in range(n // 3, n) if _moves(doc, frames, t))
    p, k, a, (x, y) = _moves(doc, frames, t)[0]
    row = d["log"][t - 1]["players"][p]
    if kind == "outside the field":
        row["actions"][k]["x"] = w
        return d, t, p, "kakomimasu-illegal-action"
    if kind == "two cells away":
        dx, dy = a["x"] - x, a["y"] - y
        tx, ty = (x + 2 * dx, y + 2 * dy) if 0 <= x + 2 * dx < w and 0 <= y + 2 * dy < h else (x - 2 * dx, y - 2 * dy)
        row["actions"][k].update(x=tx, y=ty)
        return d, t, p, "kakomimasu-illegal-action"
    if kind == "one turn's points":
        row["point"]["wallPoint"] += 3
        return d, t, p, "kakomimasu-points"
    if kind == "an action removed":
        del row["actions"][k]
        return d, t, p, "kakomimasu-points"
    if kind == "a result code":
        row["actions"][k]["res"] = CONFLICT
        return d, t, p, "kakomimasu-result-code"
    raise AssertionError(kind)


MUTATIONS = ["outside the field", "two cells away", "onto an opponent's wall", "one turn's points", "an action removed",
             "a result code", "a MOVE into a REMOVE of an own wall"]  # fmt: skip
FOLLOW_ON_BOUND = 2  # findings after the changed turn (before following the log: 20–198 on these games)


@pytest.mark.parametrize("kind", MUTATIONS)
@pytest.mark.parametrize("name", ["game02_A-2", "game08_island-4", "game15_island-1", "game19_A-1", "game22_A-2",
                                  "game26_island-3"])  # fmt: skip
def test_one_change_to_a_log_is_reported_once_at_its_turn(name: str, kind: str) -> None:
    doc = load(shared(f"v1_games/{name}.json"))
    if kind == "onto an opponent's wall" and name == "game26_island-3":
        pytest.skip("player 0 of game26 never places an agent: no opponent's wall to move onto")
    changed, t, p, cause = mutate(doc, kind)
    player = from_v1(doc).players[p].id
    key = lambda v: (v.code, v.turn_no, v.player)  # noqa: E731
    base = Counter(map(key, findings(doc)))
    found = findings(changed)
    extra = Counter(map(key, found)) - base
    at_turn = [k for k in extra.elements() if k[1] == t]
    after = [k for k in extra.elements() if k[1] != t]
    assert (cause, t, player) in at_turn, (at_turn, after)
    assert len(at_turn) <= 2 and len(after) <= FOLLOW_ON_BOUND, (at_turn, after)
    assert sum((base - Counter(map(key, found))).values()) == 0  # nothing the genuine log gives is lost
    if kind in ("outside the field", "two cells away", "onto an opponent's wall"):
        v = next(v for v in found if v.code == "kakomimasu-result-code" and v.turn_no == t)
        assert (v.expected, v.actual) != ("0", "0") and "so the replay goes on from that" in v.message
    if kind == "an action removed":
        v = next(v for v in found if v.code == "kakomimasu-points" and v.turn_no == t)
        assert "an action the log does not hold" in v.message
    if kind == "a MOVE into a REMOVE of an own wall":  # the REMOVE itself is legal: no player is blamed
        assert not [v for v in found if v.family == "player-rule" and v.turn_no >= t and v.player == player
                    and (v.code, v.turn_no, v.player) not in base]  # fmt: skip
        v = next(v for v in found if v.code == "kakomimasu-points" and v.turn_no == t)
        assert "MOVE" in v.message and "instead of the logged REMOVE" in v.message
        assert "so the replay goes on from that" in v.message


def test_one_change_to_a_2020_log_is_reported_at_its_turn_and_the_replay_goes_on_from_the_snapshots() -> None:
    doc = load(shared("log_2020/6d1ecdea-235c-4d09-86c3-c336503aaa13-player1.log"))
    key = lambda v: (v.code, v.turn_no)  # noqa: E731
    base = Counter(map(key, findings(doc)))
    flipped, teleported, points_ = copy.deepcopy(doc), copy.deepcopy(doc), copy.deepcopy(doc)
    cell = next(i for i, (k, _o) in enumerate(flipped[11]["tiled"]) if k == WALL)  # turn 12
    flipped[11]["tiled"][cell] = [WALL, 1 - flipped[11]["tiled"][cell][1]]
    teleported[20]["players"][0]["agents"][0] = {"x": -1, "y": -1}  # turn 21
    points_[15]["players"][0]["point"]["wallpoint"] += 3  # turn 16
    for changed, t, cause in ((flipped, 12, "kakomimasu-snapshot-tiles"), (teleported, 20, "kakomimasu-snapshot-agents"),
                              (points_, 16, "kakomimasu-snapshot-points")):  # fmt: skip
        extra = list((Counter(map(key, findings(changed))) - base).elements())
        assert (cause, t) in extra
        # the snapshot after a flipped tile shows it back as it was: that one turn, then nothing
        assert len([k for k in extra if k[1] != t]) <= 1, extra
