"""The CHaser loader: server logs and maps by content, identity, cut-off logs, hostile files, three games in one database."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLE, SHARED, ingest, query, table_snapshot
from tests.rules.test_chaser import EXPECTED

DATA = REPO / "tests" / "data" / "chaser"
KDATA = REPO / "tests" / "data" / "kakomimasu"
CFIX = SHARED / "fixtures" / "chaser"


def consistency(db: Path) -> int:
    return query(db, "select count(*) from violations where family = 'consistency'")[0][0]


def test_logs_and_maps_load_by_content(tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    report = ingest(db, DATA)
    assert report.quarantined == 0 and consistency(db) == 0
    rows = query(db, "select m.winner, m.end_kind, m.game, m.status from matches m order by m.match_id")
    assert sorted(rows) == sorted([("COOL", "invalid-direction", "chaser", "finished"),
                                   ("COOL", "put-on", "chaser", "finished"),
                                   ("HOT", "surrounded-by-opponent", "chaser", "finished")])  # fmt: skip
    assert query(db, "select name from chaser_maps") == [("交流大会2024-決勝",)]
    # the game on that tournament map is named by it
    named = query(db, "select coalesce(mp.name, g.map_name) from chaser_games g left join chaser_maps mp using (map_key) "
                      "where g.end_kind = 'put-on'")  # fmt: skip
    assert named == [("交流大会2024-決勝",)]
    # the required action columns, one row per [行動] line
    acts = query(db, "select match_id, turn, remaining, team, action, direction, x, y, surroundings, item_taken "
                     "from chaser_actions a join chaser_games g using (match_id) where g.end_kind = 'put-on' order by seq")  # fmt: skip
    assert len(acts) == 15 and acts[0][1:10] == (1, 100, "COOL", "walk", "left", 6, 5, "1003000002", False)
    assert [a[3] for a in acts[:4]] == ["COOL", "HOT", "COOL", "HOT"]
    players = query(db, "select player_code, player_name, final_score, final_rank from players p join chaser_games g "
                        "using (match_id) where g.end_kind = 'put-on' order by join_order")  # fmt: skip
    assert players == [("COOL", "hunter_c", 0, 1), ("HOT", "idle_h", 0, 2)]
    bad = query(db, "select player, code from violations where family = 'player-rule'")
    assert bad == [("HOT", "chaser-invalid-direction")]


def test_reingest_and_other_encodings_are_the_same_game(tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    ingest(db, DATA)
    before = table_snapshot(db, exclude=("load_runs", "raw_activities"))
    text = (DATA / "put_on.txt").read_bytes().decode("utf-8")
    (tmp_path / "lf.txt").write_bytes(text.replace("\r\n", "\n").encode("utf-8"))
    (tmp_path / "sjis.log").write_bytes(text.encode("cp932"))
    (tmp_path / "again.txt.gz").write_bytes(gzip.compress(text.encode("utf-8")))
    report = ingest(db, DATA, tmp_path / "lf.txt", tmp_path / "sjis.log", tmp_path / "again.txt.gz")
    assert report.ingested == 0 and report.quarantined == 0
    assert table_snapshot(db, exclude=("load_runs", "raw_activities")) == before


def test_a_cut_off_log_loads_and_the_full_one_replaces_it(tmp_path: Path) -> None:
    text = (DATA / "surrounded.txt").read_bytes()
    half = text[: len(text) // 2]
    (tmp_path / "cut.txt").write_bytes(half)
    db = tmp_path / "c.duckdb"
    report = ingest(db, tmp_path / "cut.txt")
    # the file stops in the middle of its last line: that line is quarantined, the game before it loads
    last = half.count(b"\n") + 1
    assert not half.endswith(b"\n") and report.quarantined == 1
    (line, reason), = query(db, "select line, reason from load_issues")
    assert line == last
    assert reason.startswith(f"CHaser log cut at line {last}: the file ends in the middle of this line")
    assert query(db, "select status, winner, end_kind from matches") == [("incomplete", None, "incomplete")]
    assert query(db, "select code from violations where family = 'consistency'") == [("chaser-truncated",)]
    # a file that stops at a line end quarantines nothing
    (tmp_path / "cut_at_line_end.txt").write_bytes(half[: half.rindex(b"\n") + 1])
    assert ingest(tmp_path / "c2.duckdb", tmp_path / "cut_at_line_end.txt").quarantined == 0
    (tmp_path / "full.txt").write_bytes(text)
    ingest(db, tmp_path / "full.txt")
    assert query(db, "select status, winner, end_kind from matches") == [("finished", "HOT", "surrounded-by-opponent")]
    assert consistency(db) == 0
    assert ingest(db, tmp_path / "cut.txt").ingested == 0  # the shorter copy changes nothing
    assert query(db, "select count(*) from matches")[0][0] == 1


def test_hostile_files_are_quarantined_with_a_reason(tmp_path: Path) -> None:
    d = tmp_path / "bad"
    d.mkdir()
    header = b"--Stable Log--\r\n[ Map : \r\nT:100\r\nS:15,17\r\n"
    (d / "zero.txt").write_bytes(header + b"D:\r\nC:0,0\r\nH:1,1\r\n]\r\n")
    (d / "wide.txt").write_bytes(header.replace(b"S:15,17", b"S:10000,1") + b"D:" + b",".join([b"0"] * 10_000)
                                 + b"\r\nC:0,0\r\nH:1,0\r\n]\r\n")  # fmt: skip
    (d / "binary.log").write_bytes(b"--Stable Log--\r\n" + bytes(range(256)) * 64 + b"\xff\xfe\x80\x81")
    (d / "huge.txt.gz").write_bytes(gzip.compress(b"--Stable Log--\n" + b"x" * 100 * 1024 * 1024 + b"\n", 1))
    (d / "letters.map").write_bytes(b"N:m\nT:100\nS:3,1\nD:0,a,0\nC:0,0\nH:2,0\n")
    (d / "good.txt").write_bytes((DATA / "put_on.txt").read_bytes())
    db = tmp_path / "c.duckdb"
    report = ingest(db, d)
    assert report.quarantined == 5
    # a refused log is quarantined, not also counted as accepted
    assert (report.ingested, report.duplicates, report.records_read) == (1, 0, 6)
    assert sorted((s.accepted, s.quarantined) for s in report.sources) == [(0, 1)] * 5 + [(1, 0)]
    reasons = dict(query(db, "select regexp_extract(source, '[^/]+$'), reason from load_issues"))
    assert "0 columns" in reasons["zero.txt"]
    assert "outside 1…200" in reasons["wide.txt"] or "10,000 cells" in reasons["wide.txt"]
    assert reasons["binary.log"] == "CHaser log: line 2: binary data, not text (character 1 is 0x00)"
    assert "larger than the 16,777,216-byte limit" in reasons["huge.txt.gz"]
    assert "not a number" in reasons["letters.map"]
    assert query(db, "select end_kind from matches") == [("put-on",)]


def test_three_games_in_one_database(tmp_path: Path) -> None:
    db = tmp_path / "all.duckdb"
    report = ingest(db, SAMPLE, KDATA, DATA)
    assert report.quarantined == 0 and consistency(db) == 0
    assert dict(query(db, "select game, count(*) from matches group by game")) == {
        "algori-uno": 1, "kakomimasu": 4, "chaser": 3}


def test_the_fixture_folder_loads_without_issues_or_inconsistencies(tmp_path: Path) -> None:
    if not CFIX.exists():
        pytest.skip(f"CHaser fixtures not found at {CFIX} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    db = tmp_path / "c.duckdb"
    report = ingest(db, CFIX)
    assert report.quarantined == 0 and consistency(db) == 0
    assert query(db, "select count(*) from chaser_maps")[0][0] == 11
    got = {Path(src).name: (w, k) for src, w, k in query(
        db, "select r.source, m.winner, m.end_kind from matches m join raw_activities r using (match_id)")}  # fmt: skip
    assert got == {name: (winner, kind) for name, (winner, kind, _items) in EXPECTED.items()}
    assert ingest(db, CFIX).ingested == 0


def test_a_death_only_the_replay_finds_is_stored_at_its_turn(tmp_path: Path) -> None:
    """The idle 128-turn draw with Cool's turn-50 Look made a walk off the map (and the 3×3 the server would
    write after it), nothing else: no [死因], the log goes on to 残0. The game's summary — chaser_games,
    matches, the finding — says turn 50 (not the turn after the last one)."""
    from tests.rules.test_chaser_accounted import idle_cool_acts

    text, _ = idle_cool_acts({50: ("Walk", "Up")})
    path = tmp_path / "log.txt"
    path.write_bytes(text.encode("utf-8"))
    db = tmp_path / "c.duckdb"
    assert ingest(db, path).quarantined == 0
    assert query(db, "select end_kind, end_turn, winner, loser, sentence from chaser_games") == [
        ("walked-into-block", 50, "HOT", "COOL", "idle_c walked into a block at turn 50")]
    assert query(db, "select end_kind, rounds_played, winner from matches") == [("walked-into-block", 50, "HOT")]
    assert query(db, "select code, turn_no, player from violations where code = 'chaser-end'") == [
        ("chaser-end", 50, "COOL")]
