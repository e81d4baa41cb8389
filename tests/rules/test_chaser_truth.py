"""CHaser: a line stamped out of time order is one consistency finding at that line, and one changed or
deleted action line never gives a player-rule finding to the player who did not write it."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from rules.chaser.log import decode, parse_log
from rules.chaser.replay import judge_all
from tests.rules.test_chaser import CFIX, EXPECTED

STAMP = re.compile(r"^\[(\d{14})\]")
ACTION = re.compile(r"\[行動\](COOL|HOT)が(Walk|Look|Search|Put)(Up|Down|Left|Right)を行いました。")
OTHER_DIRECTION = {"Up": "Down", "Down": "Up", "Left": "Right", "Right": "Left"}


def text_of(name: str) -> str:
    path = CFIX / "games" / name
    if not path.exists():
        pytest.skip(f"CHaser fixtures not found at {path.parent}")
    return decode(path.read_bytes())


def findings(text: str) -> list[Any]:
    frames, summary = judge_all(parse_log(text))
    return [v for f in frames for v in f.violations] + summary.end_violations


def new_findings(text: str, changed: str) -> list[Any]:
    key = lambda v: (v.code, v.turn_no, v.player, v.family)  # noqa: E731
    base = Counter(map(key, findings(text)))
    found = findings(changed)
    new = Counter(map(key, found)) - base
    out = []
    for v in found:
        if new[key(v)] > 0:
            new[key(v)] -= 1
            out.append(v)
    return out


def restamp(line: str, hours: int) -> str:
    stamp = STAMP.match(line)
    assert stamp is not None
    s = stamp.group(1)
    return f"[{s[:8]}{int(s[8:10]) + hours:02d}{s[10:]}]{line[16:]}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_genuine_log_has_its_lines_in_time_order(name: str) -> None:
    found = findings(text_of(name))
    assert not [v for v in found if "out of time order" in v.message]


@pytest.mark.parametrize("hours", [-1, 1])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_action_line_stamped_apart_from_its_neighbours_is_one_finding_at_that_line(name: str, hours: int) -> None:
    text = text_of(name)
    lines = text.split("\n")
    actions = [i for i, line in enumerate(lines) if ACTION.search(line)]
    i = actions[len(actions) // 2]
    if not 1 <= int(lines[i][9:11]) + hours <= 22:
        pytest.skip("the hour would leave the day")
    changed = "\n".join([*lines[:i], restamp(lines[i], hours), *lines[i + 1:]])
    new = new_findings(text, changed)
    assert [(v.code, v.family, v.player) for v in new] == [("chaser-log-line", "consistency", None)], \
        [(v.code, v.message) for v in new]  # fmt: skip
    assert new[0].message.startswith(f"line {i + 1}: stamped ") and "out of time order" in new[0].message
    assert parse_log(changed).entries == parse_log(text).entries  # read as it is: the game is the same


def test_many_lines_out_of_time_order_are_one_finding() -> None:
    text = text_of("log[20261122045726].txt")
    lines = text.split("\n")
    actions = [i for i, line in enumerate(lines) if ACTION.search(line)]
    for i in actions[10:20]:
        lines[i] = restamp(lines[i], -1)
    new = new_findings(text, "\n".join(lines))
    assert [v.code for v in new] == ["chaser-log-line"] and "and 6 more" in new[0].message


@pytest.mark.parametrize("name", ["log[20261122045726].txt", "log[20261122045541].txt"])
def test_one_changed_or_deleted_action_line_never_blames_the_other_player(name: str) -> None:
    """Each action line of a genuine game changed (another direction) or deleted: no new player-rule finding
    against the player who did not write that line."""
    text = text_of(name)
    lines = text.split("\n")
    actions = [i for i, line in enumerate(lines) if ACTION.search(line)]
    step = max(1, len(actions) // 60)  # about 60 lines of each game, both players, the whole game long
    tried = 0
    for i in actions[::step]:
        m = ACTION.search(lines[i])
        assert m is not None
        other = "HOT" if m.group(1) == "COOL" else "COOL"  # findings name a player by its side
        turned = lines[i].replace(m.group(0), m.group(0).replace(m.group(3), OTHER_DIRECTION[m.group(3)]))
        for changed in ([*lines[:i], turned, *lines[i + 1:]], [*lines[:i], *lines[i + 1:]]):
            new = new_findings(text, "\n".join(changed))
            blamed = [v for v in new if v.family == "player-rule" and v.player == other]
            assert not blamed, (i + 1, lines[i], [(v.code, v.message) for v in blamed])
            tried += 1
    assert tried >= 100
