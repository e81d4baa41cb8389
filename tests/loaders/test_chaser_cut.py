"""A CHaser log with a bad line half-way: the line is reported (a finding at its turn; a line not read also in
``load_issues``, with its number and the reason) and the log is read on to its ``[決着]`` — the game as the
unmutated log has it.  Only a log with nothing readable after its bad line (a file cut off) is cut there: the
game before it loads as a game that did not finish, the rest is quarantined.  A bad header or map refuses the
log, saying where.

Every case is one change to a real log written by the official server (tests/fixtures/chaser/games); what the
test expects — the line, the turns, the actions kept — is counted on the bytes, not with Kifu's reader.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SHARED, ingest, query, raw_texts, table_snapshot

GAMES = SHARED / "fixtures" / "chaser" / "games"
ITEMS = "log[20261122045903].txt"  # greedy vs greedy: 100 turns, decided on items 20:17, no player at fault
DISCONNECT = "log[20261122045801].txt"  # walker vs err_disconnect: Hot stops answering in turn 13
DIGITS = (b"]COOL:", b"]HOT:")
ACTION = "[行動]".encode()


def lines_of(name: str) -> list[bytes]:
    path = GAMES / name
    if not path.exists():
        pytest.skip(f"CHaser fixtures not found at {GAMES} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    return path.read_bytes().split(b"\n")


def write(tmp_path: Path, lines: list[bytes], name: str = "log.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines))
    return path


def line_of(lines: list[bytes], text: str, after: int = 0, encoding: str = "utf-8") -> int:
    """The 0-based index of the first line at or after ``after`` that holds ``text``."""
    return next(i for i in range(after, len(lines)) if text.encode(encoding) in lines[i])


def kept(lines: list[bytes], bad: int, encoding: str = "utf-8") -> tuple[int, int]:
    """(turn of the last action, actions) of the lines before 1-based line ``bad``: an action is a [行動] line
    with its 3×3 line after it; its turn is the number of round headers above it."""
    before = lines[: bad - 1]
    round_, action = "-----残".encode(encoding), "[行動]".encode(encoding)
    turn = last = actions = 0
    for i, line in enumerate(before):
        if line.startswith(round_):
            turn += 1
        elif action in line and i + 1 < len(before) and any(d in before[i + 1] for d in DIGITS):
            actions, last = actions + 1, turn
    return last, actions


def check_cut(db: Path, lines: list[bytes], bad: int, why: str, encoding: str = "utf-8") -> None:
    """The game before line ``bad`` is stored as a game that did not finish; the rest, one load_issues row."""
    turn, actions = kept(lines, bad, encoding)
    assert turn > 10 and actions > 20  # the test cuts half-way
    total = len(lines) - (lines[-1] == b"")
    assert query(db, "select status, end_kind, winner, rounds_played, final_order from matches") == [
        ("incomplete", "incomplete", None, turn, None)]
    assert query(db, "select count(*), max(turn) from chaser_actions") == [(actions, turn)]
    rest = b"\n".join(lines[bad - 1:])
    rest_lines = f"line {bad} is" if bad == total else f"lines {bad}–{total} are"
    assert query(db, "select line, reason, raw_length from load_issues") == [
        (bad, f"CHaser log cut at line {bad}: {why}; the game up to turn {turn} is kept, {rest_lines} not", len(rest))]
    assert query(db, "select sentence, truncated from chaser_games") == [
        (f"the log stops at turn {turn}, cut at line {bad}: {why}", True)]
    # a finding against a player needs the log's word: nothing of the kind in a cut game of a faultless log
    assert query(db, "select code from violations") == [("chaser-truncated",)]
    assert query(db, "select count(*) from players where final_rank is not null")[0][0] == 0
    # the raw record is the text read, up to the bad line
    text = (b"\n".join(lines[: bad - 1]) + b"\n").decode(encoding)
    assert raw_texts(db) == [text]


GAME = "select status, end_kind, winner, rounds_played, final_order from matches"


def check_mended(db: Path, full: Path, bad: int, code: str, why: str, raw: bytes | None) -> None:
    """The game read past line ``bad`` is the unmutated log's (result, end, items, actions); the line is one
    finding (``code``, its message ``line <bad>: <why>…``) and, when its text is not read (``raw``), one
    ``load_issues`` row with it."""
    assert query(db, GAME) == query(full, GAME) and query(db, GAME)[0][0] == "finished"
    actions = "select seq, turn, team, action, direction, x, y, items_cool, items_hot from chaser_actions order by seq"
    assert query(db, actions) == query(full, actions)
    found = query(db, "select code, message from violations where family = 'consistency'")
    assert [c for c, _ in found] == [code] and found[0][1].startswith(f"line {bad}: {why}"), found
    assert query(db, "select truncated from chaser_games") == [(False,)]
    issues = query(db, "select line, reason, raw_length from load_issues")
    if raw is None:
        assert issues == []
    else:
        assert len(issues) == 1 and issues[0][0] == bad and issues[0][1].startswith(f"CHaser log: line {bad}: {why}")
        assert issues[0][2] == len(raw)


def full_db(tmp_path: Path, lines: list[bytes]) -> Path:
    db = tmp_path / "full.duckdb"
    ingest(db, write(tmp_path, lines, "full.txt"))
    return db


def test_the_full_log_has_no_finding_against_a_player(tmp_path: Path) -> None:
    lines = lines_of(ITEMS)
    db = tmp_path / "c.duckdb"
    ingest(db, write(tmp_path, lines))
    assert query(db, "select status, end_kind, winner, rounds_played from matches") == [
        ("finished", "items", "COOL", 100)]
    assert query(db, "select count(*) from violations")[0][0] == 0


def test_garbage_bytes_half_way_are_reported_and_the_game_read_on(tmp_path: Path) -> None:
    lines = lines_of(ITEMS)
    full = full_db(tmp_path, lines)
    # garbage between Cool's action in turn 51 and its 3×3: skipped, the action read with its 3×3
    at = line_of(lines, "[行動]COOL", line_of(lines, "-----残50ターン-----")) + 1
    garbage = b"\xff\xfe\x00\x13garbage\x81\x80\r"
    lines.insert(at, garbage)
    db = tmp_path / "c.duckdb"
    report = ingest(db, write(tmp_path, lines))
    assert (report.ingested, report.quarantined) == (1, 1)
    check_mended(db, full, at + 1, "chaser-log-line", "not UTF-8 text (byte 1 of the line is 0xff)", garbage + b"\n")
    assert query(db, "select turn_no, player from violations") == [(51, None)]


@pytest.mark.parametrize("how", ["3×3 line lost", "action line cut short"])
def test_a_broken_turn_block_is_reported_and_the_game_read_on(tmp_path: Path, how: str) -> None:
    lines = lines_of(ITEMS)
    full = full_db(tmp_path, lines)
    act = line_of(lines, "[行動]HOT", line_of(lines, "-----残40ターン-----"))
    if how == "3×3 line lost":
        del lines[act + 1]  # Hot's action in turn 61 has no 3×3: read without it (the next 3×3 agrees)
        bad, code, why, raw = act + 2, "chaser-surroundings", f"no HOT:<10 digits> line after [行動]HOT (line {act + 1})", None
    else:
        text = lines[act].decode()
        lines[act] = text[: text.index("を行いました")].encode()  # '[…][行動]HOTがWalkDown' and no more
        bad, code, raw = act + 1, "chaser-log-line", lines[act] + b"\n"
        why = f"not a line the CHaser server writes: {text[: text.index('を行いました')]!r}: read as the [行動]HOT line"
    db = tmp_path / "c.duckdb"
    assert ingest(db, write(tmp_path, lines)).quarantined == (raw is not None)
    check_mended(db, full, bad, code, why, raw)


def test_a_file_cut_off_in_a_line_stops_there(tmp_path: Path) -> None:
    lines = lines_of(ITEMS)
    act = line_of(lines, "[行動]HOT", line_of(lines, "-----残40ターン-----"))
    text = lines[act].decode()
    lines = [*lines[:act], text[: text.index("を行いました")].encode()]  # the file stops in Hot's action line
    db = tmp_path / "c.duckdb"
    assert ingest(db, write(tmp_path, lines)).quarantined == 1
    check_cut(db, lines, act + 1, f"the file ends in the middle of this line ({text[: text.index('を行いました')]!r})")


def test_a_shift_jis_log_with_an_invalid_byte_half_way(tmp_path: Path) -> None:
    lines = [line.decode("utf-8").encode("cp932") for line in lines_of(ITEMS)]
    full = full_db(tmp_path, lines)
    at = line_of(lines, "[行動]COOL", line_of(lines, "-----残50ターン-----", encoding="cp932"), encoding="cp932")
    column = lines[at].index("行".encode("cp932"))
    lines[at] = lines[at][: column + 1] + b"\x7f" + lines[at][column + 2:]  # 行 = 0x8d 0x73; 0x8d 0x7f: none
    db = tmp_path / "c.duckdb"
    assert ingest(db, write(tmp_path, lines)).quarantined == 1
    # the line is not text: read as the action its 3×3 line (the next) shows
    check_mended(db, full, at + 1, "chaser-log-line", f"not Shift_JIS text (byte {column + 1} of the line is 0x8d): "
                 "read as the [行動]COOL line", lines[at] + b"\n")  # fmt: skip
    # the names and the map were read as Shift_JIS: the same game as the UTF-8 log
    assert query(db, "select player_name from players order by join_order") == [("greedy_c",), ("greedy_h",)]


def test_a_cut_is_not_a_player_stopping(tmp_path: Path) -> None:
    lines = lines_of(DISCONNECT)
    db = tmp_path / "full.duckdb"
    ingest(db, write(tmp_path, lines, "full.txt"))
    # the whole log: Hot did not answer GetReady (the server's [停止] line) and loses
    assert query(db, "select status, end_kind, winner from matches") == [("finished", "no-response", "COOL")]
    against = "select code, player from violations where player is not null"
    assert query(db, against) == [("chaser-no-response", "HOT")]
    # the file cut off in the middle of that [停止] line: nothing says Hot stopped, nothing against it
    at = line_of(lines, "[停止]HOT")
    db = tmp_path / "cut.duckdb"
    ingest(db, write(tmp_path, [*lines[:at], b"[20261122045804]\x00\x00"], "cut.txt"))
    game = "select status, g.end_kind, g.winner, loser from chaser_games g join matches using (match_id)"
    assert query(db, game) == [("incomplete", "incomplete", None, None)]
    assert query(db, "select code, player from violations") == [("chaser-truncated", None)]
    turn = kept(lines, at + 1)[0]
    assert turn == 13 and query(db, "select sentence from chaser_games")[0][0] == (
        f"the log stops at turn 13, cut at line {at + 1}: the file ends in the middle of this line "
        "('[20261122045804]\\x00\\x00')")
    # garbage where the server wrote that [停止] line, the log going on: the judge's [死因]HOT通信切断 after it is
    # the log's word that Hot stopped (as in the whole log); the garbage line is reported, nothing else
    lines[at] = b"[20261122045804]\x00\x00\x00\x00\r"
    db = tmp_path / "garbage.duckdb"
    ingest(db, write(tmp_path, lines, "garbage.txt"))
    assert query(db, "select status, end_kind, winner from matches") == [("finished", "no-response", "COOL")]
    assert query(db, "select code, player from violations order by code") == [
        ("chaser-log-line", None), ("chaser-no-response", "HOT")]
    assert query(db, "select line from load_issues") == [(at + 1,)]


def test_garbage_after_the_last_line_keeps_the_game_whole(tmp_path: Path) -> None:
    lines = lines_of(ITEMS)
    full = tmp_path / "full.duckdb"
    ingest(full, write(tmp_path, lines, "full.txt"))
    while lines[-1] == b"":
        lines.pop()
    lines += [b"\x00garbage after the end\r", b""]
    db = tmp_path / "c.duckdb"
    assert ingest(db, write(tmp_path, lines)).quarantined == 1
    assert query(db, "select line, reason from load_issues") == [(len(lines) - 1, (
        f"CHaser log cut at line {len(lines) - 1}: binary data, not text (character 1 is 0x00); the game "
        f"before it is whole and kept, line {len(lines) - 1} is not"))]
    game = "select status, end_kind, winner, rounds_played from matches"
    assert query(db, game) == query(full, game) == [("finished", "items", "COOL", 100)]
    actions = "select count(*) from chaser_actions"
    assert query(db, actions) == query(full, actions)


@pytest.mark.parametrize("how", ["a letter in a map row", "a map row lost", "binary bytes in a player's line",
                                 "garbage before the first turn"])  # fmt: skip
def test_a_bad_header_or_map_refuses_the_log_with_the_line_and_why(tmp_path: Path, how: str) -> None:
    lines = lines_of(ITEMS)
    rows = [i for i, line in enumerate(lines) if line.startswith(b"D:")]
    if how == "a letter in a map row":
        cells = lines[rows[2]].split(b",")
        cells[4] = b"x"
        lines[rows[2]] = b",".join(cells)
        bad, why = rows[2] + 1, "map row 3, cell 5 is not a number ('x')"
    elif how == "a map row lost":
        del lines[rows[5]]
        size = next(i for i, line in enumerate(lines) if line.startswith(b"S:"))
        bad, why = lines.index(b"]\r") + 1, f"the map has 16 rows, S: (line {size + 1}) says 17"
    elif how == "binary bytes in a player's line":
        at = line_of(lines, "[ Cool Player")
        lines[at] = lines[at].replace(b"greedy_c", b"gre\xff\xfedy_c")
        column = lines[at].index(b"\xff") + 1
        bad, why = at + 1, f"not UTF-8 text (byte {column} of the line is 0xff)"
    else:
        at = line_of(lines, "-----残100ターン-----")
        lines.insert(at, b"\x01\x02\x03\r")
        bad, why = at + 1, ("binary data, not text (character 1 is 0x01); it comes before the first round "
                            "header: no part of the game to keep")
    db = tmp_path / "c.duckdb"
    report = ingest(db, write(tmp_path, lines))
    assert (report.ingested, report.quarantined) == (0, 1)
    assert query(db, "select line, reason from load_issues") == [(bad, f"CHaser log: line {bad}: {why}")]
    assert query(db, "select count(*) from matches")[0][0] == 0


def test_reading_a_mended_log_again_changes_nothing_and_the_whole_log_replaces_it(tmp_path: Path) -> None:
    lines = lines_of(ITEMS)
    whole = write(tmp_path, lines, "whole.txt")
    at = line_of(lines, "-----残30ターン-----")
    mended = write(tmp_path, [*lines[:at], b"\xff\r", *lines[at:]], "mended.txt")
    db = tmp_path / "c.duckdb"
    ingest(db, mended)
    assert query(db, "select status, end_kind, rounds_played from matches") == [("finished", "items", 100)]
    assert query(db, "select code from violations") == [("chaser-log-line",)]
    before = table_snapshot(db)
    again = ingest(db, mended)
    assert (again.ingested, again.duplicates) == (0, 1)
    assert table_snapshot(db) == before  # the game, its finding and the one load_issues row: the same
    # the whole log has no bad line: it replaces the mended copy (one match, its finding gone); the issue stays
    report = ingest(db, whole)
    assert (report.ingested, report.quarantined) == (1, 0)
    assert query(db, "select status, end_kind, rounds_played from matches") == [("finished", "items", 100)]
    assert query(db, "select count(*) from chaser_actions")[0][0] == sum(ACTION in line for line in lines)
    assert query(db, "select count(*) from violations")[0][0] == 0
    assert query(db, "select count(*), min(line) from load_issues") == [(1, at + 1)]
    # the mended copy read after the whole one changes nothing, but its bad line is still reported
    after = table_snapshot(db, exclude=("load_runs",))
    late = ingest(db, mended)
    assert (late.ingested, late.quarantined) == (0, 1)
    assert table_snapshot(db, exclude=("load_runs",)) == after


def test_the_whole_log_first_then_the_mended_copy(tmp_path: Path) -> None:
    lines = lines_of(ITEMS)
    at = line_of(lines, "-----残30ターン-----")
    db = tmp_path / "c.duckdb"
    ingest(db, write(tmp_path, lines, "whole.txt"))
    games = ("matches", "players", "chaser_games", "chaser_actions", "violations")
    before = {t: rows for t, rows in table_snapshot(db).items() if t in games}
    report = ingest(db, write(tmp_path, [*lines[:at], b"\xff\r", *lines[at:]], "mended.txt"))
    assert (report.ingested, report.quarantined) == (0, 1)
    assert {t: rows for t, rows in table_snapshot(db).items() if t in games} == before
    assert query(db, "select line from load_issues") == [(at + 1,)]


