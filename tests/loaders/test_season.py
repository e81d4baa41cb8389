"""Many matches at once (``loaders.parallel.season``): large files ingested side by side, each by a worker into a part
merged into the run's transaction — the tables are those of one process, whatever the files hold."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import duckdb
import pytest

from kifu.cli import main
from loaders.parallel import season
from loaders.pipeline import ingest as ingest_sources
from loaders.pipeline import open_sources
from loaders.core.sources import SourceError
from loaders.live.swap import ingest_swapped
from tests.conftest import FIXTURES, REPO, SAMPLE, SHARED, read_lines, table_snapshot, write_lines

#: ALGORI matches of the fixtures, small enough for a quick run (a few thousand lines each).
ALGORI = ["misbehave_bind2_40", "noprogress_hoard4_3", "speciallogic_timeout_probe_2", "deckout_hoard3_aggressor1_12"]


def _ingest(db: Path, paths: list[Any], **kw: Any) -> Any:
    return ingest_sources(open_sources([str(p) for p in paths]), db, **kw)


def _folder() -> list[Path]:
    """ALGORI dealer logs, then the Kakomimasu and CHaser fixture folders (board sets, 2020 snapshots of one
    game in two files, the same v1 game twice, maps, a game index)."""
    paths = [FIXTURES / f"{m}.download.jsonl.gz" for m in ALGORI]
    paths += [SHARED / "fixtures" / "kakomimasu", SHARED / "fixtures" / "chaser"]
    if not all(p.exists() for p in paths):
        pytest.skip(f"real logs not found under {SHARED / 'fixtures'} (is the checkout complete?)")
    return paths


@pytest.fixture
def every_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file of a run goes to a part worker, however small (the fixtures are small)."""
    monkeypatch.setattr(season, "PART_MIN_BYTES", 0)


def tables(db: Path) -> dict[str, Any]:
    """Every table row for row (sorted), but ``load_runs`` without its run's timing, and packed raw lines
    (``raw_blocks``, when this schema has it) as the lines they give back: how lines are cut into blocks
    follows the store's write batches, which differ between one run over every file and a part per file."""
    out: dict[str, Any] = table_snapshot(db, exclude=("load_runs", "raw_blocks"))
    con = duckdb.connect(str(db), read_only=True)
    try:
        out["load_runs"] = con.execute(
            "select * exclude (started_at, finished_at, duration_s) from load_runs order by run_id").fetchall()
        names = {t for (t,) in con.execute("select table_name from information_schema.tables").fetchall()}
        if "raw_blocks" in names:
            from queries.rawlines import lines

            ids = [m for (m,) in con.execute("select distinct match_id from raw_blocks order by 1").fetchall()]
            out["raw_blocks"] = {m: lines(con, m, 1, 2**62) for m in ids}
    finally:
        con.close()
    return out


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".part-" in p.name)


def same_counts(a: Any, b: Any) -> None:
    assert (a.records_read, a.ingested, a.duplicates, a.quarantined, a.issues_new, sorted(a.matches)) == (
        b.records_read, b.ingested, b.duplicates, b.quarantined, b.issues_new, sorted(b.matches))  # fmt: skip
    assert [(s.name, s.read, s.accepted, s.quarantined, s.skipped) for s in a.sources] == [
        (s.name, s.read, s.accepted, s.quarantined, s.skipped) for s in b.sources]  # fmt: skip
    assert a.unknown_events == b.unknown_events and a.skipped_records == b.skipped_records


def test_a_folder_of_every_game_gives_the_tables_of_one_process(tmp_path: Path, every_file: None) -> None:
    paths = _folder()
    one = _ingest(tmp_path / "1.duckdb", paths)
    two = _ingest(tmp_path / "2.duckdb", paths, jobs=2)
    assert one.files_in_workers == 0 and (two.jobs, two.batches, two.games_in_workers) == (2, 0, 0)
    # every ALGORI log and most games merged as parts; the second copy of a game, the second board set or map
    # (tables without match_id that hold rows already) read again here
    assert two.files_in_workers >= len(ALGORI) + 10 and two.files_read_again >= 3
    assert two.files_in_workers + two.files_read_again == len(two.sources)
    same_counts(two, one)
    assert tables(tmp_path / "2.duckdb") == tables(tmp_path / "1.duckdb")
    assert leftovers(tmp_path) == []


