"""``kifu watch`` restarted while behind commits at once and keeps committing in bounded batches; readers
never wait at the gate for an ingest or for page runs already reading (``docs/live.md``)."""

from __future__ import annotations

import fcntl
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from loaders.core.feeds import follow_path
from loaders.live import watch
from loaders.live.watch import Watcher
from queries import sharing as live
from tests.conftest import REPO, fixture_path
from tests.conftest import ingest as ingest_files
from tests.loaders.test_watch import _round_cut, assert_same, count_events, lines_of


def _kifu_watch(log: Path, db: Path, *extra: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "kifu.cli", "watch", str(log), "--db", str(db), "--no-status", "--poll", "0.05",
           "--format", "json", *extra]  # fmt: skip
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip


def _wait_more(db: Path, than: int, proc: subprocess.Popen[bytes], within: float) -> float:
    """Seconds until the database holds more than ``than`` events (fails after ``within``)."""
    started = time.monotonic()
    while time.monotonic() - started < within:
        assert proc.poll() is None, "the watcher ended"
        if db.exists() and count_events(db) > than:
            return time.monotonic() - started
        time.sleep(0.1)
    raise AssertionError(f"no batch committed within {within} s of the start")


def test_every_restart_commits_within_seconds(tmp_path: Path) -> None:
    """A long backlog, a tiny batch bound, SIGKILL right after each first commit: every restart commits new
    events within seconds (it continues the match from its resume point, in batches of 300 records)."""
    lines = lines_of(fixture_path("demo4_skipbind2_300"))  # ~130 batches: a kill lands long before the end
    log, db = tmp_path / "Dealer 1-D-00000001.log", tmp_path / "w.duckdb"
    log.write_bytes(b"".join(lines))  # the whole backlog is there before the first start
    stored = 0
    for _ in range(2):  # the first start, then a restart continuing the match
        proc = _kifu_watch(log, db, "--batch-records", "300")
        try:
            _wait_more(db, stored, proc, within=20.0)
        finally:
            proc.kill()
            proc.wait()
        now = count_events(db)
        assert stored < now < len(lines), "each start commits, and a bounded batch, not the whole backlog"
        stored = now
    assert live.resume_file(db).exists()


