"""Schema 8's storage contract (docs/data-model.md, "Boards and raw lines since schema 8").

* The board derived for every event (``queries.boards``: the fold from the nearest keyframe) is the
  replay's own board — on every fixture, a log with gaps, the stored (MongoDB) copies, a resumed
  match and a match replayed in worker processes.
* Every raw line comes back byte for byte (``queries.rawlines``), whatever it holds.
* Keyframes are few on a log the fold follows (about one per round), and blocks hold at most
  ``BLOCK_LINES`` lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from rules.uno.log import activity_from_raw
from queries.boards import state_row
from queries.rawlines import BLOCK_LINES, lines
from queries.boards import BOARD_COLUMNS, boards
from rules.core import Frame
from rules.uno.replay import MatchReplay
from tests.conftest import REPO, SMALL_MATCHES, damage, fixture_path, ingest, raw_texts, read_lines, write_lines


def replayed_boards(con: duckdb.DuckDBPyConnection, match: str) -> dict[int, dict[str, Any]]:
    """The board after every event as a fresh replay of the stored lines gives it (what the loader replayed)."""
    text = lines(con, match, 1, 2**62)
    r = MatchReplay(match_id=match)
    frames: list[Frame] = []
    for seq in sorted(text):
        frames += r.feed(activity_from_raw(text[seq], seq))
    frames += r.close()
    out = {}
    for fr in frames:
        if fr.event is not None:
            row = state_row(match, fr)[1:]
            out[fr.seq] = dict(zip(BOARD_COLUMNS, (v.decode() if isinstance(v, bytes) else v for v in row), strict=True))
    return out


def derived_boards(con: duckdb.DuckDBPyConnection, match: str) -> dict[int, dict[str, Any]]:
    (last,), = con.execute("select max(seq) from events where match_id = ?", [match]).fetchall()
    return {b["seq"]: b for b in boards(con, match, 1, int(last))}


def assert_boards_are_the_replays(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        checked = 0
        for (match,) in con.execute("select match_id from matches where game = 'algori-uno'").fetchall():
            want, got = replayed_boards(con, match), derived_boards(con, match)
            n_events = con.execute("select count(*) from events where match_id = ?", [match]).fetchone()[0]
            assert len(got) == n_events, match
            assert got.keys() == want.keys(), match
            bad = [s for s in want if got[s] != want[s]]
            assert not bad, (match, bad[:3], want[bad[0]], got[bad[0]])
            checked += len(want)
        return checked
    finally:
        con.close()


@pytest.mark.parametrize("match", SMALL_MATCHES)  # the 300-round log: test_keyframes_are_few… and test_rounds
def test_every_derived_board_is_the_replays_board(tmp_path: Path, match: str) -> None:
    db = tmp_path / "k.duckdb"
    ingest(db, fixture_path(match))
    assert assert_boards_are_the_replays(db) > 0


@pytest.mark.parametrize("match", ["misbehave_skipbind2_80", "speciallogic_timeout_probe_2"])
def test_boards_of_the_stored_copy_and_of_worker_processes_are_the_replays(tmp_path: Path, match: str) -> None:
    stored, workers = tmp_path / "s.duckdb", tmp_path / "w.duckdb"
    ingest(stored, fixture_path(match, "stored"))
    ingest(workers, fixture_path(match), jobs=2, rounds_per_task=2)
    assert assert_boards_are_the_replays(stored) > 0 and assert_boards_are_the_replays(workers) > 0


@pytest.mark.parametrize("op", ["drop", "dup", "swap"])
def test_boards_over_log_gaps_are_the_replays(tmp_path: Path, op: str) -> None:
    """A lost, repeated or swapped line: the replay's own reasoning there is kept as a keyframe."""
    lines_ = read_lines(fixture_path("misbehave_bind2_40"))
    for i in (57, 911, 2400, 4001):
        damage(lines_, op, i)
    db = tmp_path / "k.duckdb"
    ingest(db, write_lines(tmp_path / "gaps.jsonl", lines_))
    assert assert_boards_are_the_replays(db) > 0


def test_a_match_continued_in_a_later_run_has_the_replays_boards(tmp_path: Path) -> None:
    whole = read_lines(fixture_path("misbehave_bind2_40"))
    db = tmp_path / "k.duckdb"
    for i, (a, b) in enumerate([(0, 777), (777, 3001), (3001, len(whole))]):
        ingest(db, write_lines(tmp_path / f"part{i}.jsonl", whole[a:b]))
    assert assert_boards_are_the_replays(db) == len(whole)