def test_ingesting_the_folder_again_is_a_no_op(tmp_path: Path, every_file: None) -> None:
    paths = _folder()
    db = tmp_path / "k.duckdb"
    first = _ingest(db, paths, jobs=2)
    before = tables(db)
    again = _ingest(db, paths, jobs=2)
    assert again.ingested == 0 and again.issues_new == 0 and first.ingested > 10_000
    assert again.duplicates == sum(s.accepted for s in again.sources) == first.records_read - first.quarantined - sum(
        s.skipped for s in first.sources)  # fmt: skip
    # every file that holds a match read again here (the workers sent most back unread: a dealer already stored)
    assert again.files_read_again >= len(ALGORI) + 10
    assert again.files_in_workers + again.files_read_again == len(again.sources)
    after = tables(db)
    assert after.pop("load_runs")[-1][3:7] == (again.records_read, 0, again.duplicates, again.quarantined)
    before.pop("load_runs")
    assert after == before
    assert leftovers(tmp_path) == []


def test_a_match_split_across_files_and_a_match_already_stored_go_the_ordinary_way(tmp_path: Path,
                                                                                   every_file: None) -> None:  # fmt: skip
    lines = read_lines(SAMPLE)
    logs = tmp_path / "logs"
    logs.mkdir()
    head = write_lines(logs / "a-head.jsonl", lines[:3000])
    tail = write_lines(logs / "b-tail.jsonl", lines[3000:])
    other = FIXTURES / "demo4_bind2_60.download.jsonl.gz"
    stored = FIXTURES / "noprogress_hoard4_3.download.jsonl.gz"
    if not other.exists() or not stored.exists():
        pytest.skip(f"real dealer fixtures not found at {FIXTURES}")
    paths = [head, stored, tail, other]
    reports = {}
    for jobs in (1, 2):
        db = tmp_path / f"{jobs}.duckdb"
        _ingest(db, [stored])  # already in the database
        reports[jobs] = _ingest(db, paths, jobs=jobs)
    one, two = reports[1], reports[2]
    # the head and the other match merged; the stored match and the tail (its dealer met in the head) read here
    assert (two.files_in_workers, two.files_read_again) == (2, 2)
    same_counts(two, one)
    assert two.duplicates == one.duplicates > 0
    assert tables(tmp_path / "2.duckdb") == tables(tmp_path / "1.duckdb")
    assert two.matches_new_events == one.matches_new_events
    (n,) = duckdb.connect(str(tmp_path / "2.duckdb"), read_only=True).execute(
        "select n_events from matches where dealer_name = 'misbehave-bind2-40'").fetchall()  # one match: both files
    assert n == (len(lines),)
    assert leftovers(tmp_path) == []


