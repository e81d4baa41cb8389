"""``kifu ingest`` into a database a ``kifu watch`` writes: the ingest hands its files to the watcher, which keeps
committing the match it follows meanwhile, and the database ends as a one-shot ingest of everything
(``loaders.live.handoff``, ``docs/live.md``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb

from loaders.live import handoff
from queries import sharing as live
from tests.conftest import REPO, fixture_path, query
from tests.conftest import ingest as ingest_files
from tests.loaders.test_watch import _round_cut, _wait_events, assert_same, lines_of

ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _kifu(*args: str) -> list[str]:
    return [sys.executable, "-m", "kifu.cli", *args]


def _watch(log: Path, db: Path, tmp: Path) -> subprocess.Popen[bytes]:
    with open(tmp / "watch.out", "ab") as out, open(tmp / "watch.err", "ab") as err:
        return subprocess.Popen(_kifu("watch", str(log), "--db", str(db), "--no-status", "--poll", "0.05",
                                      "--format", "json"), stdout=out, stderr=err, env=ENV, cwd=REPO)  # fmt: skip


def _events_of(db: Path, match_ids: list[str]) -> int:
    """Events of these matches stored so far, read as a page reads while a watcher writes (through the gate)."""
    marks = ", ".join("?" for _ in match_ids)
    for _ in range(500):
        try:
            with live.read_gate(db):
                con = duckdb.connect(str(db), read_only=True)
            try:
                row = con.execute(f"select count(*) from events where match_id in ({marks})", match_ids).fetchone()
                return int(row[0])  # type: ignore[index]
            finally:
                con.close()
        except duckdb.Error as exc:
            if "lock" not in str(exc).lower():
                raise
            time.sleep(0.02)
    raise AssertionError("the database stayed locked")


def _append_lines(path: Path, lines: list[bytes], per_write: int, pause: float) -> None:
    """The dealer writing: ``per_write`` lines at a time, every ``pause`` seconds."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        for i in range(0, len(lines), per_write):
            os.write(fd, b"".join(lines[i:i + per_write]))
            time.sleep(pause)
    finally:
        os.close(fd)