def test_keyframes_are_few_on_a_log_the_fold_follows(tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    ingest(db, fixture_path("demo4_skipbind2_300"))
    con = duckdb.connect(str(db), read_only=True)
    try:
        (events, rounds, keyframes), = con.execute(
            "select (select count(*) from events), (select count(*) from rounds), (select count(*) from board_keyframes)").fetchall()
        firsts = con.execute("select count(*) from board_keyframes k join events e using (match_id, seq) "
                             "where e.event = 'first-player'").fetchone()[0]  # fmt: skip
        per_block = con.execute("select max(len(seqs)), bool_and(len(seqs) = len(lengths)) from raw_blocks").fetchone()
        dup = con.execute("select count(*) from (select match_id, seq from events group by all having count(*) > 1)").fetchone()[0]
    finally:
        con.close()
    assert firsts == rounds  # every round starts from a keyframe
    assert rounds <= keyframes <= rounds + rounds // 10 + 5, (events, rounds, keyframes)
    assert per_block[0] <= BLOCK_LINES and per_block[1]
    assert dup == 0
    assert assert_boards_are_the_replays(db) == events


def test_every_raw_line_comes_back_byte_for_byte(tmp_path: Path) -> None:
    """Non-ASCII names, escapes, huge numbers, a line of 200,000 characters, Kakomimasu and CHaser
    records: what was read is what comes back, packed or not."""
    source = read_lines(fixture_path("misbehave_bind2_40"))
    docs = [json.loads(x) for x in source[:40]]
    docs[4]["contents"]["player_name"] = "棋譜 <b>*bold*</b> \\u0000 \U0001f600"
    special = [json.dumps(d, ensure_ascii=i % 2 == 0).encode() for i, d in enumerate(docs)]
    special.append(json.dumps({**docs[-1], "contents": {**docs[-1]["contents"], "pad": "x" * 200_000}}).encode())
    lines_ = special + source[40:] + read_lines(REPO / "tests" / "data" / "hostile_numbers.jsonl")
    db = tmp_path / "k.duckdb"
    log = write_lines(tmp_path / "log.jsonl", lines_)
    report = ingest(db, log)
    con = duckdb.connect(str(db), read_only=True)
    try:
        bad = {n for (n,) in con.execute("select line from load_issues").fetchall()}
    finally:
        con.close()
    assert report.quarantined == len(bad) < 10  # a few of the hostile numbers' lines
    accepted = [x.decode() for n, x in enumerate(lines_, 1) if n not in bad]
    assert sorted(raw_texts(db)) == sorted(accepted) and len(accepted) > 5000
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("select count(*) from raw_activities where raw is not null").fetchone()[0] == 0
        assert con.execute("select count(*) from raw_blocks").fetchone()[0] > 1
    finally:
        con.close()


def test_kakomimasu_and_chaser_records_come_back_byte_for_byte(tmp_path: Path) -> None:
    from queries import dashboard as q

    db = tmp_path / "k.duckdb"
    kako = sorted((REPO / "tests" / "fixtures" / "kakomimasu" / "v1_games").glob("*.json"))[:3]
    chaser = sorted((REPO / "tests" / "fixtures" / "chaser" / "games").glob("log*.txt"))[:2]
    if not kako or not chaser:
        pytest.skip("Kakomimasu or CHaser fixtures missing from tests/fixtures")
    ingest(db, *kako, *chaser)
    con = duckdb.connect(str(db), read_only=True)
    try:
        records = {m: q.match_records(con, m) for (m,) in con.execute("select match_id from matches").fetchall()}
    finally:
        con.close()
    texts = {r for recs in records.values() for _, r in recs}
    assert len(records) == len(kako) + len(chaser) and all(records.values())
    for path in kako + chaser:  # a whole file is one record: its text exactly
        assert path.read_bytes().decode("utf-8") in texts, path.name


def test_repack_streams_a_match_into_the_blocks_one_pack_makes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A match stored a few lines at a time (many small blocks, some lines still as text, a line longer than
    a block) is packed again, a window of old blocks at a time, into exactly the blocks one ``pack`` of all its
    lines makes, and every line comes back; another match is left as it was."""
    import pyarrow as pa

    from queries import rawlines

    monkeypatch.setattr(rawlines, "BLOCK_LINES", 7)
    monkeypatch.setattr(rawlines, "BLOCK_BYTES", 400)
    monkeypatch.setattr(rawlines, "REPACK_WINDOW", 2)
    monkeypatch.setattr(rawlines, "REPACK_BELOW", 2)
    texts = {seq: json.dumps({"seq": seq, "name": "棋譜" * (seq % 5), "pad": "x" * (900 if seq == 41 else seq)})
             for seq in range(1, 120)}  # fmt: skip

    def table(match: str, seqs: list[int]) -> pa.Table:
        return pa.table({"match_id": pa.array([match] * len(seqs), type=pa.string()),
                         "seq": pa.array(seqs, type=pa.int64()),
                         "raw": pa.array([texts[s] for s in seqs], type=pa.string())})  # fmt: skip

    con = duckdb.connect()
    con.execute("create table raw_activities (match_id varchar, seq bigint, raw varchar)")
    con.execute("create table raw_blocks (match_id varchar, first_seq bigint, last_seq bigint, codec varchar, "
                "seqs bigint[], lengths bigint[], data blob)")  # fmt: skip
    as_text = {5, 6, 50, 51, 52, 118, 119}
    for lo in range(1, 120, 3):  # batches of three lines, as a watcher stores them
        seqs = [s for s in range(lo, min(lo + 3, 120))]
        rows, blocks = rawlines.pack(table("m", [s for s in seqs if s not in as_text]))  # noqa: F841
        con.execute("insert into raw_blocks by name select * from blocks")
        con.execute("insert into raw_activities select match_id, seq, raw from rows")
        text_rows = table("m", [s for s in seqs if s in as_text])  # noqa: F841
        con.execute("insert into raw_activities select * from text_rows")
    other_rows, other = rawlines.pack(table("other", [1, 2, 3]))  # noqa: F841
    con.execute("insert into raw_blocks by name select * from other")
    small_blocks = con.execute("select count(*) from raw_blocks where match_id = 'm'").fetchone()[0]
    assert rawlines.loose(con) == ["m"]

    rawlines.repack(con, "m")

    _, want = rawlines.pack(table("m", sorted(texts)))
    got = con.execute("select match_id, first_seq, last_seq, codec, seqs, lengths from raw_blocks "
                      "where match_id = 'm' order by first_seq").fetchall()  # fmt: skip
    assert got == [tuple(r.values()) for r in want.drop(["data"]).to_pylist()]
    assert len(want) < small_blocks and max(len(s) for s in want.column("seqs").to_pylist()) <= 7
    assert rawlines.lines(con, "m", 1, 2**62) == texts
    assert con.execute("select count(*) from raw_activities where raw is not null").fetchone()[0] == 0
    assert rawlines.lines(con, "other", 1, 2**62) == {s: texts[s] for s in (1, 2, 3)}
    assert rawlines.loose(con) == []


def test_only_matches_in_small_blocks_are_packed_again() -> None:
    """A compaction packs a match's lines again only when its blocks are small on average (a watcher that followed a
    slow match); blocks of half a full one and more compress within a few per cent of full ones and stay."""
    from queries import rawlines

    con = duckdb.connect(":memory:")
    con.execute("create table raw_blocks (match_id varchar, seqs bigint[])")
    con.execute("create table raw_activities (match_id varchar, raw varchar)")

    def blocks(match: str, sizes: list[int]) -> None:
        seq = 0
        for n in sizes:
            con.execute("insert into raw_blocks values (?, ?)", [match, list(range(seq + 1, seq + n + 1))])
            seq += n

    half = rawlines.REPACK_BELOW
    blocks("fast", [half + 50] * 20)  # a watcher that kept up with a fast match: a block of ~0.6 of a full one a batch
    blocks("slow", [30] * 40)  # a slow match: a few lines a batch
    blocks("mixed", [rawlines.BLOCK_LINES] * 3 + [5] * 200)  # fast, then slow: small on average
    blocks("one", [10])  # a single block: packing it again makes the same block
    blocks("full", [rawlines.BLOCK_LINES] * 5 + [7])
    con.execute("insert into raw_activities values ('text', 'a line still as text')")
    assert rawlines.loose(con) == ["mixed", "slow", "text"]
