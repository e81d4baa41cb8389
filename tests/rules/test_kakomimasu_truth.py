"""Kakomimasu: single changes to a genuine log's structure (a turn missing, two teams' rows swapped, a team's
row missing, the whole-log counters) are each one consistency finding at their place, and no team that did
nothing wrong gets a player-rule finding."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from rules.kakomimasu.game import from_v1
from rules.kakomimasu.replay import judge_all
from tests.rules.test_kakomimasu import findings, load, shared

FAST = ["game02_A-2", "game19_A-1", "game22_A-2"]  # 10×10 boards: every change replays in well under a second


def key(v: Any) -> tuple[Any, ...]:
    return v.code, v.turn_no, v.player, v.family


def extra(doc: dict[str, Any], changed: dict[str, Any]) -> list[Any]:
    """The findings of the changed log that the genuine one does not give (by code, turn, player, family)."""
    base = Counter(map(key, findings(doc)))
    found = findings(changed)
    new = Counter(map(key, found)) - base
    return [v for v in found if new[key(v)] > 0 and not new.subtract([key(v)])]  # type: ignore[func-returns-value]


def game(name: str) -> dict[str, Any]:
    return load(shared(f"v1_games/{name}.json"))


@pytest.mark.parametrize("name", FAST)
def test_a_turn_missing_from_the_middle_is_one_finding_at_that_turn(name: str) -> None:
    doc = game(name)
    t = len(doc["log"]) // 2
    changed = copy.deepcopy(doc)
    del changed["log"][t - 1]
    new = extra(doc, changed)
    assert [(v.code, v.turn_no) for v in new] == [("kakomimasu-turns", t)], [(v.code, v.turn_no, v.message) for v in new]
    assert new[0].family == "consistency"
    assert f"turn {t} is missing: the log goes from turn {t - 1} to turn {t + 1}" in new[0].message
    assert (new[0].expected, new[0].actual) == (str(len(doc["log"])), str(len(doc["log"]) - 1))
    # the game has its turns again: the end-of-game turn count is not reported a second time
    assert not [v for v in findings(changed) if v.code == "kakomimasu-turns" and v.turn_no != t]


@pytest.mark.parametrize("name", ["game02_A-2", "game22_A-2"])  # game19 (3 teams): turn 3 missing still blames one action
def test_a_missing_turn_anywhere_gives_no_player_rule_finding(name: str) -> None:
    doc = game(name)
    for t in range(2, len(doc["log"])):
        changed = copy.deepcopy(doc)
        del changed["log"][t - 1]
        new = extra(doc, changed)
        assert ("kakomimasu-turns", t) in [(v.code, v.turn_no) for v in new], t
        assert not [v for v in new if v.family == "player-rule"], (t, [(v.code, v.turn_no, v.message) for v in new])
        assert len(new) <= 1 + 10, t  # the weak spot: a turn whose actions the turns after do not show


@pytest.mark.parametrize("whole", [True, False], ids=["rows", "actions only"])
@pytest.mark.parametrize("name", [*FAST, "game15_island-1"])
def test_two_teams_rows_swapped_within_a_turn_are_one_finding(name: str, whole: bool) -> None:
    doc = game(name)
    t = len(doc["log"]) // 2
    changed = copy.deepcopy(doc)
    rows = changed["log"][t - 1]["players"]
    if whole:
        rows[0], rows[1] = rows[1], rows[0]
    else:
        rows[0]["actions"], rows[1]["actions"] = rows[1]["actions"], rows[0]["actions"]
    new = extra(doc, changed)
    assert [(v.code, v.turn_no, v.player) for v in new] == [("kakomimasu-player-count", t, None)], \
        [(v.code, v.turn_no, v.message) for v in new]  # fmt: skip
    assert "the log has the two rows swapped, so the replay reads them the other way round" in new[0].message


@pytest.mark.parametrize("row", [0, 1])
@pytest.mark.parametrize("name", [*FAST, "game15_island-1"])
def test_one_teams_row_missing_within_a_turn_is_one_finding_and_its_actions_are_inferred(name: str, row: int) -> None:
    doc = game(name)
    t = len(doc["log"]) // 2
    changed = copy.deepcopy(doc)
    changed["log"][t - 1]["players"].pop(row)
    new = extra(doc, changed)
    assert [(v.code, v.turn_no) for v in new] == [("kakomimasu-player-count", t)], \
        [(v.code, v.turn_no, v.message) for v in new]  # fmt: skip
    ids = [p.id for p in from_v1(doc).players]
    v = new[0]
    assert v.family == "consistency" and f"the turns after fit {ids[row]} doing" in v.message
    held = [i for i in ids if i != ids[row]]
    assert f"the row logged fits {held[0]}" in v.message or f"the rows logged fit {', '.join(held)}" in v.message


def test_the_turn_counter_against_the_turns_logged_is_one_finding() -> None:
    doc = game("game22_A-2")
    changed = copy.deepcopy(doc)
    changed["turn"] = 13
    new = extra(doc, changed)
    assert [(v.code, v.turn_no, v.expected, v.actual) for v in new] == [("kakomimasu-turns", None, "10", "13")]
    assert new[0].message == "the game is ended at turn 13, but its log holds 10 turns (totalTurn 10): turn 10 expected"
    playing = copy.deepcopy(doc)  # a game still playing is at the turn after its last logged one
    playing.update(status="gaming", turn=11)
    assert not [v for v in findings(playing) if v.code == "kakomimasu-turns"]
    playing["turn"] = 14
    assert [(v.code, v.expected, v.actual) for v in findings(playing) if v.code == "kakomimasu-turns"] == [
        ("kakomimasu-turns", "11", "14")]


def test_total_turn_larger_than_the_log_is_one_finding_at_the_end() -> None:
    doc = game("game22_A-2")
    changed = copy.deepcopy(doc)
    changed["totalTurn"] = 13
    new = extra(doc, changed)
    assert [(v.code, v.expected, v.actual) for v in new] == [("kakomimasu-turns", "13", "10")]
    assert not [v for v in new if v.family == "player-rule"]


def test_n_player_larger_than_the_players_listed_is_one_finding() -> None:
    doc = game("game19_A-1")
    changed = copy.deepcopy(doc)
    changed["nPlayer"] = 4
    new = extra(doc, changed)
    assert [(v.code, v.turn_no, v.expected, v.actual) for v in new] == [("kakomimasu-player-count", 1, "3", "4")]
    assert from_v1(changed).n_player == 3


@pytest.mark.parametrize("name", ["game02_A-2", "game22_A-2"])
def test_the_genuine_logs_give_no_structure_finding(name: str) -> None:
    found = findings(game(name))
    assert not [v for v in found if v.code in ("kakomimasu-turns", "kakomimasu-player-count")]
    frames, _ = judge_all(from_v1(game(name)))
    assert all(f.resync not in ("gap", "swap") for f in frames)