def test_the_watcher_keeps_committing_while_an_ingest_runs(tmp_path: Path) -> None:
    """A watcher follows a log being appended; ``kifu ingest`` of three other logs runs meanwhile: the followed
    match's events keep growing while the ingest has not ended, the ingest prints its usual report, and the
    database equals a one-shot ingest of all four logs."""
    followed = _round_cut(lines_of(fixture_path("misbehave_bind2_40")), 20)  # 3,000 lines
    others = [fixture_path(m) for m in ("noprogress_hoard4_3", "speciallogic_timeout_probe_2",
                                        "deckout_hoard3_aggressor1_12")]  # 4,335 lines  # fmt: skip
    log, db = tmp_path / "Dealer 1-D-00000001.log", tmp_path / "w.duckdb"
    start = len(followed) // 4
    log.write_bytes(b"".join(followed[:start]))
    watcher = _watch(log, db, tmp_path)
    try:
        _wait_events(db, start // 2, watcher, timeout=60)
        ours = [m for (m,) in query(db, "select match_id from matches")]
        assert len(ours) == 1
        # the dealer goes on writing, a few lines at a time, for longer than the ingest takes
        writer = threading.Thread(target=_append_lines, args=(log, followed[start:], 10, 0.1))  # about 25 s
        writer.start()
        with open(tmp_path / "ingest.out", "wb") as out, open(tmp_path / "ingest.err", "wb") as err:
            ingest = subprocess.Popen(_kifu("ingest", *map(str, others), "--db", str(db), "--no-progress"),
                                      stdout=out, stderr=err, env=ENV, cwd=REPO)  # fmt: skip
        seen: list[int] = []
        began = time.monotonic()
        while ingest.poll() is None:  # while the ingest runs, the followed match's events as the pages see them
            n = _events_of(db, ours)
            if ingest.poll() is None:
                seen.append(n)
            time.sleep(0.2)
        print(f"ingest {time.monotonic() - began:.1f} s, followed events meanwhile {seen}")
        said = (tmp_path / "ingest.err").read_text()
        assert ingest.returncode == 0, said
        assert "reads these files between its own batches" in said, said  # handed to the watcher, not swapped
        assert len(seen) >= 3 and seen[-1] > seen[0], f"the followed match did not grow during the ingest: {seen}"
        report = (tmp_path / "ingest.out").read_text()
        assert "records from 3 source(s)" in report and "matches 3" in report, report
        writer.join()
        _wait_events(db, len(followed) + 1, watcher, timeout=60)  # the others' events counted with the followed
    finally:
        watcher.send_signal(signal.SIGTERM)
        watcher.wait(timeout=60)
    assert watcher.returncode == 0, (tmp_path / "watch.err").read_text()
    assert not list(handoff.inbox_dir(db).iterdir())  # every request answered and its files removed
    whole = tmp_path / "whole.log"
    whole.write_bytes(b"".join(followed))
    ingest_files(tmp_path / "one.duckdb", whole, *others)
    assert_same(db, tmp_path / "one.duckdb")
    theirs = query(db, "select count(*) from events where match_id <> ?", ours)[0][0]
    assert f"new events {theirs:,} · already in the database 0 · " in report, report  # the ingest's own count


def test_the_ingest_swaps_when_the_watcher_dies(tmp_path: Path) -> None:
    """The watcher is killed while it reads an ingest's files: the ingest says so in one line and ingests them
    by a copy swapped in (recognising what the watcher stored); the database equals a one-shot ingest."""
    followed = fixture_path("speciallogic_timeout_probe_2")
    others = [fixture_path(m) for m in ("deckout_hoard3_aggressor1_12", "demo4_bind2_60")]  # several batches
    log, db = tmp_path / "Dealer 1-D-00000001.log", tmp_path / "w.duckdb"
    log.write_bytes(b"".join(lines_of(followed)))
    watcher = _watch(log, db, tmp_path)
    _wait_events(db, len(lines_of(followed)), watcher, timeout=60)
    inbox = handoff.inbox_dir(db)
    with open(tmp_path / "ingest.out", "wb") as out, open(tmp_path / "ingest.err", "wb") as err:
        ingest = subprocess.Popen(_kifu("ingest", *map(str, others), "--db", str(db), "--no-progress"),
                                  stdout=out, stderr=err, env=ENV, cwd=REPO)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not list(inbox.glob("*.progress")):  # the watcher has stored some of the files
            assert time.monotonic() < deadline and ingest.poll() is None, "the watcher read nothing of the files"
            time.sleep(0.05)
    finally:
        watcher.kill()
        watcher.wait()
    assert ingest.wait(timeout=120) == 0, (tmp_path / "ingest.err").read_text()
    said = (tmp_path / "ingest.err").read_text()
    assert "stopped before it had read these files — ingesting them by a copy" in said, said
    assert "records from 2 source(s)" in (tmp_path / "ingest.out").read_text()
    assert not list(inbox.iterdir())
    watcher = _watch(log, db, tmp_path)  # started again and stopped: the followed match closed as one-shot closes it
    time.sleep(3)
    watcher.send_signal(signal.SIGTERM)
    assert watcher.wait(timeout=60) == 0
    ingest_files(tmp_path / "one.duckdb", followed, *others)
    assert_same(db, tmp_path / "one.duckdb")


def test_sigterm_stops_an_ingest_handed_over(tmp_path: Path) -> None:
    """SIGTERM to an ingest whose files the watcher reads: it ends at once (143) and says what stays stored; the
    watcher stops reading the files and goes on; the same ingest run again completes the files, and the database
    equals a one-shot ingest."""
    followed = fixture_path("speciallogic_timeout_probe_2")
    others = [fixture_path(m) for m in ("demo4_bind2_60", "deckout_hoard3_aggressor1_12")]
    log, db = tmp_path / "Dealer 1-D-00000001.log", tmp_path / "w.duckdb"
    log.write_bytes(b"".join(lines_of(followed)))
    watcher = _watch(log, db, tmp_path)
    inbox = handoff.inbox_dir(db)
    try:
        _wait_events(db, len(lines_of(followed)), watcher, timeout=60)
        cmd = _kifu("ingest", *map(str, others), "--db", str(db), "--no-progress")
        ingest = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, cwd=REPO, text=True)
        deadline = time.monotonic() + 60
        while not list(inbox.glob("*.progress")):
            assert time.monotonic() < deadline and ingest.poll() is None, "the watcher read nothing of the files"
            time.sleep(0.05)
        ingest.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        _, err = ingest.communicate(timeout=30)
        assert ingest.returncode == 143 and time.monotonic() - sent < 2.0, err
        assert "interrupted; kifu watch" in err and "stays in the database" in err, err
        deadline = time.monotonic() + 20
        while list(inbox.iterdir()):  # the watcher stopped reading them and removed the request
            assert time.monotonic() < deadline, list(inbox.iterdir())
            time.sleep(0.1)
        assert watcher.poll() is None
        again = subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=REPO, timeout=180)
        assert again.returncode == 0 and "reads these files between its own batches" in again.stderr, again.stderr
    finally:
        watcher.send_signal(signal.SIGTERM)
        watcher.wait(timeout=60)
    assert watcher.returncode == 0, (tmp_path / "watch.err").read_text()
    ingest_files(tmp_path / "one.duckdb", followed, *others)
    assert_same(db, tmp_path / "one.duckdb")
