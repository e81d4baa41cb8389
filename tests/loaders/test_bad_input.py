"""Malformed input: one defect per file; the defect is quarantined, everything else ingests.

Each case starts from ``tests/data/probe_head.jsonl`` (the first 24 lines of a real dealer
log) and breaks exactly one line.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, fixture_path, ingest, query, raw_texts, read_lines, table_snapshot, write_lines

BASE = REPO / "tests" / "data" / "probe_head.jsonl"


def base_lines() -> list[bytes]:
    return read_lines(BASE)


def _set(line: bytes, **changes: object) -> bytes:
    doc = json.loads(line)
    for key, value in changes.items():
        if value is _DROP:
            doc.pop(key, None)
        else:
            doc[key] = value
    return json.dumps(doc).encode()


_DROP = object()

Mutation = Callable[[bytes], bytes]

CASES: list[tuple[str, int, Mutation, str]] = [
    ("invalid_json", 8, lambda l: l[:50] + b"}}{", "invalid JSON"),
    ("binary_garbage", 9, lambda l: bytes(b for b in range(256) if b != 10) * 3, "not UTF-8"),
    ("latin1_text", 12, lambda l: l.replace(b"speciallogic", "spécial".encode("latin-1")), "not UTF-8"),
    ("not_an_object", 6, lambda l: b"[1, 2, 3]", "not a JSON object"),
    ("missing_event", 7, lambda l: _set(l, event=_DROP), "missing required field 'event'"),
    ("event_not_string", 7, lambda l: _set(l, event=42), "field 'event'"),
    ("missing_dealer", 10, lambda l: _set(l, dealer=_DROP), "missing required field 'dealer'"),
    ("turn_not_integer", 11, lambda l: _set(l, turn="one"), "field 'turn'"),
    ("turn_missing", 11, lambda l: _set(l, turn=_DROP), "without the round number"),
    ("contents_not_object", 7, lambda l: _set(l, contents="oops"), "field 'contents'"),
    ("desk_not_object", 13, lambda l: _set(l, desk=[1]), "field 'desk'"),
    ("date_not_a_date", 14, lambda l: _set(l, dateCreated="yesterday"), "dateCreated"),
    ("penalty_without_player", 20, lambda l: l.replace(b'"player":"P-00000013"', b'"player":7'), "penalty without"),
    ("next_player_missing", 16, lambda l: l.replace(b'"next_player"', b'"nxt"'), "next-player without"),
    ("first_player_without_order", 5, lambda l: l.replace(b'"play_order"', b'"order"'), "play_order"),
]


@pytest.mark.parametrize(("name", "line_no", "mutate", "reason"), CASES, ids=[c[0] for c in CASES])
def test_one_defect_is_quarantined_rest_ingests(
    tmp_path: Path, name: str, line_no: int, mutate: Mutation, reason: str
) -> None:
    lines = base_lines()
    lines[line_no - 1] = mutate(lines[line_no - 1])
    path = write_lines(tmp_path / f"{name}.jsonl", lines)
    report = ingest(tmp_path / "k.duckdb", path)
    assert report.quarantined == 1
    assert report.ingested == len(lines) - 1
    issues = query(tmp_path / "k.duckdb", "select source, line, reason, raw_length from load_issues")
    assert len(issues) == 1
    source, line, why, length = issues[0]
    assert source == str(path)
    assert line == line_no
    assert reason in why
    assert length == len(lines[line_no - 1])
    assert query(tmp_path / "k.duckdb", "select count(*) from events") == [(len(lines) - 1,)]


def test_truncated_last_line(tmp_path: Path) -> None:
    lines = base_lines()
    data = b"\n".join(lines)[:-300]  # cut into the last line, no final newline
    path = tmp_path / "truncated.jsonl"
    path.write_bytes(data)
    report = ingest(tmp_path / "k.duckdb", path)
    assert report.ingested == len(lines) - 1
    assert query(tmp_path / "k.duckdb", "select line, reason from load_issues") == [
        (len(lines), "invalid JSON: unexpected end of data (truncated line?)")
    ] or "truncated" in query(tmp_path / "k.duckdb", "select reason from load_issues")[0][0]


def test_over_long_line_is_quarantined_in_bounded_memory(tmp_path: Path) -> None:
    from loaders.core.sources import MAX_LINE_BYTES

    lines = base_lines()
    lines.insert(10, b'{"event":"' + b"x" * (MAX_LINE_BYTES + 10) + b'"}')
    path = write_lines(tmp_path / "long.jsonl", lines)
    report = ingest(tmp_path / "k.duckdb", path)
    assert report.ingested == len(lines) - 1
    ((line, reason, stored, length),) = query(
        tmp_path / "k.duckdb", "select line, reason, length(raw), raw_length from load_issues"
    )
    assert line == 11
    assert "longer than" in reason
    assert stored == 65536
    assert length == MAX_LINE_BYTES + 10 + len(b'{"event":""}')


@pytest.mark.parametrize("where", ["first", "middle", "last-without-newline"])
def test_over_long_line_anywhere_is_quarantined_once_with_prefix_and_true_length(tmp_path: Path, where: str) -> None:
    """A 5 MB line as the first line used to vanish ("quarantined 0"); in the middle it kept no text."""
    lines = base_lines()
    big = b'{"event":"join-room","dealer":"' + b"y" * 5_000_000 + b'"}'
    pos = {"first": 0, "middle": 10, "last-without-newline": len(lines)}[where]
    lines.insert(pos, big)
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"\n".join(lines))
    db = tmp_path / "k.duckdb"
    report = ingest(db, path)
    assert report.quarantined == 1 and report.ingested == len(lines) - 1
    ((line, reason, raw, length),) = query(db, "select line, reason, raw, raw_length from load_issues")
    assert line == pos + 1
    assert "5,000,033 bytes" in reason and length == len(big)
    assert raw.encode() == big[:65536]
    # the same file under another spelling of its path: nothing new
    other = tmp_path / "sub" / ".." / "long.jsonl"
    (tmp_path / "sub").mkdir()
    again = ingest(db, other)
    assert again.quarantined == 1 and again.issues_new == 0 and again.ingested == 0
    assert query(db, "select count(*) from load_issues") == [(1,)]


def test_gzip_cut_short_keeps_what_was_readable(tmp_path: Path) -> None:
    data = gzip.compress(b"\n".join(base_lines()) + b"\n")
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    report = ingest(tmp_path / "k.duckdb", path)
    assert report.ingested > 0
    issues = query(tmp_path / "k.duckdb", "select line, reason from load_issues")
    assert [r for (_, r) in issues] == ["the gzip stream ends early (truncated file?)"]
    assert issues[0][0] > 0  # the first line that could not be read, not -1


def test_corrupted_fixture_ingests_every_good_line_and_records_every_bad_one(tmp_path: Path) -> None:
    """Garbage lines inserted at random places and the last line truncated."""
    good = read_lines(fixture_path("misbehave_bind2_40"))
    rng = random.Random(20231018)
    garbage = [b"\x00\x01\x02garbage", b"{not json", b"[]", b'{"event": 1}', b"\xff\xfe\xfd", b'{"dealer":"x"}']
    out: list[bytes] = []
    bad_lines: list[int] = []
    for line in good[:-1]:
        if rng.random() < 0.01:
            out.append(rng.choice(garbage))
            bad_lines.append(len(out))
        out.append(line)
    out.append(good[-1][: len(good[-1]) // 2])
    bad_lines.append(len(out))
    path = tmp_path / "corrupt.jsonl"
    path.write_bytes(b"\n".join(out))  # no final newline: the last line is cut
    db = tmp_path / "k.duckdb"
    report = ingest(db, path)
    assert report.ingested == len(good) - 1
    assert report.quarantined == len(bad_lines)
    assert [line for (line,) in query(db, "select line from load_issues order by line")] == bad_lines
    # the events are exactly the good lines, in order
    raw = raw_texts(db)
    assert raw == [line.decode() for line in good[:-1]]


def test_reingesting_a_file_with_bad_lines_adds_nothing(tmp_path: Path) -> None:
    lines = base_lines()
    lines[5] = b"{broken"
    path = write_lines(tmp_path / "bad.jsonl", lines)
    db = tmp_path / "k.duckdb"
    ingest(db, path)
    before = table_snapshot(db)
    again = ingest(db, path)
    assert again.ingested == 0 and again.issues_new == 0 and again.quarantined == 1
    assert table_snapshot(db) == before


def test_nothing_ingestible_exits_non_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kifu.cli import main

    path = tmp_path / "kakomimasu.json"
    path.write_text('{"gameId": "abc", "board": {"width": 8}}\n')
    code = main(["ingest", str(path), "--db", str(tmp_path / "k.duckdb"), "--no-progress"])
    out = capsys.readouterr()
    assert code == 1
    assert "nothing could be ingested" in out.err
    assert "unknown game format" in out.out
    assert f"{path}: nothing ingested — missing required field 'event'" in out.out  # the record's own reason
    assert not list(tmp_path.glob("k.duckdb*"))  # a run that ingested nothing makes no database


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/nonexistent/file.jsonl"], "no such file or directory"),
        (["{tmp}/*.nothing"], "pattern matches no files"),
        (["{tmp}"], "directory holds no log files"),
    ],
)
def test_unreadable_paths_give_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    from kifu.cli import main

    argv = ["ingest", *[a.format(tmp=tmp_path) for a in args], "--db", str(tmp_path / "k.duckdb")]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1


def test_not_a_duckdb_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kifu.cli import main

    db = tmp_path / "notes.txt"
    db.write_text("hello, this is not a database\n" * 100)
    assert main(["ingest", str(BASE), "--db", str(db), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "not a DuckDB database" in err
    assert db.read_text().startswith("hello")


@pytest.mark.parametrize("first", [b"[" * 5000 + b"]" * 5000, b"[1, 2, 3]", b'["a", {"b": "]"}]'],
                         ids=["deeply_nested", "array", "array_with_brackets_in_a_string"])  # fmt: skip
def test_a_first_line_that_is_an_array_is_one_bad_record_not_a_file_cut_at_its_brackets(tmp_path: Path,
                                                                                      first: bytes) -> None:  # fmt: skip
    """JSON lines whose first line is a whole array: that line is quarantined, every line after it is read as a
    line (read as one JSON array, the file would be cut into pieces at the brackets of the lines after it)."""
    lines = [first, *base_lines()]
    path = write_lines(tmp_path / "first.jsonl", lines)
    report = ingest(tmp_path / "k.duckdb", path, jobs=1)
    assert report.quarantined == 1 and report.ingested == len(lines) - 1
    [(line, why)] = query(tmp_path / "k.duckdb", "select line, reason from load_issues")
    assert line == 1 and ("not a JSON object" in why or "depth" in why), why


def test_an_array_file_on_one_line_or_spread_over_lines_is_still_an_array(tmp_path: Path) -> None:
    docs = [json.loads(line) for line in base_lines()]
    one = tmp_path / "one.json"
    one.write_text(json.dumps(docs) + "\n\n")
    spread = tmp_path / "spread.json"
    spread.write_text("[" + ",\n".join(json.dumps(d) for d in docs) + "]\n")
    for path in (one, spread):
        report = ingest(tmp_path / f"{path.stem}.duckdb", path, jobs=1)
        assert report.quarantined == 0 and report.ingested == len(docs), path


def test_a_fifo_or_a_device_is_refused_in_one_line_without_waiting(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # nobody writes into it: opening it would wait for ever
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    for path, what in ((fifo, "a FIFO (named pipe)"), (zero, "a character device")):
        r = subprocess.run([sys.executable, "-m", "kifu.cli", "ingest", str(path), str(BASE), "--db",
                            str(tmp_path / "k.duckdb"), "--no-progress"], capture_output=True, text=True, cwd=REPO,
                           timeout=60)  # fmt: skip
        assert r.returncode == 1
        assert r.stderr.splitlines() == [f"kifu ingest: {path}: {what}, not a log file — give a file"]
    assert not (tmp_path / "k.duckdb").exists()


def test_an_unreadable_file_among_readable_ones_is_one_issue_and_the_rest_ingests(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A file that cannot be opened (no permission: simulated, the tests may run as root) is quarantined as one
    record naming the file and the reason; the other files of the folder are ingested."""
    import builtins

    from kifu.cli import main
    from loaders.core import sources

    folder = tmp_path / "logs"
    folder.mkdir()
    good = write_lines(folder / "a.jsonl", base_lines())
    locked = write_lines(folder / "b.jsonl", base_lines()[:3])

    def refusing_open(file: object, *args: object, **kw: object) -> object:
        if str(file) == str(locked):
            raise PermissionError(13, "Permission denied", str(file))
        return builtins.open(file, *args, **kw)  # type: ignore[call-overload]

    monkeypatch.setattr(sources, "open", refusing_open, raising=False)
    db = tmp_path / "k.duckdb"
    assert main(["ingest", str(folder), "--db", str(db), "--no-progress", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert f"  {locked}: nothing ingested — file unreadable: cannot open it (Permission denied)" in out.splitlines()
    assert query(db, "select source, line, reason from load_issues") == [
        (str(locked), 0, "file unreadable: cannot open it (Permission denied)")]
    assert query(db, "select count(*) from events") == [(len(base_lines()),)]
    assert good.exists()


@pytest.mark.parametrize(("turn", "said"), [(-5, "field 'turn' is -5, expected a round number"),
                                            (1.5, "field 'turn' is a number, expected a round number")])  # fmt: skip
def test_a_turn_that_is_not_a_round_number_is_said_as_it_is(tmp_path: Path, turn: object, said: str) -> None:
    lines = base_lines()
    lines[10] = _set(lines[10], turn=turn)
    report = ingest(tmp_path / "k.duckdb", write_lines(tmp_path / "t.jsonl", lines), jobs=1)
    assert report.quarantined == 1
    assert query(tmp_path / "k.duckdb", "select line, reason from load_issues") == [(11, said)]
