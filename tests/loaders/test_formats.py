"""Every shape a dealer log comes in ingests to the same match, and identity rules hold."""

from __future__ import annotations

import codecs
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from bson import json_util

from tests.conftest import REPO, fixture_path, ingest, query, read_lines, table_snapshot, write_lines

BASE = REPO / "tests" / "data" / "probe_head.jsonl"
STORED = REPO / "tests" / "data" / "probe_head.stored.jsonl"
EVENT_COLS = "match_id, seq, round_no, turn_no, event, actor, target, card_color, card_number, card_special, n_cards, chosen_color, yell_uno, draw_reason"


def events_of(db: Path) -> list[tuple[Any, ...]]:
    return query(db, f"select {EVENT_COLS} from events order by match_id, seq")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Any, ...]]:
    db = tmp_path_factory.mktemp("ref") / "k.duckdb"
    ingest(db, BASE)
    return events_of(db)


def _ingest_one(tmp_path: Path, path: Path) -> Path:
    db = tmp_path / "k.duckdb"
    report = ingest(db, path)
    assert report.quarantined == 0, report.issue_examples
    return db


def test_json_array(tmp_path: Path, reference: list[Any]) -> None:
    path = tmp_path / "log.json"
    path.write_bytes(b"[" + b",".join(read_lines(BASE)) + b"]")
    assert events_of(_ingest_one(tmp_path, path)) == reference


@pytest.mark.parametrize("indent", [None, 2], ids=["compact", "pretty"])
def test_mongoexport_json_array_relaxed(tmp_path: Path, reference: list[Any], indent: int | None) -> None:
    docs = [json.loads(line) for line in read_lines(STORED)]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(docs, indent=indent, ensure_ascii=False), encoding="utf-8")
    assert events_of(_ingest_one(tmp_path, path)) == reference


def test_json_array_element_spanning_many_lines_is_read_in_one_pass(tmp_path: Path) -> None:
    """A multi-line element used to be re-parsed at every line (120 KB: 55 s)."""
    from loaders.core.sources import FileSource

    doc = {"event": "special-logic", "dealer": "d", "turn": 1, "contents": {"title": "x", "pad": list(range(40_000))}}
    path = tmp_path / "tall.json"
    path.write_text("[\n" + json.dumps(doc, indent=1) + ",\n" + json.dumps(doc) + "\n]\n", encoding="utf-8")
    assert path.read_text().count("\n") > 40_000
    recs = list(FileSource(path).records())
    assert [r.doc for r in recs] == [doc, doc]
    assert [r.line for r in recs] == [2, json.dumps(doc, indent=1).count("\n") + 3]


def test_whole_json_array_on_one_line_larger_than_the_line_limit(tmp_path: Path, reference: list[Any]) -> None:
    from loaders.core import sources

    lines = read_lines(BASE)
    path = tmp_path / "one-line.json"
    path.write_bytes(b"[" + b",".join(lines * 200) + b"]")
    assert path.stat().st_size > sources.MAX_LINE_BYTES
    recs = list(sources.FileSource(path).records())
    assert len(recs) == len(lines) * 200 and all(r.error is None for r in recs)


def test_mongoexport_canonical_extended_json(tmp_path: Path, reference: list[Any]) -> None:
    lines = [
        json_util.dumps(json_util.loads(line), json_options=json_util.CANONICAL_JSON_OPTIONS).encode()
        for line in read_lines(STORED)
    ]
    assert b"$numberInt" in lines[5]
    path = write_lines(tmp_path / "canonical.jsonl", lines)
    assert events_of(_ingest_one(tmp_path, path)) == reference


