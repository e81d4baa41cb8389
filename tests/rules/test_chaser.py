"""CHaser rules: the server's board, every fixture log replayed and its end explained, mutations, hostile text."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rules.chaser.engine import BLOCK, COOL, HOT, State, act, judge
from rules.chaser.log import (ChaserLogError, Cut, decode, looks_like_log, looks_like_map, parse_log, parse_map,
                              read_log)
from rules.chaser.replay import END_KINDS, judge_all
from tests.conftest import REPO, SHARED

DATA = REPO / "tests" / "data" / "chaser"
CFIX = SHARED / "fixtures" / "chaser"

#: Each fixture game as Kifu explains it (winner, end kind, items COOL:HOT) — checked against the log below.
EXPECTED = {
    "log[20261122045541].txt": ("HOT", "put-on", (12, 20)),
    "log[20261122045617].txt": ("HOT", "surrounded-by-opponent", (0, 0)),
    "log[20261122045634].txt": ("HOT", "self-surrounded", (0, 0)),
    "log[20261122045659].txt": ("COOL", "walked-into-block", (0, 1)),
    "log[20261122045707].txt": (None, "draw", (0, 0)),
    "log[20261122045726].txt": ("COOL", "items", (19, 0)),
    "log[20261122045744].txt": ("COOL", "invalid-direction", (4, 4)),
    "log[20261122045801].txt": ("COOL", "no-response", (0, 0)),
    "log[20261122045821].txt": ("COOL", "walked-into-block", (0, 0)),
    "log[20261122045903].txt": ("COOL", "items", (20, 17)),
    "log[20261122045958].txt": ("COOL", "put-on", (0, 0)),
    "log[20261122050156].txt": ("COOL", "no-response", (0, 1)),
}


def read(path: Path) -> Any:
    return parse_log(decode(path.read_bytes()))


def findings(log: Any) -> tuple[list[Any], Any]:
    frames, summary = judge_all(log)
    return [v for f in frames for v in f.violations] + summary.end_violations, summary


def consistency(found: list[Any]) -> Counter[str]:
    return Counter(v.code for v in found if v.family == "consistency")


def mini(rows: list[str], cool: tuple[int, int], hot: tuple[int, int]) -> State:
    cells = tuple(int(c) for r in rows for c in r)
    return State(len(rows[0]), len(rows), cells, (cool, hot), (0, 0), sum(1 for c in cells if c == 3))


# ---- the board ---------------------------------------------------------------------------------


def test_walking_onto_an_item_takes_it_and_leaves_a_block_behind() -> None:
    s = mini(["000", "030", "000"], (1, 0), (2, 2))
    out = act(s, COOL, "walk", "down")
    assert out.picked and out.taken and out.state.items == (1, 0) and out.state.left == 0
    assert out.state.pos[COOL] == (1, 1) and out.state.cells[1] == BLOCK and out.state.cells[4] == 0


def test_put_on_an_item_destroys_it_without_a_point() -> None:
    s = mini(["000", "030", "000"], (1, 0), (2, 2))
    out = act(s, COOL, "put", "down")
    assert out.taken and not out.picked and out.state.items == (0, 0) and out.state.cells[4] == BLOCK


def test_surroundings_see_the_other_player_and_the_outside_as_block() -> None:
    s = mini(["000", "003", "000"], (0, 0), (1, 1))
    assert s.around(COOL) == "222200201"  # outside on the top and left, Hot at the bottom-right
    assert s.around(HOT) == "100003000"  # Cool at the top-left, an item to the right


def test_the_opponent_is_judged_first() -> None:
    # Cool puts a block on Hot while standing walled in itself: Hot's death is found first, Cool wins
    s = mini(["0200", "2020", "0200"], (1, 1), (2, 1))
    out = act(s, COOL, "put", "right")
    assert judge(out.state, COOL, (False, False)) == (HOT, "block")


def test_walking_off_the_map_is_a_block_on_the_player() -> None:
    s = mini(["000"], (0, 0), (2, 0))
    out = act(s, COOL, "walk", "up")
    assert judge(out.state, COOL, (False, False)) == (COOL, "block")


def test_look_and_search_change_nothing() -> None:
    s = mini(["000", "000", "000"], (1, 1), (2, 2))
    for action in ("look", "search"):
        out = act(s, COOL, action, "up")
        assert out.state == s and out.seen


# ---- logs ------------------------------------------------------------------------------------------


def test_bundled_logs_replay_exactly() -> None:
    for name, (winner, kind) in {"put_on.txt": ("COOL", "put-on"), "surrounded.txt": ("HOT", "surrounded-by-opponent"),
                                 "bad_direction.txt": ("COOL", "invalid-direction")}.items():  # fmt: skip
        found, s = findings(read(DATA / name))
        assert consistency(found) == Counter(), name
        assert (s.winner, s.end_kind) == (winner, kind)


def test_an_invalid_direction_ends_the_game_at_the_turn_of_the_action_that_sent_it() -> None:
    # the server cuts the player at its bad action; the round header after it (残n-1) is the next turn, where
    # nothing happens: the sentence, the summary and the finding name one turn, the action's
    frames, s = judge_all(read(DATA / "bad_direction.txt"))
    bad = [f for f in frames if f.direction is None and f.action != "look"]
    assert len(bad) == 1 and s.end_kind == "invalid-direction"
    assert s.end_seq == bad[0].seq and s.end_turn == bad[0].turn
    assert f"at turn {bad[0].turn}" in s.sentence
    assert {v.turn_no for v in bad[0].violations} == {bad[0].turn}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_fixture_log_is_explained(name: str) -> None:
    path = CFIX / "games" / name
    if not path.exists():
        pytest.skip(f"CHaser fixtures not found at {CFIX} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    index = {Path(d["file"]).name: d for d in json.loads((CFIX / "games" / "index.json").read_text())}[name]
    log = read(path)
    found, s = findings(log)
    assert consistency(found) == Counter()
    winner, kind, items = EXPECTED[name]
    assert (s.winner, s.end_kind, s.items) == (winner, kind, items)
    assert (s.winner or "DRAW") == index["winner"] == log.result
    assert sum(1 for e in log.entries if e.kind == "taken") == index["items_taken"]
    if index["score_line"]:
        assert f"COOL:{items[0]}  HOT:{items[1]}" == index["score_line"]
    assert kind in END_KINDS and s.sentence
    # the final map equals the one the last digits show around each player
    frames, _ = judge_all(log)
    last = {f.team: f for f in frames}
    for team, f in last.items():
        assert "1" + f.after.around(0 if team == "COOL" else 1) == f.digits


def test_every_fixture_map_reads() -> None:
    maps = sorted((CFIX / "maps").glob("*.map")) if (CFIX / "maps").exists() else []
    if not maps:
        pytest.skip(f"CHaser fixtures not found at {CFIX} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    for path in maps:
        m = parse_map(decode(path.read_bytes()).splitlines())
        assert (m.width, m.height) == (15, 17) and m.turns and m.name == path.stem
        # the rulebook: items and blocks are point-symmetric
        assert all(m.cells[i] == m.cells[len(m.cells) - 1 - i] for i in range(len(m.cells)))


def test_crlf_lf_and_shift_jis_read_the_same() -> None:
    raw = (DATA / "put_on.txt").read_bytes()
    text = decode(raw)
    base = judge_all(parse_log(text))[1]
    lf = judge_all(parse_log(text.replace("\r\n", "\n")))[1]
    sjis = judge_all(parse_log(decode(text.encode("cp932"))))[1]
    assert (base.winner, base.end_kind, base.items) == (lf.winner, lf.end_kind, lf.items) == (sjis.winner, sjis.end_kind, sjis.items)


# ---- mutations, caught at the right turn ---------------------------------------------------------


def mutate(name: str, old: str, new: str, count: int = 1) -> Any:
    text = decode((DATA / name).read_bytes())
    assert old in text
    return parse_log(text.replace(old, new, count))


def first(found: list[Any], code: str) -> Any:
    hits = [v for v in found if v.code == code]
    assert hits, f"{code} not reported"
    return hits[0]


def test_changed_surroundings_are_caught_at_their_turn() -> None:
    text = decode((DATA / "surrounded.txt").read_bytes()).replace("\r\n", "\n")
    log = parse_log(text)
    frames, _ = judge_all(log)
    target = frames[40]  # an action in the middle of the game
    digits_line = next(e for e in log.entries if e.kind == "digits" and e.line > next(
        a.line for a in log.entries if a.kind == "action" and a.value == target.raw and a.line > 0
        and sum(1 for b in log.entries if b.kind == "action" and b.line <= a.line) == target.seq))  # fmt: skip
    lines = text.split("\n")
    row = lines[digits_line.line - 1]
    lines[digits_line.line - 1] = row[:-1] + ("3" if row[-1] != "3" else "0")
    v = first(findings(parse_log("\n".join(lines)))[0], "chaser-surroundings")
    assert (v.seq, v.turn_no, v.player) == (target.seq, target.turn, target.team)


def test_a_missing_item_line_is_caught() -> None:
    log = mutate("bad_direction.txt", "[20261122045748][取得]COOLがアイテムを取得しました。\r\n", "")  # the whole line
    assert log.cut is None
    v = first(findings(log)[0], "chaser-item-taken")
    assert v.player == "COOL" and v.turn_no == 1 and v.family == "consistency"


def test_a_wrong_winner_and_death_are_caught() -> None:
    found = findings(mutate("put_on.txt", "[決着]COOLが勝利しました。", "[決着]HOTが勝利しました。"))[0]
    assert first(found, "chaser-winner").actual == "HOT"
    found = findings(mutate("put_on.txt", "[死因]HOTブロック下敷き", "[死因]HOTブロック囲まれ"))[0]
    assert first(found, "chaser-end").turn_no == 8


def test_a_log_cut_off_mid_game_loads_what_it_has() -> None:
    text = decode((DATA / "surrounded.txt").read_bytes())
    cut = parse_log(text[: len(text) // 2])
    found, s = findings(cut)
    assert s.end_kind == "incomplete" and s.winner is None and s.actions > 10
    assert first(found, "chaser-truncated")
    assert consistency(found) == Counter({"chaser-truncated": 1})
    assert cut.cut is not None and "the file ends in the middle of this line" in cut.cut.reason
    assert s.end_turn == s.last_turn == cut.last_turn > 10
    assert s.sentence.startswith(f"the log stops at turn {s.last_turn}, cut at line {cut.cut.line}: the file")


@pytest.mark.parametrize("name", ["log[20261122045541].txt", "log[20261122045801].txt"])
def test_every_single_line_lost_or_doubled_is_caught_or_harmless(name: str) -> None:
    """One line of a real log deleted or written twice, at every line: the header and the map refuse the log,
    a line in the game is read past and reported right there (or the change leaves the game as it was; only a
    line after [決着] cuts the log), and never does a finding against a player come that the whole log does
    not have."""
    path = CFIX / "games" / name
    if not path.exists():
        pytest.skip(f"CHaser fixtures not found at {CFIX} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    lines = path.read_bytes().split(b"\n")
    whole, _ = read_log(path.read_bytes())
    against = {(v.code, v.player, v.seq) for v in findings(whole)[0] if v.family == "player-rule"}
    first_round = next(i for i, line in enumerate(lines) if line.startswith("-----残".encode()))
    outcomes: Counter[str] = Counter()
    for i in range(1, len(lines) - 1):
        for op in ("lost", "doubled"):
            changed = lines[:i] + lines[i + 1:] if op == "lost" else lines[:i + 1] + lines[i:]
            try:
                log, _ = read_log(b"\n".join(changed))
            except ChaserLogError as exc:
                assert i <= first_round and exc.line is not None and i + 1 <= exc.line, (op, i + 1, str(exc))
                outcomes["refused"] += 1
                continue
            found, s = findings(log)
            assert {(v.code, v.player, v.seq) for v in found if v.family == "player-rule"} <= against, i + 1
            if log.mended:
                outcomes["read past"] += 1
                assert all(i + 1 <= m.line <= i + 3 for m in log.mended), (op, i + 1, [str(m) for m in log.mended])
            if log.cut is None:
                outcomes["read whole"] += 1
                continue
            outcomes["cut"] += 1  # a line after [決着]: the game before it is whole
            assert i + 1 <= log.cut.line <= i + 3 and log.result is not None, (op, i + 1, log.cut)
            assert max((e.line for e in log.entries), default=0) < log.cut.line
    assert outcomes["read past"] > outcomes["refused"] > 0 and outcomes["read whole"] > outcomes["cut"]


def test_a_map_cell_changed_to_another_cell_is_caught_where_the_replay_sees_it() -> None:
    lines = decode((DATA / "put_on.txt").read_bytes()).split("\n")
    # Cool starts at (7, 5) and walks left first, onto floor: say the map had an item there
    row = [i for i, line in enumerate(lines) if line.startswith("D:")][5]
    cells = lines[row][2:].split(",")
    assert "C:7,5" in lines and cells[6] == "0"
    cells[6] = "3"
    lines[row] = "D:" + ",".join(cells)
    log = parse_log("\n".join(lines))
    assert log.cut is None
    found, s = findings(log)
    v = first(found, "chaser-item-taken")
    assert (v.family, v.turn_no, v.player) == ("consistency", 1, "COOL")
    assert not [f for f in found if f.family == "player-rule"]

def test_the_servers_own_messages_are_kept_and_counted_any_other_line_is_reported() -> None:
    text = decode((DATA / "put_on.txt").read_bytes())
    warning = "[20261122045959]Warning : QSocketNotifier: Invalid socket specified"
    log = parse_log(text.replace("-----残97ターン-----", warning + "\r\n-----残97ターン-----"))
    assert log.cut is None and (warning in [t for _, t in log.unknown_lines])
    assert consistency(findings(log)[0]) == Counter()
    # a line no server writes is reported (skipped) and the log read on to its end
    lines = text.split("\n")
    at = lines.index("-----残97ターン-----\r")
    whole = findings(parse_log(text))[1]
    log = parse_log("\n".join([*lines[:at], "something new\r", *lines[at:]]))
    assert log.cut is None and [(m.line, m.reason, m.skipped) for m in log.mended] == [
        (at + 1, "not a line the CHaser server writes: 'something new': not read", True)]
    found, s = findings(log)
    assert (s.end_kind, s.winner, s.end_turn) == (whole.end_kind, whole.winner, whole.end_turn)
    assert consistency(found) == Counter({"chaser-log-line": 1}) and first(found, "chaser-log-line").turn_no == 3
    assert s.sentence == whole.sentence
    # the file stopping in a line: the log stops there (nothing after it to read)
    log = parse_log("\n".join([*lines[:at], "-----残97ター"]))
    assert log.cut == Cut(at + 1, "the file ends in the middle of this line ('-----残97ター')")
    found, s = findings(log)
    assert (s.end_kind, s.winner, s.end_turn) == ("incomplete", None, 3)
    assert consistency(found) == Counter({"chaser-truncated": 1})
    assert s.sentence == (f"the log stops at turn 3, cut at line {at + 1}: "
                          "the file ends in the middle of this line ('-----残97ター')")


# ---- hostile text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "reason"), [
    ("hello\nworld", "no '--Stable Log--'"),
    ("--Stable Log--\n[ Map : \nS:0,17\nD:\nC:0,0\nH:0,0\n]\n", "outside 1…200"),
    ("--Stable Log--\n[ Map : \nD:\nC:0,0\nH:0,0\n]\n", "0 columns"),
    ("--Stable Log--\n[ Map : \nD:" + ",".join(["0"] * 10_000) + "\nC:0,0\nH:1,0\n]\n", "10,000 cells"),
    ("--Stable Log--\n[ Map : \nD:0,x,0\nC:0,0\nH:1,0\n]\n", "not a number"),
    ("--Stable Log--\n[ Map : \nD:0,0,9\nC:0,0\nH:1,0\n]\n", "outside 0…3"),
    ("--Stable Log--\n[ Map : \nD:0,0,0\nC:0,5\nH:1,0\n]\n", "outside the 3×1 map"),
    ("--Stable Log--\n[ Map : \nD:0,0,0\n", "not closed"),
    ("--Stable Log--\n[ Cool Player : Name = a , IP = x ]\n", "no map block"),
])  # fmt: skip
def test_hostile_logs_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(ChaserLogError, match=reason):
        parse_log(text)


def test_binary_and_non_digit_surroundings_never_crash() -> None:
    with pytest.raises(ChaserLogError, match="line 2: not Shift_JIS text"):
        decode(bytes(range(256)) * 4 + b"\xff\xfe\x80")
    # a 3×3 that is not ten digits is not the server's: reported, the action read without it
    log = mutate("put_on.txt", "]COOL:1003000002", "]COOL:1003ab0002")
    assert log.cut is None and len(log.mended) == 1
    assert "where COOL's 3×3 should follow [行動]COOL" in log.mended[0].reason
    assert consistency(findings(log)[0]) == Counter({"chaser-surroundings": 1})
    long = "--Stable Log--\n" + "x" * 200_000 + "\n" + decode((DATA / "put_on.txt").read_bytes()).split("\n", 1)[1]
    with pytest.raises(ChaserLogError, match=r"^line 2: a line of 200,000 characters"):
        parse_log(long)


def test_content_sniffing() -> None:
    assert looks_like_log((DATA / "put_on.txt").read_bytes()[:64])
    assert looks_like_map((DATA / "final-2024.map").read_bytes()[:256])
    assert not looks_like_log(b'{"event": "join-room"}') and not looks_like_map(b'{"event": "join-room"}')


def test_every_check_is_documented_with_its_rule() -> None:
    from rules.chaser.checks import CHECKS

    doc = (REPO / "docs" / "rules" / "chaser.md").read_text(encoding="utf-8")
    assert [code for code in CHECKS if f"| `{code}` |" not in doc] == []
    assert all(kind in doc for kind in END_KINDS)


def test_a_player_who_stopped_answering_is_reported() -> None:
    path = CFIX / "games" / "log[20261122050156].txt"
    if not path.exists():
        pytest.skip(f"CHaser fixtures not found at {CFIX} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    found, s = findings(read(path))
    v = first(found, "chaser-no-response")
    assert (v.player, s.end_kind, s.winner) == ("HOT", "no-response", "COOL")