def test_quarantined_lines_keep_their_source_and_line(tmp_path: Path, every_file: None) -> None:
    lines = read_lines(SAMPLE)
    bad = [*lines[:4], b"not json at all", *lines[4:99], b'{"event": 5, "dealer": "x"}', *lines[99:]]
    logs = tmp_path / "logs"
    logs.mkdir()
    first = write_lines(logs / "a-bad.jsonl", bad)
    # nothing but bad lines, one of them the same bad line at the same place as in the first file: recorded
    # once, as the store records it
    second = write_lines(logs / "b-bad-too.jsonl", [b"{}", b"x", b"x", b"x", b"not json at all"])
    paths = [first, second, FIXTURES / "noprogress_hoard4_3.download.jsonl.gz"]
    one = _ingest(tmp_path / "1.duckdb", paths)
    two = _ingest(tmp_path / "2.duckdb", paths, jobs=2)
    assert (two.files_in_workers, two.files_read_again) == (3, 0)
    same_counts(two, one)
    assert two.quarantined == 7 and two.issues_new == one.issues_new == 6
    issues = duckdb.connect(str(tmp_path / "2.duckdb"), read_only=True).execute(
        "select source, line, reason from load_issues order by source, line").fetchall()
    assert [(Path(s).name, n) for s, n, _ in issues] == [("a-bad.jsonl", 5), ("a-bad.jsonl", 101)] + [
        ("b-bad-too.jsonl", n) for n in (1, 2, 3, 4)]  # fmt: skip
    assert "JSON" in issues[0][2] and "'event'" in issues[1][2]
    assert sorted(two.issue_examples) == sorted(one.issue_examples)
    assert tables(tmp_path / "2.duckdb") == tables(tmp_path / "1.duckdb")


def test_a_worker_that_fails_fails_the_run_and_leaves_the_database_as_it_was(tmp_path: Path,
                                                                             every_file: None) -> None:  # fmt: skip
    db = tmp_path / "k.duckdb"
    _ingest(db, [SAMPLE])
    before = tables(db)
    logs = tmp_path / "logs"
    logs.mkdir()
    paths = [write_lines(logs / f"{n}.jsonl", read_lines(FIXTURES / f"{m}.download.jsonl.gz"))
             for n, m in enumerate(ALGORI[1:])]  # fmt: skip
    sources = open_sources([str(p) for p in paths])
    paths[-1].unlink()  # gone between the listing and the read
    with pytest.raises(SourceError, match=r"2\.jsonl: cannot (open|read)"):
        ingest_sources(sources, db, jobs=2)
    assert tables(db) == before
    assert leftovers(tmp_path) == []


