"""Round-parallel validation (``--jobs``): the tables are those of one process, whatever happens."""

from __future__ import annotations

import datetime as dt
import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kifu.cli import main
from loaders.pipeline import ingest as ingest_sources
from loaders.pipeline import open_sources
from loaders.games.uno import rounds
from loaders.games.uno.rounds import decode, encode
from rules.uno.rounds import CarryScan
from rules.uno.state import frozen
from tests.conftest import FIXTURES, MATCHES, REPO, SAMPLE, SHARED, damage, read_lines, table_snapshot, write_lines

DATA = REPO / "tests" / "data"


def _ingest(db: Path, paths: list[Path], **kw: Any) -> Any:
    return ingest_sources(open_sources([str(p) for p in paths]), db, **kw)


def test_four_workers_write_the_tables_one_process_writes(tmp_path: Path) -> None:
    one = _ingest(tmp_path / "1.duckdb", [SAMPLE])
    four = _ingest(tmp_path / "4.duckdb", [SAMPLE], jobs=4, rounds_per_task=3)
    assert (one.jobs, one.batches) == (1, 0)
    assert four.jobs == 4 and four.batches == 14 and four.replayed_again == 0  # 40 rounds: 3 + 12 × 3 + the last
    tables = table_snapshot(tmp_path / "1.duckdb")
    assert len(tables["states"]) == one.ingested and tables["violations"]
    assert table_snapshot(tmp_path / "4.duckdb") == tables