def test_a_continued_match_resumes_from_its_point_and_equals_a_one_shot_ingest(tmp_path: Path) -> None:
    lines = _round_cut(lines_of(fixture_path("demo4_skipbind2_300")), 30)
    log, db = tmp_path / "Dealer 1-D-00000001.log", tmp_path / "w.duckdb"
    log.write_bytes(b"".join(lines[: len(lines) // 2]))
    first = Watcher(db, [follow_path(log)])
    first.batch(first.poll())
    first._writer.release(checkpoint=False)  # as if killed after its commit: nothing closed
    for f in first.feeds:
        f.close()
    log.write_bytes(b"".join(lines))
    before = watch._Assembler.resumed_from_points
    second = Watcher(db, [follow_path(log)])
    while items := second.poll():
        second.batch(items)
    assert watch._Assembler.resumed_from_points == before + 1  # no replay of the stored events
    second.batch([], final=True)
    second._writer.release(checkpoint=True)
    whole = tmp_path / "whole.log"
    whole.write_bytes(b"".join(lines))
    ingest_files(tmp_path / "one.duckdb", whole)
    assert_same(db, tmp_path / "one.duckdb")


def test_a_stale_point_is_not_used(tmp_path: Path) -> None:
    """A point of other events (the stored match changed since) is ignored: the stored events are replayed."""
    lines = _round_cut(lines_of(fixture_path("demo4_skipbind2_300")), 12)
    log, db = tmp_path / "a.log", tmp_path / "w.duckdb"
    log.write_bytes(b"".join(lines[: len(lines) // 2]))
    w = Watcher(db, [follow_path(log)])
    w.batch(w.poll())
    w._writer.release(checkpoint=False)
    points = watch._load_points(live.resume_file(db))
    assert len(points) == 1
    for p in points.values():
        p["last"] = "0" * 32  # as if the newest stored line were another one
    watch._store_points(live.resume_file(db), points)
    log.write_bytes(b"".join(lines))
    before = watch._Assembler.resumed_from_points
    w2 = Watcher(db, [follow_path(log)])
    w2.batch(w2.poll())
    w2._writer.release(checkpoint=False)
    assert watch._Assembler.resumed_from_points == before
    assert count_events(db) == len(lines)


#: A page run in another process: the file opened read-only through the gate, held until killed.
READER = ("import sys, time, duckdb\nfrom queries import sharing\nwith sharing.read_gate(sys.argv[1]):\n"
          "    con = duckdb.connect(sys.argv[1], read_only=True)\nprint('in', flush=True)\ntime.sleep(60)\n")


def test_a_batch_gives_way_to_a_page_run_already_reading(tmp_path: Path) -> None:
    """A reader holds the file: the batch is put off after the grace (the gate open again for the next
    reader at once), and goes through once the reader has let go."""
    db = tmp_path / "w.duckdb"
    duckdb.connect(str(db)).close()
    with live.watching(db):
        writer = live.Writer(db)
        reader = subprocess.Popen([sys.executable, "-c", READER, str(db)], stdout=subprocess.PIPE, cwd=REPO,
                                  env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
        assert reader.stdout is not None and reader.stdout.readline().strip() == b"in"
        try:
            started = time.monotonic()
            with pytest.raises(live.Deferred):
                with writer.batch(insist=False):
                    pass
            assert time.monotonic() - started < live.GRACE_S + 2.0
            with live.read_gate(db, timeout=0.5) as there:  # the gate is open: another reader goes in at once
                assert there
        finally:
            reader.kill()
            reader.wait()
        with writer.batch(insist=False) as con:
            con.execute("create table t (x int)")
        writer.release(checkpoint=True)


def test_readers_do_not_wait_for_an_ingest_holding_the_lock(tmp_path: Path) -> None:
    """The watcher holds the file between batches; an ingest holds ``<db>.lock`` (swapping a file in): the
    watcher's next batch lets go of the file before it waits for the lock, so a reader gets in meanwhile."""
    db = tmp_path / "w.duckdb"
    duckdb.connect(str(db)).close()
    with live.watching(db):
        writer = live.Writer(db)
        with writer.batch() as con:  # the file open, the gate held, as between two batches
            con.execute("create table t (x int)")
        lock = open(db.with_name(db.name + ".lock"), "a+")  # noqa: SIM115 - an ingest's hold on the lock
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = threading.Event()

        def next_batch() -> None:
            with writer.batch() as con:
                con.execute("insert into t values (1)")
            done.set()

        t = threading.Thread(target=next_batch)
        t.start()
        try:
            deadline = time.monotonic() + 5.0
            while writer.con is not None and time.monotonic() < deadline:
                time.sleep(0.01)
            with live.read_gate(db, timeout=1.0) as there:
                assert there
                reader = duckdb.connect(str(db), read_only=True)
            assert reader.execute("select count(*) from t").fetchone() == (0,)
            reader.close()
            assert not done.is_set()  # the batch still waits for the ingest
        finally:
            lock.close()
        t.join(10)
        assert done.is_set()
        writer.release(checkpoint=True)


#: A long read in another process (``kifu export``): counts, waits for a line on stdin, counts again.
SNAPSHOT = ("import sys\nfrom queries import sharing\nwith sharing.snapshot(sys.argv[1]) as con:\n"
            "    q = 'select count(*) from t'\n    print(con.execute(q).fetchone()[0], flush=True)\n"
            "    sys.stdin.readline()\n    print(con.execute(q).fetchone()[0], flush=True)\n")


def test_a_long_read_keeps_the_watcher_out_only_while_it_copies(tmp_path: Path) -> None:
    """``kifu export`` reads a snapshot while a watcher writes: the watcher writes its next batch while the
    export still reads, and the export sees the database as it was when it started."""
    db = tmp_path / "w.duckdb"
    duckdb.connect(str(db)).close()
    with live.watching(db):
        writer = live.Writer(db)
        with writer.batch() as con:
            con.execute("create table t (x int)")
            con.execute("insert into t values (1)")
        reader = subprocess.Popen([sys.executable, "-c", SNAPSHOT, str(db)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
        assert reader.stdin is not None and reader.stdout is not None
        try:
            deadline = time.monotonic() + 20
            while not select.select([reader.stdout], [], [], 0.02)[0]:  # the watcher's loop, between batches
                writer.yield_to_readers()
                assert time.monotonic() < deadline, "the long read did not start"
            assert reader.stdout.readline().strip() == b"1"  # the watcher let go of the file for the copy
            with writer.batch(insist=False) as con:  # and writes again at once, the long read still going on
                con.execute("insert into t values (2)")
            reader.stdin.write(b"go\n")
            reader.stdin.flush()
            assert reader.stdout.readline().strip() == b"1"  # the database as the read started
            assert reader.wait(30) == 0
        finally:
            reader.kill()
        assert not list(tmp_path.glob("*.snapshot-*"))
        writer.release(checkpoint=True)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("select count(*) from t").fetchone() == (2,)
    con.close()


def test_the_status_says_lag_behind_the_writer_and_events_per_second(tmp_path: Path) -> None:
    w = Watcher(tmp_path / "w.duckdb", [])
    w.started = time.time() - 60
    w._tick()
    assert w.status.lag_s == 0.0 and w.status.rate == 0.0  # nothing written, nothing waits
    w._pending_seen = [time.time() - 2.0]  # a line read two seconds after it was written, not stored yet
    w._rates = [(time.monotonic() - 1.0, 400), (time.monotonic() - 0.5, 100)]
    w._tick()
    assert 1.9 <= (w.status.lag_s or 0) < 3.0
    assert w.status.rate == pytest.approx(500 / watch.RATE_S)
    w._pending_seen, w._backlog_since = [], time.time() - 4.0  # bytes written and not read yet, since 4 s
    w._tick()
    assert 3.9 <= (w.status.lag_s or 0) < 5.0
    assert w.lag_s() == w.status.lag_s