def test_gzip_and_plain_are_the_same(tmp_path: Path, reference: list[Any]) -> None:
    path = write_lines(tmp_path / "log.jsonl.gz", read_lines(BASE), gz=True)
    assert events_of(_ingest_one(tmp_path, path)) == reference


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_bom_and_utf16(tmp_path: Path, reference: list[Any], encoding: str) -> None:
    text = BASE.read_text(encoding="utf-8")
    path = tmp_path / "log.jsonl"
    path.write_bytes(text.encode(encoding))
    if encoding == "utf-16":
        assert path.read_bytes()[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
    assert events_of(_ingest_one(tmp_path, path)) == reference


def test_crlf_line_endings(tmp_path: Path, reference: list[Any]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\r\n".join(read_lines(BASE)) + b"\r\n")
    assert events_of(_ingest_one(tmp_path, path)) == reference


def test_directories_and_globs_in_one_call(tmp_path: Path) -> None:
    d = tmp_path / "logs"
    (d / "sub").mkdir(parents=True)
    write_lines(d / "a.jsonl", read_lines(BASE))
    write_lines(d / "sub" / "b.jsonl.gz", read_lines(STORED), gz=True)
    (d / "notes.md").write_text("not a log")
    other = write_lines(tmp_path / "c.log", read_lines(BASE))
    db = tmp_path / "k.duckdb"
    report = ingest(db, d, str(tmp_path / "*.log"))
    assert [s.name for s in report.sources] == [str(d / "a.jsonl"), str(d / "sub" / "b.jsonl.gz"), str(other)]
    assert report.ingested == 24 and report.duplicates == 48
    assert query(db, "select count(*) from matches") == [(1,)]


# ------------------------------------------------------------------ spec and 2022 shapes


def _spec_shape(line: bytes) -> bytes:
    """Rewrite a real 2023 line the way the official log spec spells it."""
    d = json.loads(line)
    c = d.pop("contents")
    if d["event"] == "join-room":
        c["player_id"] = c.pop("player_code")
    if d["event"] == "disconnect":
        c = {"socketId": c}
    if d["event"] == "finish-game":
        c["total_score"] = c.pop("score")
        c["turn_win"] = c["order"]
    d["content"] = c
    d.pop("desk", None)
    if isinstance(d.get("dateCreated"), int):
        from datetime import UTC, datetime

        d["dateCreated"] = datetime.fromtimestamp(d["dateCreated"] / 1000, UTC).isoformat()
    return json.dumps(d).encode()


def test_official_spec_spelling(tmp_path: Path) -> None:
    lines = read_lines(fixture_path("speciallogic_timeout_probe_2"))
    path = write_lines(tmp_path / "spec.jsonl", [_spec_shape(line) for line in lines])
    db = _ingest_one(tmp_path, path)
    ref = _ingest_one(tmp_path / "ref", fixture_path("speciallogic_timeout_probe_2")) if (tmp_path / "ref").mkdir() is None else None
    assert ref is not None
    assert events_of(db) == events_of(ref)
    assert query(db, "select player_code, player_name, final_score, final_rank from players order by final_rank") == [
        ("P-00000004", "Alternative 4", 91, 1),
        ("P-00000013", "Prober", 84, 2),
        ("P-00000002", "Alternative 2", -61, 3),
        ("P-00000003", "Alternative 3", -114, 4),
    ]
    assert query(db, "select contents->>'socketId' is not null from events where event = 'disconnect'") == [(True,)] * 4


def test_2022_dealer_shape_and_unknown_events(tmp_path: Path) -> None:
    out = []
    for line in read_lines(BASE):
        d = json.loads(line)
        d.pop("dealer_code")
        d.pop("desk", None)
        if d["event"] == "play-card" and d["player"] == "P-00000002":
            d["event"] = "say-uno-and-play-card"
        out.append(json.dumps(d).encode())
    out.insert(8, json.dumps({"event": "mystery-event", "dealer": "speciallogic-timeout-probe-2",
                              "player": "", "turn": 1, "contents": {"x": 1}}).encode())  # fmt: skip
    db = tmp_path / "k.duckdb"
    report = ingest(db, write_lines(tmp_path / "old.jsonl", out))
    assert report.quarantined == 0
    assert report.unknown_events == {"mystery-event": 1}
    assert query(db, "select log_format, dealer_code from matches") == [("algori-2022", None)]
    assert query(db, "select count(*) from events") == [(len(out),)]
    assert query(db, "select count(*) from events where event = 'mystery-event'") == [(1,)]
    assert query(db, "select seq, card_color, card_number from events where event = 'say-uno-and-play-card' order by seq") == [
        (13, "blue", 5), (24, "blue", 5)
    ]
    assert query(db, "select unknown_events from load_runs") == [('{"mystery-event":1}',)]


# ------------------------------------------------------------------ identity and idempotence


def _relabel(lines: list[bytes], code: str, name: str) -> list[bytes]:
    out = []
    for line in lines:
        d = json.loads(line)
        d["dealer_code"], d["dealer"] = code, name
        out.append(json.dumps(d).encode())
    return out


def test_colliding_dealer_code_and_name_stay_distinct(tmp_path: Path) -> None:
    a = _relabel(read_lines(fixture_path("speciallogic_timeout_probe_2")), "D-00000001", "Dealer 1")
    b = _relabel(read_lines(fixture_path("noprogress_hoard4_3")), "D-00000001", "Dealer 1")
    db = tmp_path / "k.duckdb"
    ingest(db, write_lines(tmp_path / "a.jsonl", a), write_lines(tmp_path / "b.jsonl", b))
    rows = query(db, "select match_id, dealer_code, dealer_name, n_events from matches order by n_events")
    assert len(rows) == 2 and rows[0][0] != rows[1][0]
    assert [r[3] for r in rows] == [len(a), len(b)]
    # both logs concatenated in one file are still two matches
    db2 = tmp_path / "k2.duckdb"
    ingest(db2, write_lines(tmp_path / "ab.jsonl", a + b))
    assert query(db2, "select match_id, n_events from matches order by n_events") == [(r[0], r[3]) for r in rows]


def test_same_file_twice_is_a_no_op(tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    ingest(db, BASE)
    before = table_snapshot(db)
    report = ingest(db, BASE)
    assert report.ingested == 0 and report.duplicates == 24
    assert table_snapshot(db) == before
    assert query(db, "select run_id, records_ingested, records_duplicate from load_runs order by run_id") == [
        (1, 24, 0), (2, 0, 24)
    ]


def test_identical_lines_in_one_log_are_two_events(tmp_path: Path) -> None:
    lines = read_lines(BASE)
    lines.insert(14, lines[13])  # the special-logic line, twice
    db = tmp_path / "k.duckdb"
    ingest(db, write_lines(tmp_path / "dup.jsonl", lines))
    assert query(db, "select seq, title from special_logic order by seq")[:2] == [(14, "probe"), (15, "probe")]
    assert query(db, "select count(*) from events") == [(25,)]


def test_partial_log_then_full_log_appends_only_the_rest(tmp_path: Path) -> None:
    lines = read_lines(fixture_path("misbehave_bind2_40"))
    full_db, part_db = tmp_path / "full.duckdb", tmp_path / "part.duckdb"
    ingest(full_db, fixture_path("misbehave_bind2_40"))
    first = ingest(part_db, write_lines(tmp_path / "part.jsonl", lines[:3000]))
    assert query(part_db, "select status from matches") == [("incomplete",)]
    second = ingest(part_db, fixture_path("misbehave_bind2_40"))
    assert first.ingested == 3000 and second.ingested == len(lines) - 3000 and second.duplicates == 3000
    skip = ("load_runs", "raw_activities", "events", "matches", "violations")
    assert table_snapshot(part_db, exclude=skip) == table_snapshot(full_db, exclude=skip)
    # the match is validated again as a whole: same findings, written by the second run
    findings = "select * exclude (run_id) from violations order by all"
    assert query(part_db, findings) == query(full_db, findings)
    assert query(part_db, "select distinct run_id from violations") == [(2,)]
    assert events_of(part_db) == events_of(full_db)
    cols = "match_id, rounds_played, winner, status, final_scores, n_events, first_run_id, last_run_id"
    assert query(part_db, f"select {cols} from matches")[0][:6] == query(full_db, f"select {cols} from matches")[0][:6]
    assert query(part_db, "select first_run_id, last_run_id from matches") == [(1, 2)]


def test_a_crash_mid_run_leaves_the_database_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from loaders.core import store

    db = tmp_path / "k.duckdb"
    ingest(db, BASE)
    before = table_snapshot(db, exclude=())
    calls = {"n": 0}
    real = store.Store._insert

    def failing(self: Any, table: str, rows: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 4:
            raise RuntimeError("simulated crash")
        real(self, table, rows)

    monkeypatch.setattr(store.Store, "_insert", failing)
    monkeypatch.setattr(store, "FLUSH_ROWS", 500)
    with pytest.raises(RuntimeError, match="simulated crash"):
        ingest(db, fixture_path("misbehave_bind2_40"))
    assert calls["n"] >= 4
    assert table_snapshot(db, exclude=()) == before


def test_an_insert_failing_in_the_writer_thread_fails_the_run_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Full buffers are inserted by a writer thread: DuckDB's own error there still ends the run, rolled back."""
    import duckdb
    import pyarrow as pa

    from loaders.core import store

    db = tmp_path / "k.duckdb"
    ingest(db, BASE)
    before = table_snapshot(db, exclude=())
    calls = {"n": 0}
    threads: set[str] = set()
    real_narrow, real_run = store.Store._narrow, store._Writer._run

    def corrupt(self: Any, table: str, batch: Any) -> Any:
        batch = real_narrow(self, table, batch)
        if table == "events":
            calls["n"] += 1
            if calls["n"] == 3:  # a seq DuckDB cannot read as a number
                batch = batch.set_column(2, "seq", pa.array(["x"] * batch.num_rows))
        return batch

    def run(self: Any) -> None:
        import threading

        threads.add(threading.current_thread().name)
        real_run(self)

    monkeypatch.setattr(store.Store, "_narrow", corrupt)
    monkeypatch.setattr(store._Writer, "_run", run)
    monkeypatch.setattr(store, "FLUSH_ROWS", 500)
    with pytest.raises(duckdb.ConversionException):
        ingest(db, fixture_path("misbehave_bind2_40"))
    assert calls["n"] >= 3 and threads == {"kifu-store-writer"}
    assert table_snapshot(db, exclude=()) == before


def test_a_second_ctrl_c_waits_for_the_writer_thread_and_the_rollback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      ctrl_c: None) -> None:
    """Ctrl-C, then Ctrl-C again while the run is being rolled back: the writer thread is stopped
    and the rollback made before the second one is raised; the database is as it was."""
    import signal

    from loaders.core import store

    db = tmp_path / "k.duckdb"
    ingest(db, BASE)
    before = table_snapshot(db, exclude=())
    stopped: list[bool] = []
    real_close = store.Store.close

    def interrupted_flush(self: Any) -> None:
        raise KeyboardInterrupt

    def close(self: Any, *, discard: bool = False) -> None:
        if discard:
            signal.raise_signal(signal.SIGINT)  # the second Ctrl-C, while the writer is being stopped
        real_close(self, discard=discard)
        stopped.append(discard)

    monkeypatch.setattr(store.Store, "flush", interrupted_flush)
    monkeypatch.setattr(store.Store, "close", close)
    with pytest.raises(KeyboardInterrupt):
        ingest(db, fixture_path("misbehave_bind2_40"))
    assert stopped == [True] and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert table_snapshot(db, exclude=()) == before


def test_gzip_of_stored_fixture_has_extended_json(tmp_path: Path) -> None:
    with gzip.open(fixture_path("speciallogic_timeout_probe_2", "stored"), "rb") as f:
        first = json.loads(f.readline())
    assert "$oid" in first["_id"] and "$date" in first["dateCreated"]


def test_gzip_of_newlines_reports_progress_and_keeps_line_numbers(tmp_path: Path) -> None:
    """A small gzip of newlines (a bomb of blank lines) showed 0% for minutes."""
    from loaders.core.sources import FileSource

    blank = 30 * (1 << 20)
    path = tmp_path / "blank.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n" * blank + read_lines(BASE)[0] + b"\n", compresslevel=9))
    source = FileSource(path)
    seen: list[int] = []
    source.progress = seen.append
    recs = list(source.records())
    assert [r.line for r in recs] == [blank + 1]
    assert len(seen) >= 20 and seen == sorted(seen) and 0 < seen[0] < path.stat().st_size
