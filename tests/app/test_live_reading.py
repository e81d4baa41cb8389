"""The dashboard keeps working while ``kifu watch`` writes the database in place, and lets the watcher in.

A watcher (:class:`loaders.live.watch.Watcher` following a file, in a process of its own as in real use:
``tests/app/live_watcher.py``) ingests a real 60-round match while a thread appends its lines to the
file in chunks.  Meanwhile the Matches page and the round replayer run again and again (AppTest, in
English and Japanese) and another thread reads as overlapping page runs do (``ui.reading``).  No
run may fail, the pages must see the match grow, the watcher must store every line, and its batches
must never wait long for the readers to let go of the file.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app import ui
from queries import sharing as live
from queries import dashboard as q
from tests.app.conftest import ENTRY
from tests.conftest import REPO, fixture_path, read_lines

#: These tests hold a page or a watcher to the clock: `make test` runs them after the others, alone.
pytestmark = pytest.mark.alone

#: The longest a batch may wait for the dashboard to let go of the file (a page run or two).
MAX_WAIT_S = 3.0
EVENTS = re.compile(r"([\d,]+) (?:events|イベント)")


def _append(path: Path, lines: list[bytes], stop: threading.Event, chunk: int = 120, pause: float = 0.12) -> None:
    with path.open("ab") as f:
        for i in range(0, len(lines), chunk):
            if stop.is_set():
                return
            f.write(b"".join(line + b"\n" for line in lines[i : i + chunk]))
            f.flush()
            time.sleep(pause)


def _events_seen(at: object) -> list[int]:
    texts = [m.value for m in at.markdown]  # type: ignore[attr-defined]
    return [int(n.replace(",", "")) for t in texts for n in EVENTS.findall(t)]


def _wait(what: object, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while not what():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(message)
        time.sleep(0.05)


def test_pages_read_while_a_watcher_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    lines = read_lines(fixture_path("demo4_bind2_60"))
    db, log, out = tmp_path / "live.duckdb", tmp_path / "dealer.log", tmp_path / "watcher.json"
    log.touch()
    monkeypatch.setenv("KIFU_DB", str(db))
    ui.close_all()
    watcher = subprocess.Popen([sys.executable, "-m", "tests.app.live_watcher", str(db), str(log), str(out)], cwd=REPO,
                               env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    stop = threading.Event()
    failures: list[str] = []
    reads = [0]

    def reader() -> None:  # another session's runs, overlapping the AppTest runs
        while not stop.is_set():
            try:
                with ui.reading():
                    con = ui.Db(db)
                    for mid in q.match_list(con)["match_id"]:
                        q.round_index(con, mid)
                        q.live_matches(con)
                reads[0] += 1
            except BaseException as exc:  # noqa: BLE001 - every failure is the finding
                failures.append(f"reader: {type(exc).__name__}: {exc}")
                return
            time.sleep(0.01)

    appender = threading.Thread(target=_append, args=(log, lines, stop), daemon=True)
    other = threading.Thread(target=reader, daemon=True)
    try:
        _wait(lambda: live.watcher_present(db), 30, "the watcher did not start")
        appender.start()
        _wait(lambda: db.exists() and live.watcher_present(db), 30, "the watcher made no database")
        other.start()
        seen: list[int] = []
        runs = 0
        apps = {(page, lang): AppTest.from_file(ENTRY, default_timeout=60) for page in ("matches", "round_browser")
                for lang in ("en", "ja")}  # fmt: skip
        for (page, lang), at in apps.items():
            at.query_params["lang"] = lang
        started = time.monotonic()
        while appender.is_alive() or runs < 8:
            for (page, lang), at in apps.items():
                at.run()
                if page == "round_browser":
                    at.switch_page("app_pages/round_browser.py").run()
                runs += 1
                errors = [str(e.value) for e in at.exception] + [w.value for w in at.warning]
                assert not errors, (page, lang, errors)
                if page == "matches":
                    seen += _events_seen(at)
            assert time.monotonic() - started < 240, "the pages did not keep up"
        _wait(lambda: sum(ui.Db(db).execute("select count(*) from events").fetchone() or (0,)) == len(lines), 120,
              "the watcher did not store every line")  # fmt: skip
    finally:
        stop.set()
        watcher.send_signal(signal.SIGTERM)  # watcher.stop()
        watcher.wait(60)
        other.join(30)
    assert watcher.returncode == 0
    assert not failures, failures
    done = json.loads(out.read_text())
    assert done["events"] == len(lines)
    growth = sorted(set(seen))
    assert len(growth) >= 3, f"the Matches page saw the events count grow fewer than twice: {growth}"
    assert reads[0] > 0
    assert not done["waiting"] and not [n for n in done["notes"] if "waiting" in n], done["notes"]
    assert max(done["waits"]) < MAX_WAIT_S, done["waits"]
    print(f"runs {runs}, events seen {growth}, reads {reads[0]}, batches {done['batches']}, "
          f"longest wait {max(done['waits']):.2f} s, longest hold {max(done['holds']):.2f} s")
    con = ui.Db(db)
    assert q.live_matches(con).empty  # the watcher stopped: no match is live
    assert not ui.live_ids(con)


# ---- the reader's side of the protocol, step by step (queries/sharing.py)

WRITER = """
import sys, time
from queries import sharing as live
with live.write_window(sys.argv[1]) as con:
    con.execute("select count(*) from matches").fetchall()
    print(time.monotonic(), flush=True)
