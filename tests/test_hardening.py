"""Hardening: hostile input, kills mid-ingest, concurrent use, the web surface, actionable errors."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import queries
from kifu.cli import main
from loaders.pipeline import ingest as ingest_sources
from loaders.pipeline import open_sources
from tests.conftest import REPO, SAMPLE, damage, ingest, query, read_lines, table_snapshot, write_lines

BASE = REPO / "tests" / "data" / "probe_head.jsonl"
TRIED: dict[str, int] = {"files": 0, "records": 0}


def _ingest_file(tmp: Path, data: bytes, name: str = "x.jsonl") -> Any:
    path = tmp / name
    path.write_bytes(data)
    db = tmp / f"{name}.duckdb"
    try:
        report = ingest_sources(open_sources([str(path)]), db)
        TRIED["files"] += 1
        TRIED["records"] += report.records_read
        # every record is accounted for: ingested, already present or quarantined with a reason
        assert report.ingested + report.duplicates + report.quarantined == report.records_read
        rows = query(db, "select count(*), count(*) filter (where reason is null or reason = '') from load_issues")
        assert rows == [(report.issues_new, 0)]
        assert query(db, "select count(*) from events") == [(report.ingested,)]
    finally:  # a failing example must not leave its database to the next one (Hypothesis re-runs examples)
        for f in tmp.glob(f"{name}*"):
            f.unlink()
    return report


# ------------------------------------------------------------------------ hostile input

ACTIVITY_KEYS = ["dealer_code", "event", "dealer", "player", "turn", "contents", "desk", "dateCreated", "content"]
EVENTS = ["join-room", "first-player", "next-player", "play-card", "draw-card", "penalty", "finish-turn",
          "finish-game", "challenge", "shuffle-wild", "special-logic", "weird"]  # fmt: skip
json_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_value = st.recursive(json_leaf, lambda v: st.lists(v, max_size=4) | st.dictionaries(st.text(max_size=8), v, max_size=4),
                          max_leaves=12)  # fmt: skip
activity = st.fixed_dictionaries(
    {"event": st.sampled_from(EVENTS) | json_value, "dealer": st.sampled_from(["d", "Dealer 1"]) | json_value},
    optional={k: json_value for k in ACTIVITY_KEYS if k not in ("event", "dealer")}
    | {"turn": st.integers(-2, 5) | json_value,
       "contents": st.fixed_dictionaries({}, optional={"play_order": st.lists(st.text(max_size=3), max_size=4) | json_value,
                                                       "cards_receive": json_value, "player": json_value,
                                                       "next_player": json_value, "score": json_value, "card_play": json_value})},
)  # fmt: skip

SETTINGS = settings(max_examples=int(os.environ.get("KIFU_HYPOTHESIS_EXAMPLES", "60")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip


@SETTINGS
@given(st.binary(max_size=4000))
def test_arbitrary_bytes(tmp_path: Path, data: bytes) -> None:
    _ingest_file(tmp_path, data)


@SETTINGS
@given(st.lists(json_value, max_size=15))
def test_valid_json_of_the_wrong_shape(tmp_path: Path, values: list[Any]) -> None:
    data = b"\n".join(json.dumps(v).encode() for v in values)
    report = _ingest_file(tmp_path, data)
    assert report.ingested == 0 or any(isinstance(v, dict) and "event" in v for v in values)


@SETTINGS
@given(st.lists(activity, max_size=20), st.booleans())
def test_activity_shaped_garbage(tmp_path: Path, docs: list[dict[str, Any]], as_array: bool) -> None:
    if as_array:
        _ingest_file(tmp_path, json.dumps(docs).encode(), "x.json")
    else:
        _ingest_file(tmp_path, b"\n".join(json.dumps(d).encode() for d in docs))


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(["drop", "dup", "swap", "shift_round", "latin1"]), st.integers(0, 23)),
                min_size=1, max_size=8))  # fmt: skip
def test_real_log_reordered_duplicated_and_gapped(tmp_path: Path, edits: list[tuple[str, int]]) -> None:
    lines = read_lines(BASE)
    for op, i in edits:
        i %= len(lines)
        if op == "shift_round":
            lines[i] = lines[i].replace(b'"turn":1,', b'"turn":3,')
        elif op == "latin1":
            lines[i] = lines[i].replace(b"speciallogic", "spécial".encode("latin-1"))
        else:
            damage(lines, op, i)
        if not lines:
            break
    _ingest_file(tmp_path, b"\n".join(lines) + b"\n")


def test_deep_and_enormous_values(tmp_path: Path) -> None:
    lines = [line.decode() for line in read_lines(BASE)]
    deep = lambda n: '{"a":' * n + "1" + "}" * n  # noqa: E731
    lines[6] = lines[6].replace('"number_turn_play":1,', f'"deep":{deep(300)},"number_turn_play":1,', 1)
    lines[8] = lines[8].replace('"number_turn_play":2,', f'"deeper":{deep(2000)},"number_turn_play":2,', 1)
    lines[10] = lines[10].replace('"number_turn_play":3', '"huge":"' + "x" * 3_000_000 + '","number_turn_play":3', 1)
    report = _ingest_file(tmp_path, "\n".join(lines).encode())
    reasons = sorted(r for _, _, r in report.issue_examples)
    assert report.quarantined == 2 and "nested" in reasons[0] and "depth" in reasons[1]
    array = tmp_path / "deep.json"
    array.write_text("[" + "[" * 5000 + "]" * 5000 + "]")
    r = ingest_sources(open_sources([str(array)]), tmp_path / "a.duckdb")
    assert r.quarantined == 1 and ("nested too deeply" in r.issue_examples[0][2] or "depth limit" in r.issue_examples[0][2])


HOSTILE_LITERALS = [b"1e308", b"-1e308", b"1e400", b"-1e400", b"NaN", b"Infinity", b"-Infinity", b"3e9", b"9e18",
                    b"99999999999999999999999", b"-99999999999999999999999", b"18446744073709551616", b"40000",
                    b"2147483648", b"-2147483649", b"1.5", b"0.0", b"-0", b'"12"', b'"1e308"', b'"NaN"', b"12",
                    b"true", b"null", b"[]", b"{}", b'"P-00000002"']  # fmt: skip


def _hostile_line(line: bytes, path: list[str], literal: bytes) -> bytes:
    """``line`` with the value at ``path`` replaced by the raw JSON ``literal`` (NaN, 1e400, ... kept as text)."""
    doc = json.loads(line)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = "\u0000HOSTILE\u0000"
    return json.dumps(doc, separators=(",", ":")).encode().replace(b'"\\u0000HOSTILE\\u0000"', literal)


def _paths(doc: dict[str, Any]) -> list[list[str]]:
    out = [[k] for k in doc]
    for outer in ("contents", "desk"):
        if isinstance(doc.get(outer), dict):
            out += [[outer, k] for k in doc[outer]]
    return out


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 23), st.integers(0, 1_000), st.sampled_from(HOSTILE_LITERALS)),
                min_size=1, max_size=6))  # fmt: skip
def test_hostile_numbers_and_types_in_any_field(tmp_path: Path, edits: list[tuple[int, int, bytes]]) -> None:
    """Out-of-range integers and floats, NaN/Infinity literals, huge exponents, numbers where strings
    belong and strings where numbers belong, in any field of a real log: never an aborted run."""
    lines = read_lines(BASE)
    for i, which, literal in edits:
        paths = _paths(json.loads(lines[i]))
        lines[i] = _hostile_line(lines[i], paths[which % len(paths)], literal)
    _ingest_file(tmp_path, b"\n".join(lines) + b"\n")


def test_hostile_number_regressions(tmp_path: Path) -> None:
    """tests/data/hostile_numbers.jsonl: one line per case that once aborted a run or could."""
    db = tmp_path / "h.duckdb"
    report = ingest(db, REPO / "tests" / "data" / "hostile_numbers.jsonl")
    reasons = [r[0] for r in query(db, "select reason from load_issues")]
    assert report.ingested + report.quarantined == report.records_read == 24
    assert report.quarantined == len(reasons) == 6  # turn ×3, dateCreated ×2, a number as the player code
    assert any("out of range for a round number" in r for r in reasons)
    assert any("'dateCreated' is not a date" in r for r in reasons)


# ------------------------------------------------------------------------ crash safety


def _big_log(tmp: Path, copies: int = 3) -> list[Path]:
    from benchmarks.synth import LARGEST, relabelled, write

    if not LARGEST.exists():
        pytest.skip("fixtures not found")
    return [write(tmp / f"big{i}.jsonl", relabelled(LARGEST, f"big-{i}", f"D-7{i:07d}")) for i in range(copies)]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return _big_log(tmp_path_factory.mktemp("big"))


def _ingest_cli(paths: list[Path], db: Path, **kw: Any) -> subprocess.Popen:
    from tests.conftest import sigint_default  # the SIGINT tests stop it with Ctrl-C

    return subprocess.Popen([sys.executable, "-m", "kifu.cli", "ingest", *map(str, paths), "--db", str(db), "--no-progress"],
                            cwd=REPO, preexec_fn=sigint_default, **kw)  # fmt: skip


def _stop_while_writing(paths: list[Path], db: Path, signum: int) -> subprocess.Popen:
    """An ingest of ``paths`` into ``db``, sent ``signum`` a second after it began writing its copy."""
    proc = _ingest_cli(paths, db, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not list(db.parent.glob("*.ingest.tmp")) and time.time() < deadline:  # the copy is being written
        time.sleep(0.05)
    time.sleep(1.0)
    assert proc.poll() is None, "the ingest finished before it could be stopped; use a bigger input"
    proc.send_signal(signum)
    return proc


@pytest.fixture(scope="module")
def big_seconds(big: list[Path], tmp_path_factory: pytest.TempPathFactory) -> float:
    """How long a whole ingest of ``big`` takes on this machine, now (a kill point is a share of it)."""
    db = tmp_path_factory.mktemp("timing") / "kifu.duckdb"
    assert main(["ingest", str(SAMPLE), "--db", str(db), "--no-progress"]) == 0
    start = time.perf_counter()
    assert _ingest_cli(big, db, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).wait() == 0
    return time.perf_counter() - start


@pytest.mark.parametrize("share", [0.05, 0.4, 0.75])  # early, mid-run, late (the last inserts, the commit)
def test_sigkill_mid_ingest_leaves_the_database_as_it_was(tmp_path: Path, big: list[Path], big_seconds: float,
                                                          share: float) -> None:  # fmt: skip
    # The machine's load changes between the timing run and this one: a run that ended before its
    # kill is tried again in a fresh folder, killed earlier.
    for attempt in range(4):
        folder = tmp_path / f"try{attempt}"
        folder.mkdir()
        db = folder / "kifu.duckdb"
        assert main(["ingest", str(SAMPLE), "--db", str(db), "--no-progress"]) == 0
        before_bytes, before_rows = _digest(db), table_snapshot(db, exclude=())
        proc = _ingest_cli(big, db, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(share * big_seconds * 0.6**attempt)
        if proc.poll() is None:
            break
        proc.wait()
    assert proc.poll() is None, "the ingest finished before it could be killed; use a bigger input"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _digest(db) == before_bytes
    assert table_snapshot(db, exclude=()) == before_rows
    # a re-run completes and cleans up what the killed run left behind
    assert main(["ingest", *map(str, big), "--db", str(db), "--no-progress"]) == 0
    assert query(db, "select count(*) from matches") == [(1 + len(big),)]
    assert not list(folder.glob("*.ingest.tmp*"))


def test_sigterm_mid_ingest_cleans_up(tmp_path: Path, big: list[Path]) -> None:
    db = tmp_path / "kifu.duckdb"
    assert main(["ingest", str(SAMPLE), "--db", str(db), "--no-progress"]) == 0
    before = _digest(db)
    proc = _stop_while_writing(big, db, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "interrupted; the database is unchanged" in err and "Traceback" not in err
    assert _digest(db) == before
    assert not list(tmp_path.glob("*.ingest.tmp*"))


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_ingest_into_a_new_path_says_no_database_was_made(
    tmp_path: Path, big: list[Path], signum: int, status: int,
) -> None:  # fmt: skip
    db = tmp_path / "new.duckdb"
    proc = _stop_while_writing(big, db, signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert "kifu: interrupted; no database was made" in err and "unchanged" not in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_the_next_run_removes_what_a_killed_run_left(tmp_path: Path) -> None:
    """A run killed late leaves its copy, the copy's WAL and DuckDB's spill folder beside the database."""
    db = tmp_path / "kifu.duckdb"
    assert main(["ingest", str(SAMPLE), "--db", str(db), "--no-progress"]) == 0
    before = table_snapshot(db)
    copy = tmp_path / "kifu.duckdb.ingest.tmp"
    copy.write_bytes(b"half a database")
    (tmp_path / "kifu.duckdb.ingest.tmp.wal").write_bytes(b"half a log")
    spill = tmp_path / "kifu.duckdb.ingest.tmp.tmp"
    spill.mkdir()
    (spill / "duckdb_temp_storage_S32K-0.tmp").write_bytes(b"\0" * 4096)
    assert main(["ingest", str(SAMPLE), "--db", str(db), "--no-progress"]) == 0  # a no-op on the data
    assert table_snapshot(db) == before
    assert not list(tmp_path.glob("*.ingest.tmp*"))


def test_db_through_a_symlink_updates_the_real_file(tmp_path: Path) -> None:
    real = tmp_path / "data" / "kifu.duckdb"
    real.parent.mkdir()
    link = tmp_path / "link.duckdb"
    link.symlink_to(real)
    assert main(["ingest", str(BASE), "--db", str(link), "--no-progress"]) == 0
    assert link.is_symlink() and real.exists() and not real.is_symlink()
    assert query(real, "select count(*) from events") == [(24,)]
    assert main(["ingest", str(BASE), "--db", str(real), "--no-progress"]) == 0  # same file, same lock: a no-op
    assert query(link, "select count(*) from events") == [(24,)]
    assert not (tmp_path / "link.duckdb.lock").exists() and (real.parent / "kifu.duckdb.lock").exists()


def test_a_waiting_ingest_says_what_it_waits_for(tmp_path: Path) -> None:
    import fcntl

    db = tmp_path / "kifu.duckdb"
    with open(tmp_path / "kifu.duckdb.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        proc = subprocess.Popen([sys.executable, "-m", "kifu.cli", "ingest", str(BASE), "--db", str(db), "--no-progress"],
                                cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "waiting for another Kifu ingest" in line and str(db) in line
        assert proc.poll() is None  # still waiting
        fcntl.flock(fh, fcntl.LOCK_UN)
    assert proc.wait(timeout=60) == 0
    assert query(db, "select count(*) from events") == [(24,)]


# ------------------------------------------------------------------------ concurrency


def test_readers_keep_working_while_an_ingest_runs(tmp_path: Path, big: list[Path]) -> None:
    db = tmp_path / "kifu.duckdb"
    main(["ingest", str(SAMPLE), "--db", str(db), "--no-progress"])
    proc = subprocess.Popen([sys.executable, "-m", "kifu.cli", "ingest", *map(str, big), "--db", str(db), "--no-progress"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    reads = 0
    while proc.poll() is None:
        con = queries.connect(db, read_only=True)  # what the dashboard does on every rerun
        assert con.execute("select count(*) from matches").fetchall()[0][0] in (1, 1 + len(big))
        con.close()
        reads += 1
        time.sleep(0.05)
    assert proc.returncode == 0 and reads > 10
    assert query(db, "select count(*) from matches") == [(1 + len(big),)]


def test_two_ingests_at_once_neither_corrupt_nor_duplicate(tmp_path: Path, big: list[Path]) -> None:
    db = tmp_path / "kifu.duckdb"
    cmd = [sys.executable, "-m", "kifu.cli", "ingest", "--db", str(db), "--no-progress"]
    a = subprocess.Popen([*cmd, str(big[0]), str(SAMPLE)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    b = subprocess.Popen([*cmd, str(SAMPLE), str(big[1])], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert a.wait() == 0 and b.wait() == 0
    assert query(db, "select count(*) from matches") == [(3,)]
    assert query(db, "select count(*), count(distinct (match_id, seq)) from events") == [(41213 * 2 + 5887,) * 2]
    assert query(db, "select count(*) from load_runs") == [(2,)]
    assert query(db, "select sum(records_duplicate) from load_runs") == [(5887,)]


# ------------------------------------------------------------------------ large input


def _ingest_measured(log: Path, db: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """``kifu ingest LOG --db DB`` in a fresh process: its result and peak RSS in MiB."""
    # VmHWM is this process's own peak; ru_maxrss would carry over the (large) pytest parent's
    # peak across fork+exec on Linux.
    code = (
        "import sys\n"
        "from kifu.cli import main\n"
        "rc = main(['ingest', sys.argv[1], '--db', sys.argv[2]])\n"
        "hwm = [ln.split()[1] for ln in open('/proc/self/status') if ln.startswith('VmHWM:')]\n"
        "print('RSS', hwm[0], file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(log), str(db)], cwd=REPO,
                          capture_output=True, text=True, timeout=1800)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done, int(done.stderr.rsplit("RSS", 1)[1].split()[0]) / 1024


def test_gigabyte_log_in_bounded_memory_with_progress(tmp_path: Path) -> None:
    """~1 GB of dealer log (five 1,000-round matches in one file) — streamed, with a progress bar."""
    from benchmarks.synth import LARGEST, long_match

    if not LARGEST.exists():
        pytest.skip("fixtures not found")
    log = tmp_path / "huge.jsonl"
    with open(log, "w", encoding="utf-8") as f:
        for i in range(5):
            for line in long_match(1000, dealer=f"huge-{i}", code=f"D-8{i:07d}"):
                f.write(line + "\n")
    size = log.stat().st_size
    assert size > 1_000_000_000
    done, rss_mib = _ingest_measured(log, tmp_path / "k.duckdb")
    print(f"\n{size / 1e9:.2f} GB log ingested with peak RSS {rss_mib:.0f} MiB")
    assert rss_mib < 1024
    assert "rec/s" in done.stderr and "records" in done.stderr  # the progress bar ran
    assert query(tmp_path / "k.duckdb", "select count(*) from matches") == [(5,)]


# ------------------------------------------------------------------------ web surface


@pytest.mark.parametrize("name", ["../../etc/passwd.jsonl", "/etc/cron.d/x.log", "..\\..\\win.json", "a\x00b.gz", ""])
def test_upload_names_never_leave_the_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("KIFU_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("KIFU_DB", str(tmp_path / "kifu.duckdb"))
    from app.uploads import data_dir, safe_name

    stored = data_dir() / safe_name(name)
    assert stored.parent == (tmp_path / "data" / "uploads").resolve()
    assert "/" not in safe_name(name) and "\\" not in safe_name(name) and ".." not in safe_name(name)


def test_mongo_credentials_never_stored_or_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import mongomock
    from bson import json_util

    from loaders.core.mongo import MongoSource
    from loaders.pipeline import print_summary

    client: Any = mongomock.MongoClient()
    client["uno-local"]["activities"].insert_many([json_util.loads(line) for line in read_lines(REPO / "tests/data/probe_head.stored.jsonl")])
    src = MongoSource("mongodb://uno:T0p-s3cret@db.example:27017/?authSource=admin", client=client)
    report = ingest_sources([src], tmp_path / "k.duckdb")
    print_summary(report)
    out = capsys.readouterr().out
    stored = json.dumps(query(tmp_path / "k.duckdb", "select * from load_runs"), default=str)
    stored += json.dumps(query(tmp_path / "k.duckdb", "select source from raw_activities limit 1"))
    for text in (out, stored):
        assert "T0p-s3cret" not in text
    assert "uno:***@db.example" in stored


# ------------------------------------------------------------------------ actionable errors


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@contextmanager
def held_for_writing(db: Path) -> Iterator[None]:
    """Another process holding the database open read-write (as a DuckDB shell would)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import duckdb, time; c = duckdb.connect({str(db)!r}); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.kill()
        holder.wait()