def test_every_fixture_log_gives_the_same_tables_with_workers(tmp_path: Path) -> None:
    paths = [FIXTURES / f"{m}.{kind}.jsonl.gz" for m in MATCHES for kind in ("download", "stored")]
    if not all(p.exists() for p in paths):
        pytest.skip(f"real dealer fixtures not found at {FIXTURES} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    one = _ingest(tmp_path / "1.duckdb", paths)
    many = _ingest(tmp_path / "n.duckdb", paths, jobs=4, rounds_per_task=2)
    assert many.batches > 200 and many.replayed_again == 0
    assert (many.ingested, many.duplicates) == (one.ingested, one.duplicates)
    assert table_snapshot(tmp_path / "n.duckdb") == table_snapshot(tmp_path / "1.duckdb")


def test_a_copy_met_in_the_middle_of_a_match_gives_the_same_tables_with_workers(tmp_path: Path) -> None:
    lines = read_lines(SAMPLE)
    log = write_lines(tmp_path / "copy.jsonl", lines[:4000] + lines[:1000] + lines[4000:])
    one = _ingest(tmp_path / "1.duckdb", [log])
    two = _ingest(tmp_path / "2.duckdb", [log], jobs=2, rounds_per_task=2)
    assert two.batches > 10 and (two.ingested, two.duplicates) == (one.ingested, one.duplicates)
    assert table_snapshot(tmp_path / "2.duckdb") == table_snapshot(tmp_path / "1.duckdb")


def test_lookups_in_the_middle_of_a_match_see_every_line_the_workers_still_have(tmp_path: Path, monkeypatch: Any) -> None:
    """Workers make the rows (and record keys) of the lines they replay; any flush before a lookup
    first makes the rows of every line taken (those still unsent are made here, not twice)."""
    from loaders.games.uno import matches as algori

    _ingest(tmp_path / "1.duckdb", [SAMPLE])
    real_take = algori.Assembler._take
    seen: list[tuple[int, int]] = []

    def take(self: Any, m: Any, *args: Any) -> None:
        real_take(self, m, *args)
        if m.seq % 997 == 0:  # a lookup now: every line taken so far must be in the tables
            self.store.flush()
            n = self.store.con.execute("select count(*), count(distinct seq) from events").fetchall()[0]
            seen.append((m.seq, *n))

    monkeypatch.setattr(algori.Assembler, "_take", take)
    report = _ingest(tmp_path / "2.duckdb", [SAMPLE], jobs=2, rounds_per_task=2)
    assert report.batches > 10 and len(seen) == len(read_lines(SAMPLE)) // 997
    assert all(seq == count == distinct for seq, count, distinct in seen)
    assert table_snapshot(tmp_path / "2.duckdb") == table_snapshot(tmp_path / "1.duckdb")


def test_a_batch_whose_warm_up_misses_the_true_state_is_replayed_again(tmp_path: Path, monkeypatch: Any) -> None:
    _ingest(tmp_path / "1.duckdb", [SAMPLE])
    seed = CarryScan.seed

    def wrong(mark: Any, match_id: str | None = None) -> Any:  # a scan that got the rounds won wrong
        r = seed(mark, match_id)
        r.state = r.state.replace(wins=frozen({"nobody": 1}))
        return r

    monkeypatch.setattr(CarryScan, "seed", staticmethod(wrong))
    report = _ingest(tmp_path / "2.duckdb", [SAMPLE], jobs=2, rounds_per_task=4)
    assert report.batches == 10 and report.replayed_again == 9  # every batch but the first (which starts the match)
    assert table_snapshot(tmp_path / "2.duckdb") == table_snapshot(tmp_path / "1.duckdb")


def test_a_batch_that_never_closes_is_replayed_here_as_the_lines_come(tmp_path: Path, monkeypatch: Any) -> None:
    """A log that stops dealing (or never deals) must not pile up waiting for a batch to close."""
    _ingest(tmp_path / "1.duckdb", [SAMPLE])
    monkeypatch.setattr(rounds, "MAX_BATCH_LINES", 700)  # 4 of the sample's rounds take 392–783 lines
    report = _ingest(tmp_path / "2.duckdb", [SAMPLE], jobs=2, rounds_per_task=4)
    assert 1 <= report.batches < 10  # batches went out, then the match was finished here
    assert table_snapshot(tmp_path / "2.duckdb") == table_snapshot(tmp_path / "1.duckdb")


@pytest.mark.parametrize(
    ("value", "via"),
    [
        ({"seq": 1, "event": "play-card", "contents": {"card_play": {"color": "red", "number": 5}}, "desk": None}, b"j"),
        ({"n": [None, True, 1.0, 1, -0.0, "名前", {"": []}]}, b"j"),
        ({"number": float("nan")}, b"p"),
        ({"number": float("inf"), "other": None}, b"p"),
        ({"number": 2**80}, b"p"),
        ({"text": "\ud800"}, b"p"),
        ({"when": dt.datetime(2023, 10, 18, 12, 0)}, b"p"),
        ({"cards": (1, 2)}, b"j"),  # a tuple comes back as a list: only JSON-parsed values travel, never tuples
    ],
)
def test_activities_travel_to_the_workers_unchanged(value: dict[str, Any], via: bytes) -> None:
    data = encode(value)
    assert data[:1] == via
    back = decode(data)
    if value.get("cards") is not None:
        assert back == {"cards": [1, 2]}
        return
    assert repr(back) == repr(value) and [type(v) for v in back.values()] == [type(v) for v in value.values()]
    if "number" in value and isinstance(value["number"], float) and math.isnan(value["number"]):
        assert math.isnan(back["number"])


def test_ingest_jobs_option(tmp_path: Path, capsys: Any) -> None:
    db = tmp_path / "k.duckdb"
    assert main(["ingest", str(SAMPLE), "--db", str(db), "--jobs", "2", "--no-progress"]) == 0
    assert "rounds replayed in 2 processes: 3 batches" in capsys.readouterr().out  # 40 rounds: 16 + 16 + 8
    with pytest.raises(SystemExit) as exc:
        main(["ingest", str(SAMPLE), "--db", str(db), "--jobs", "0"])
    assert exc.value.code == 2 and "at least 1 process" in capsys.readouterr().err


@settings(max_examples=int(os.environ.get("KIFU_HYPOTHESIS_EXAMPLES", "60")) // 10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
@given(st.lists(st.tuples(st.sampled_from(["drop", "dup", "swap"]), st.integers(0, 5886)), min_size=1, max_size=12))
def test_a_damaged_log_gives_the_same_tables_with_workers(tmp_path: Path, edits: list[tuple[str, int]]) -> None:
    """Lost, repeated and swapped lines (gaps the replay reports) anywhere, batch edges included."""
    lines = read_lines(SAMPLE)
    for op, i in edits:
        damage(lines, op, i)
    path = write_lines(tmp_path / "damaged.jsonl", lines)
    dbs = [tmp_path / "1.duckdb", tmp_path / "2.duckdb"]
    try:
        one = _ingest(dbs[0], [path])
        two = _ingest(dbs[1], [path], jobs=2, rounds_per_task=1)
        assert two.batches > 30 and (two.ingested, two.quarantined) == (one.ingested, one.quarantined)
        assert table_snapshot(dbs[1]) == table_snapshot(dbs[0])
    finally:
        for db in dbs:
            db.unlink(missing_ok=True)


def test_kakomimasu_and_chaser_games_replayed_by_workers_give_the_same_tables(tmp_path: Path) -> None:
    paths = [DATA / "kakomimasu", DATA / "chaser", *[p for p in (SHARED / "fixtures" / "kakomimasu",
                                                                  SHARED / "fixtures" / "chaser") if p.exists()]]  # fmt: skip
    one = _ingest(tmp_path / "1.duckdb", paths)
    many = _ingest(tmp_path / "n.duckdb", paths, jobs=3)
    assert one.games_in_workers == 0 and many.games_in_workers >= 7
    assert (many.ingested, many.quarantined, len(many.matches)) == (one.ingested, one.quarantined, len(one.matches))
    assert table_snapshot(tmp_path / "n.duckdb") == table_snapshot(tmp_path / "1.duckdb")
    again = _ingest(tmp_path / "n.duckdb", paths, jobs=3)  # re-ingest through the workers: nothing new
    assert again.ingested == 0 and table_snapshot(tmp_path / "n.duckdb") == table_snapshot(tmp_path / "1.duckdb")


def test_ctrl_c_while_a_worker_starts_is_raised_once_the_worker_is_known(monkeypatch: pytest.MonkeyPatch, ctrl_c: None) -> None:
    # a start cut in half leaves a child that reads its set-up after the ingest cleaned it up
    # and prints a traceback; the signal waits for the submit (which may start a worker)
    import signal
    from concurrent.futures import ProcessPoolExecutor

    submitted = []
    real_submit = ProcessPoolExecutor.submit

    def submit(self: ProcessPoolExecutor, fn: Any, /, *args: Any) -> Any:
        signal.raise_signal(signal.SIGINT)  # Ctrl-C in the middle of starting a worker
        submitted.append(real_submit(self, fn, *args))
        return submitted[-1]

    monkeypatch.setattr(ProcessPoolExecutor, "submit", submit)
    pool = rounds.RoundPool(1)
    try:
        with pytest.raises(KeyboardInterrupt):
            pool.call(os.getpid)
        assert len(submitted) == 1 and submitted[0].result(timeout=60) != os.getpid()  # the worker ran it
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        pool.close()


def _loaded(name: str) -> bool:
    import sys

    return name in sys.modules


def test_workers_start_with_pandas_loaded_for_pyarrow() -> None:
    # pyarrow imports pandas on its first conversion of Python objects (~0.27 CPU-s); the
    # forkserver loads it once, instead of every worker in its first batch
    pool = rounds.RoundPool(1)
    try:
        assert pool.call(_loaded, "pandas").result(timeout=60) is True
    finally:
        pool.close()


def test_upload_jobs_leave_a_core_to_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    from loaders.live.upload_job import upload_jobs

    monkeypatch.delenv("KIFU_UPLOAD_JOBS", raising=False)
    assert [upload_jobs(n) for n in (1, 2, 8)] == [1, 1, 7]
    for value, want in (("3", 3), ("1", 1), ("0", 7), ("many", 7)):
        monkeypatch.setenv("KIFU_UPLOAD_JOBS", value)
        assert upload_jobs(8) == want


def test_upload_job_with_workers_writes_the_tables_of_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    import shutil

    from loaders.live import swap
    from loaders.live.upload_job import run

    reports = []
    real_ingest = swap.ingest
    monkeypatch.setattr(swap, "ingest", lambda *a, **kw: reports.append(real_ingest(*a, **kw)) or reports[-1])
    results = []
    for jobs in ("1", "2"):
        monkeypatch.setenv("KIFU_UPLOAD_JOBS", jobs)
        here = tmp_path / jobs
        here.mkdir()
        upload, db, status = tmp_path / "up.jsonl.gz", here / "k.duckdb", here / "status.json"  # same source name
        shutil.copy(SAMPLE, upload)
        assert run(upload, db, status) == 0 and not upload.exists()
        done = json.loads(status.read_text())
        assert done["state"] == "done" and done["ingested"] == 5887
        results.append(table_snapshot(db))
    assert results[0] == results[1]
    assert [(r.jobs, r.batches > 0) for r in reports] == [(1, False), (2, True)]