"""


def _sample_db(tmp_path: Path) -> Path:
    from tests.conftest import SAMPLE, ingest

    db = tmp_path / "kifu.duckdb"
    ingest(db, SAMPLE)
    return db


def _can_write(db: Path) -> bool:
    """Whether another process can open ``db`` for writing right now."""
    code = "import duckdb, sys; duckdb.connect(sys.argv[1]).close()"
    return subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True).returncode == 0


def test_an_idle_dashboard_lets_go_when_a_watcher_starts(tmp_path: Path) -> None:
    db = _sample_db(tmp_path)
    ui.close_all()
    with ui.reading():
        assert ui.Db(db).execute("select count(*) from matches").fetchone() == (1,)
    assert str(db) in ui._OPEN and not _can_write(db)  # no watcher: the attachment stays, as it always did
    with live.watching(db):
        _wait(lambda: str(db) not in ui._OPEN, 2.0, "the idle attachment was kept while a watcher is there")
        assert _can_write(db)
        with ui.reading():  # a run attaches it again, and lets go when it ends
            assert ui.Db(db).execute("select count(*) from matches").fetchone() == (1,)
            assert not _can_write(db)
        assert str(db) not in ui._OPEN and _can_write(db)


def test_runs_and_batches_take_turns_at_the_gate(tmp_path: Path) -> None:
    """A batch waits only for the runs already under way; a run that starts meanwhile waits for the batch
    (even though the attachment it could share is still there)."""
    db = _sample_db(tmp_path)
    ui.close_all()
    inside, go, times = threading.Event(), threading.Event(), {}

    def run_a() -> None:
        with ui.reading():
            ui.Db(db).execute("select count(*) from events").fetchall()
            inside.set()
            go.wait(30)
            ui.Db(db).execute("select count(*) from rounds").fetchall()  # still the same lease
        times["a_done"] = time.monotonic()

    def run_b() -> None:
        with ui.reading():
            ui.Db(db).execute("select count(*) from matches").fetchall()
            times["b_in"] = time.monotonic()

    with live.watching(db):
        a = threading.Thread(target=run_a)
        a.start()
        assert inside.wait(30)
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], cwd=REPO, stdout=subprocess.PIPE, text=True,
                                  env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
        _wait(lambda: not _gate_free(db), 30, "the batch did not take the gate")
        b = threading.Thread(target=run_b)
        b.start()
        time.sleep(0.5)
        assert writer.poll() is None and "b_in" not in times  # the batch waits for A; B waits for the batch
        go.set()
        a.join(30)
        out, _err = writer.communicate(timeout=30)
        b.join(30)
    assert writer.returncode == 0
    wrote_at = float(out.split()[0])
    assert times["a_done"] <= wrote_at <= times["b_in"]


def _gate_free(db: Path) -> bool:
    import fcntl

    with live.gate_file(db).open("rb") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
    return True


def test_a_database_of_an_older_schema_is_refused_saying_what_to_do(tmp_path: Path) -> None:
    """Schema 6 had no live_matches table, schema 7 stored every board: the dashboard refuses either,
    saying to ingest the logs again (as `kifu ingest` does)."""
    import duckdb

    from queries import DatabaseError

    db = _sample_db(tmp_path)
    con = duckdb.connect(str(db))
    con.execute("drop table live_matches")
    con.execute("update kifu_meta set value = '6' where key = 'schema_version'")
    con.close()
    ui.close_all()
    with live.watching(db), ui.reading(), pytest.raises(DatabaseError, match="older Kifu.*ingest the logs again"):
        q.live_matches(ui.Db(db))