def test_locked_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "kifu.duckdb"
    ingest(db, BASE)
    with held_for_writing(db):
        assert main(["ingest", str(BASE), "--db", str(db), "--no-progress"]) == 1
        err = _one_line(capsys)
        assert "locked" in err and "wait for it to finish or use another --db file" in err
        assert main(["validate", "--db", str(db)]) == 1
        assert "locked" in _one_line(capsys)


def test_database_of_another_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "other.duckdb"
    con = duckdb.connect(str(db))
    con.execute("create table customers (id integer)")
    con.close()
    assert main(["ingest", str(BASE), "--db", str(db), "--no-progress"]) == 1
    assert "not Kifu's; use another --db file" in _one_line(capsys)


def test_unreadable_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "gone.jsonl"
    broken.symlink_to(tmp_path / "nowhere")
    assert main(["ingest", str(broken), "--db", str(tmp_path / "k.duckdb")]) == 1
    assert "no such file or directory" in _one_line(capsys)
    bad_gz = tmp_path / "bad.jsonl.gz"
    bad_gz.write_bytes(b"\x1f\x8b" + os.urandom(200))
    assert main(["ingest", str(bad_gz), "--db", str(tmp_path / "k.duckdb"), "--no-progress"]) == 1
    out = capsys.readouterr()
    assert "unreadable" in out.out and "nothing could be ingested" in out.err