def test_no_part_file_is_left_and_the_summary_says_how_the_files_were_read(tmp_path: Path, every_file: None,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    paths = [FIXTURES / f"{m}.download.jsonl.gz" for m in ALGORI[1:]] + [SAMPLE]
    db = tmp_path / "k.duckdb"
    assert main(["ingest", *map(str, paths), "--db", str(db), "--jobs", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "matches ingested in 2 processes: 4 file(s) side by side" in out and "read again" not in out
    assert "new events" in out and "quarantined 0" in out
    assert main(["ingest", *map(str, paths), "--db", str(db), "--jobs", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "new events 0" in out and "0 file(s) side by side, 4 read again here" in out
    assert leftovers(tmp_path) == []


def test_the_files_of_a_killed_run_are_removed_by_the_next_ingest(tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    stale = [tmp_path / "k.duckdb.part-4242-0.duckdb", tmp_path / "k.duckdb.part-4242-0.duckdb.wal",
             tmp_path / "k.duckdb.part-17-3.duckdb"]  # fmt: skip
    for p in stale:
        p.write_bytes(b"left by a SIGKILL")
    (tmp_path / "k.duckdb.part-4242-0.duckdb.tmp").mkdir()  # DuckDB's spill folder
    keep = [tmp_path / "k.duckdb.part-notes.txt", tmp_path / "other.duckdb.part-1-1.duckdb"]
    for p in keep:
        p.write_bytes(b"not ours")
    _ingest(db, [SAMPLE])  # --jobs 1: it writes no part, but removes those of a killed run
    assert leftovers(tmp_path) == sorted(p.name for p in keep)


def test_which_sources_go_to_workers(tmp_path: Path) -> None:
    big = [FIXTURES / "demo4_skipbind2_300.download.jsonl.gz", FIXTURES / "misbehave_skipbind2_80.download.jsonl.gz"]
    if not all(p.exists() for p in big):
        pytest.skip(f"real dealer fixtures not found at {FIXTURES}")
    small = REPO / "samples" / "chaser_greedy-vs-greedy.txt"
    sources = open_sources([str(p) for p in [*big, small]])
    assert season.log_bytes(sources[0]) > 50_000_000 > sources[0].size  # gzip: the size it unpacks to
    assert season.plan(sources) == [True, True, False]
    assert season.plan(sources[:1] + sources[2:]) is None  # one large file: the round-parallel path

    class Feed:  # MongoDB, HTTP: never a part
        kind, name, size, path = "mongodb", "mongodb", 10**9, None

    assert season.plan([Feed(), Feed(), sources[0]]) is None
    from loaders.core.feeds import BytesSource  # a Kakomimasu server's answer, held in memory

    held = BytesSource("https://example.invalid/v1/matches/1", b" " * 20_000_000)
    assert season.plan([held, sources[0]]) is None and season.plan([*sources, held]) == [True, True, False, False]
    assert season.worker_memory("256MB", 2) == "81MiB" and season.worker_memory("100MB", 4) == "64MiB"


def _tagged(tag: bytes) -> list[int]:
    """Live processes whose environment holds ``tag`` (a zombie shows none)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/environ", "rb") as f:
                    if tag in f.read().split(b"\0"):
                        found.append(int(name))
            except OSError:
                continue
    return found


def _wait_for(cond: Any, timeout: float = 120.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_run_stopped_while_the_workers_read_leaves_the_database_and_no_part(tmp_path: Path, sig: int) -> None:
    from tests.conftest import sigint_default  # stopped with Ctrl-C, however the suite was started

    big = [FIXTURES / "misbehave_skipbind2_80.download.jsonl.gz", FIXTURES / "demo4_skipbind2_300.download.jsonl.gz"]
    if not all(p.exists() for p in big):
        pytest.skip(f"real dealer fixtures not found at {FIXTURES}")
    db = tmp_path / "k.duckdb"
    _ingest(db, [SAMPLE])
    before = tables(db)
    tag = f"KIFU_TEST_SEASON_RUN={uuid.uuid4().hex}".encode()
    proc = subprocess.Popen([sys.executable, "-m", "kifu.cli", "ingest", *map(str, big), "--db", str(db), "--jobs", "2",
                             "--no-progress"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, tag.decode().split("=")[0]: tag.decode().split("=")[1]},
                            preexec_fn=sigint_default)  # fmt: skip
    try:
        assert _wait_for(lambda: any(".part-" in p.name for p in tmp_path.iterdir()) or proc.poll() is not None)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # the workers, their forkserver and the resource tracker end with the ingest process, however it ends
    assert _wait_for(lambda: not _tagged(tag), timeout=10), _tagged(tag)
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
        assert leftovers(tmp_path)  # the parts the killed run was writing
        ingest_swapped(open_sources([str(SAMPLE)]), db)  # the next ingest into the database removes them
    else:
        assert proc.returncode == (130 if sig == signal.SIGINT else 143), err
        assert b"interrupted; the database is unchanged" in err
    assert tables(db)["events"] == before["events"] and tables(db)["matches"] == before["matches"]
    assert _wait_for(lambda: leftovers(tmp_path) == [], timeout=10), leftovers(tmp_path)


def test_the_progress_bar_advances_file_by_file(tmp_path: Path, every_file: None) -> None:
    made: list[Any] = []

    class Bar:
        def __init__(self, source: Any) -> None:
            self.source, self.done, self.updates, self.closed = source, 0, 0, False
            made.append(self)

        def update(self, n: int) -> None:
            assert not self.closed and n > 0
            self.done, self.updates = self.done + n, self.updates + 1

        def set_postfix_str(self, text: str, refresh: bool = False) -> None:
            pass

        def close(self) -> None:
            self.closed = True

    paths = [FIXTURES / f"{m}.download.jsonl.gz" for m in ALGORI]
    report = _ingest(tmp_path / "k.duckdb", paths, jobs=2, progress=Bar)
    assert report.files_in_workers == len(paths)
    assert [(Path(b.source.name), b.done, b.closed) for b in made] == [(p, p.stat().st_size, True) for p in paths]