def test_mongo_auth_failure_message(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import pymongo.errors

    from loaders.core import mongo

    class Refusing:
        def __getitem__(self, name: str) -> Any:
            return self

        def count_documents(self, query: Any) -> int:
            raise pymongo.errors.OperationFailure("Authentication failed.", code=18)

    real = mongo.MongoSource.__init__

    def init(self: Any, *a: Any, **k: Any) -> None:
        real(self, *a, **{**k, "client": Refusing()})

    monkeypatch.setattr(mongo.MongoSource, "__init__", init)
    assert main(["ingest", "--mongo-uri", "mongodb://uno:wrong-pw@127.0.0.1:27017", "--db", "/tmp/never.duckdb"]) == 1
    err = _one_line(capsys)
    assert "authentication failed" in err and "wrong-pw" not in err and "check the user and password" in err


def test_unknown_game_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a game record of no game Kifu knows (Kakomimasu games load since the Kakomimasu module)
    path = write_lines(tmp_path / "g.json", [b'{"gameId": 1, "board": {}}', b'{"map": [[0, 1]], "turn": 3}'])
    assert main(["ingest", str(path), "--db", str(tmp_path / "k.duckdb"), "--no-progress"]) == 1
    out = capsys.readouterr()
    assert "unknown game format" in out.out and "nothing could be ingested" in out.err
    kakomimasu = REPO / "tests" / "data" / "kakomimasu" / "game22_A-2.json"
    assert main(["ingest", str(kakomimasu), "--db", str(tmp_path / "k.duckdb"), "--no-progress"]) == 0


def test_dashboard_shows_a_locked_database_as_one_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    db = tmp_path / "kifu.duckdb"
    ingest(db, BASE)
    with held_for_writing(db):
        monkeypatch.setenv("KIFU_DB", str(db))
        at = AppTest.from_file(str(REPO / "app" / "streamlit_app.py"), default_timeout=60).run()
        assert not at.exception
        assert "locked" in at.error[0].value


# ------------------------------------------------------------------------ disk full, permissions, memory


def _no_space(*args: Any, **kwargs: Any) -> None:
    raise OSError(28, "No space left on device")


def _partial_copy_then_full(src: Any, dst: Any, **kwargs: Any) -> None:
    Path(dst).write_bytes(Path(src).read_bytes()[:1000])  # the copy got this far
    raise OSError(28, "No space left on device", str(dst))


@pytest.mark.parametrize(
    ("where", "failure", "says"),
    [
        ("loaders.live.swap.shutil.copy2", _partial_copy_then_full, "disk holding"),
        ("loaders.live.swap.ingest", lambda *a, **k: (_ for _ in ()).throw(
            duckdb.IOException('IO Error: Could not write file "x.ingest.tmp": No space left on device')), "disk holding"),
        ("loaders.live.swap.ingest", lambda *a, **k: (_ for _ in ()).throw(PermissionError(13, "Permission denied", "x")),
         "permission denied"),
        ("loaders.live.swap.ingest", lambda *a, **k: (_ for _ in ()).throw(
            duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block (256 MiB/256 MiB used)")),
         "KIFU_MEMORY_LIMIT"),
    ],
    ids=["copy-fails-midway", "duckdb-disk-full", "permission", "memory-limit"],
)
def test_disk_full_and_permission_problems_are_one_line_and_leave_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str, failure: Any,
    says: str,
) -> None:  # fmt: skip
    db = tmp_path / "k.duckdb"
    ingest(db, BASE)
    before = table_snapshot(db)
    monkeypatch.setattr(where, failure)
    code = main(["ingest", str(SAMPLE), "--db", str(db), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and says in lines[0] and "database is unchanged" in lines[0], err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.duckdb", "k.duckdb.lock"]
    assert table_snapshot(db) == before


def test_a_full_disk_is_not_reported_as_a_memory_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDB spilling to a full disk says "out of memory"; Kifu looks at the disk first."""
    import shutil

    from queries.sharing import storage_problem

    exc = duckdb.OutOfMemoryException("Out of Memory Error: failed to offload data block")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10 << 30, 10 << 30, 4096))  # type: ignore[attr-defined]
    problem = storage_problem(exc, tmp_path / "k.duckdb")
    assert problem is not None and "disk holding" in problem and "KIFU_MEMORY_LIMIT" not in problem


def test_a_million_tiny_records_in_bounded_memory(tmp_path: Path) -> None:
    """1,000,000 tiny activities of a dealer that never deals (2.5 GB before): a resource ceiling."""
    log = tmp_path / "tiny.jsonl"
    line = b'{"dealer_code":"D-1","dealer":"d","event":"mystery","player":"P-1","contents":{}}\n'
    with open(log, "wb") as f:
        for _ in range(100):
            f.write(line * 10_000)
    db = tmp_path / "k.duckdb"
    done, rss_mib = _ingest_measured(log, db)
    assert query(db, "select count(*) from events") == [(1_000_000,)]
    assert "new events 1,000,000" in done.stdout
    print(f"\n1,000,000 tiny records ingested with peak RSS {rss_mib:.0f} MiB")
    assert rss_mib < 768
