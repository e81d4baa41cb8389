"""``kifu watch``: a match followed while it is written ends up exactly as a one-shot ``kifu ingest``.

Every source kind is followed while a writer makes it grow — a dealer log file (lines caught half
written, the file replaced by a new match, the watcher killed with SIGKILL and started again), the
dealer's MongoDB (mongomock; a real server with ``KIFU_TEST_MONGODB_URI``; the server going away and
coming back), a Kakomimasu server (a local HTTP server serving a real game turn by turn) and a CHaser
server's log folder — and the database it leaves is compared table by table, lineage aside, with
``kifu ingest`` of the same logs.  The findings it prints are the database's.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest

from queries import sharing as live
from loaders.core.feeds import Folder, MongoFeed, follow_path
from loaders.live.watch import Watcher
from tests.conftest import PHYSICAL, REPO, SHARED, derived_states, fixture_path, query, table_rows
from tests.conftest import ingest as ingest_files
from tests.loaders.test_mongo import mongo  # noqa: F401 - the fixture: mongomock, or a real server

#: Columns that say where and when a row was read (the run, the file and line), not what the log says.
LINEAGE = {"run_id", "first_run_id", "last_run_id", "source", "line"}
#: Tables about runs and watchers, not about the logs.
RUN_TABLES = {"load_runs", "live_matches"}


def content(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows without lineage columns, sorted; stored by content (every raw line's text,
    the board after every event: how they are packed and which boards are keyframes depend on the
    batches)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        tables = [t for (t,) in con.execute("select table_name from information_schema.tables").fetchall()]
        for table in sorted(tables):
            if table in RUN_TABLES or table in PHYSICAL:
                continue
            cols, rows = table_rows(con, table)
            keep = [i for i, c in enumerate(cols) if c not in LINEAGE]
            out[table] = sorted((tuple(row[i] for i in keep) for row in rows), key=repr)
        out["states"] = derived_states(con)
        return out
    finally:
        con.close()


def assert_same(watched: Path, one_shot: Path) -> None:
    a, b = content(watched), content(one_shot)
    assert a.keys() == b.keys()
    for table in a:
        assert len(a[table]) == len(b[table]), table
        assert a[table] == b[table], table


def lines_of(path: Path) -> list[bytes]:
    data = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
    return data.splitlines(keepends=True)


def append_slowly(path: Path, lines: list[bytes], *, seed: int = 1, chunk: int = 300, pause: float = 0.002) -> None:
    """Append ``lines`` in chunks that cut lines in half at random places (what a follower may catch)."""
    rng = random.Random(seed)
    data = b"".join(lines)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        pos = 0
        while pos < len(data):
            n = rng.randint(1, chunk * 200)
            os.write(fd, data[pos:pos + n])
            pos += n
            time.sleep(pause)
    finally:
        os.close(fd)


def count_events(db: Path) -> int:
    """Events stored so far, read as the dashboard reads while a watcher writes (through the gate)."""
    for _ in range(500):
        try:
            with live.read_gate(db):
                con = duckdb.connect(str(db), read_only=True)
            try:
                return int(con.execute("select count(*) from events").fetchone()[0])  # type: ignore[index]
            finally:
                con.close()
        except duckdb.Error as exc:
            if "lock" not in str(exc).lower() and "does not exist" not in str(exc).lower():
                raise
            time.sleep(0.02)
    raise AssertionError("the database stayed locked")


def watch_until(w: Watcher, done: Any, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    idle = [0]

    def until() -> bool:
        assert time.monotonic() < deadline, "the watcher did not catch up in time"
        if done() and w.status.behind == 0:
            idle[0] += 1
        return idle[0] > 5

    w.run(until=until)


def test_growing_file_equals_one_shot(tmp_path: Path) -> None:
    src = fixture_path("misbehave_bind2_40")
    log = tmp_path / "Dealer 1-D-00000001.log"
    log.touch()
    writer = threading.Thread(target=append_slowly, args=(log, lines_of(src)))
    found: list[Any] = []
    w = Watcher(tmp_path / "w.duckdb", [follow_path(log, settle_s=0.2)], on_finding=found.append, poll_s=0.01)
    writer.start()
    watch_until(w, lambda: not writer.is_alive())
    writer.join()
    ingest_files(tmp_path / "one.duckdb", src)
    assert_same(tmp_path / "w.duckdb", tmp_path / "one.duckdb")
    assert w.status.batches > 3  # it really followed the file as it grew, batch by batch
    stored = query(tmp_path / "one.duckdb", "select match_id, seq, player, code, message from violations")
    told = [(f.match_id, f.seq, f.player, f.code, f.message) for f in found]
    assert sorted(told, key=repr) == sorted(stored, key=repr)  # every finding told once, none made up
    assert query(tmp_path / "w.duckdb", "select count(*) from live_matches") == [(0,)]


def test_last_line_without_newline_and_blank_lines(tmp_path: Path) -> None:
    src = fixture_path("speciallogic_timeout_probe_2")
    lines = lines_of(src)
    body = b"".join(lines[:10]) + b"\n\n" + b"".join(lines[10:])
    log = tmp_path / "a.log"
    log.write_bytes(body.rstrip(b"\n"))  # the dealer stopped before the last newline
    w = Watcher(tmp_path / "w.duckdb", [follow_path(log, settle_s=0.05)], poll_s=0.01)
    watch_until(w, lambda: True)
    ingest_files(tmp_path / "one.duckdb", log)
    assert_same(tmp_path / "w.duckdb", tmp_path / "one.duckdb")
    with open(log, "ab") as f:  # the newline comes after all: nothing read twice
        f.write(b"\n")
    w2 = Watcher(tmp_path / "w.duckdb", [follow_path(log, settle_s=0.05)], poll_s=0.01)
    watch_until(w2, lambda: True)
    assert_same(tmp_path / "w.duckdb", tmp_path / "one.duckdb")


def _round_cut(lines: list[bytes], rounds: int) -> list[bytes]:
    """The lines of a log up to the end of round ``rounds`` (its finish-turn)."""
    for i, line in enumerate(lines):
        d = json.loads(line)
        if d["event"] == "finish-turn" and d.get("turn") == rounds:
            return lines[: i + 1]
    return lines


def _kifu(*args: str) -> list[str]:
    return [sys.executable, "-m", "kifu.cli", *args]


def _wait_events(db: Path, n: int, proc: subprocess.Popen[bytes] | None = None, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists() and count_events(db) >= n:
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"kifu watch ended early (exit {proc.returncode})")
        time.sleep(0.1)
    raise AssertionError(f"fewer than {n} events stored in time")


def test_killed_twice_and_file_replaced(tmp_path: Path) -> None:
    """A 200-round real log followed by ``kifu watch``: SIGKILLed twice while catching up, then the
    file replaced by a new match (the dealer kit restarted) — the database equals a one-shot ingest."""
    a = _round_cut(lines_of(fixture_path("demo4_skipbind2_300")), 200)
    b = lines_of(fixture_path("misbehave_bind2_40"))
    log = tmp_path / "Dealer 1-D-00000001.log"
    db = tmp_path / "w.duckdb"
    third = len(a) // 3
    log.write_bytes(b"".join(a[:third]))
    cmd = _kifu("watch", str(log), "--db", str(db), "--format", "json", "--no-status", "--poll", "0.05", "--settle", "0.2")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out_file, err_file = tmp_path / "out.jsonl", tmp_path / "err.txt"

    def start() -> subprocess.Popen[bytes]:  # output to files: a pipe nobody reads would stop the watcher
        with open(out_file, "ab") as out, open(err_file, "ab") as err:
            return subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=REPO)

    proc = start()
    _wait_events(db, third // 2, proc)
    proc.kill()  # SIGKILL while it reads: whatever batch was under way is lost, the rest stays
    proc.wait()
    append_slowly(log, a[third: 2 * third], chunk=2000, pause=0)
    proc = start()
    _wait_events(db, third + 100, proc)
    proc.kill()  # SIGKILL again, half way through the backlog
    proc.wait()
    proc = start()
    writer = threading.Thread(target=append_slowly, args=(log, a[2 * third:]), kwargs={"chunk": 2000})
    writer.start()
    writer.join()
    _wait_events(db, len(a), proc)
    # the dealer kit restarts: a new file under the same name, a new match in it
    fresh = tmp_path / "new.log"
    fresh.write_bytes(b"".join(b[: len(b) // 2]))
    os.replace(fresh, log)
    append_slowly(log, b[len(b) // 2:], chunk=2000)
    _wait_events(db, len(a) + len(b), proc)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode == 0, err_file.read_text()
    for line in out_file.read_text().splitlines():  # --format json: one object per line, the documented keys
        obj = json.loads(line)
        assert {"match_id", "round", "seq", "player", "code", "family", "severity", "message"} <= obj.keys()
    first = tmp_path / "first.log"
    first.write_bytes(b"".join(a))
    second = tmp_path / "second.log"
    second.write_bytes(b"".join(b))
    ingest_files(tmp_path / "one.duckdb", first, second)
    assert_same(db, tmp_path / "one.duckdb")
    assert query(db, "select count(*) from matches") == [(2,)]
    assert not live.watcher_present(db)


def test_second_watcher_refused(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    with live.watching(db):
        assert live.watcher_present(db)
        r = subprocess.run(_kifu("watch", str(tmp_path / "x.log"), "--db", str(db), "--no-status"),
                           capture_output=True, text=True, cwd=REPO, timeout=60)  # fmt: skip
        assert r.returncode == 1
        assert "another kifu watch" in r.stderr
    assert not live.watcher_present(db)


def test_fail_on_error_stops_at_the_first_finding(tmp_path: Path) -> None:
    log = tmp_path / "m.log"
    log.write_bytes(gzip.open(fixture_path("misbehave_bind2_40")).read())
    db = tmp_path / "w.duckdb"
    r = subprocess.run(_kifu("watch", str(log), "--db", str(db), "--player", "Misbehaver", "--fail-on", "error",
                             "--no-status"), capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert "--fail-on error" in r.stderr
    told = [line for line in r.stdout.splitlines() if line.strip()]
    assert told and all("Misbehaver" in line for line in told)
    assert any(" error " in line for line in told)
    # what it stored is kept, and nothing is half-written: a second run finishes the file
    from tests.conftest import sigint_default  # stopped with Ctrl-C, however the suite was started

    r2 = subprocess.Popen(_kifu("watch", str(log), "--db", str(db), "--no-status", "--poll", "0.05"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, preexec_fn=sigint_default)  # fmt: skip
    _wait_events(db, len(lines_of(log)), r2)
    r2.send_signal(signal.SIGINT)
    r2.communicate(timeout=60)
    assert r2.returncode == 0
    ingest_files(tmp_path / "one.duckdb", log)
    assert_same(db, tmp_path / "one.duckdb")


def test_folder_new_matches_and_chaser_logs(tmp_path: Path) -> None:
    """A folder: dealer logs appear one after the other, a CHaser log grows and settles."""
    folder = tmp_path / "logs"
    folder.mkdir()
    chaser_logs = sorted((SHARED / "fixtures" / "chaser" / "games").glob("log*.txt"))
    if not chaser_logs:
        pytest.skip(f"CHaser fixture logs not found at {SHARED / 'fixtures' / 'chaser'} (is the checkout complete?)")
    chaser_src = chaser_logs[0]
    w = Watcher(tmp_path / "w.duckdb", [Folder(folder, settle_s=0.3)], poll_s=0.01)
    srcs = [fixture_path("speciallogic_timeout_probe_2"), fixture_path("noprogress_hoard4_3")]

    def write() -> None:
        for i, src in enumerate(srcs):
            append_slowly(folder / f"Dealer-D-0000000{i + 1}.log", lines_of(src), chunk=500)
        data = chaser_src.read_bytes()
        (folder / chaser_src.name).write_bytes(data[: len(data) // 2])
        time.sleep(0.1)
        with open(folder / chaser_src.name, "ab") as f:
            f.write(data[len(data) // 2:])

    writer = threading.Thread(target=write)
    writer.start()
    watch_until(w, lambda: not writer.is_alive() and time.sleep(0.5) is None)
    writer.join()
    ingest_files(tmp_path / "one.duckdb", *srcs, chaser_src)
    assert_same(tmp_path / "w.duckdb", tmp_path / "one.duckdb")


class _Flaky:
    """A client whose server goes away for a while (every ``find`` fails) and comes back."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.down = False

    def __getitem__(self, name: str) -> Any:
        outer = self

        class Db:
            def __getitem__(self, col: str) -> Any:
                real = outer.client[name][col]

                class Col:
                    def find(self, *a: Any, **k: Any) -> Any:
                        if outer.down:
                            import pymongo.errors

                            raise pymongo.errors.ServerSelectionTimeoutError("server gone")
                        return real.find(*a, **k)

                    def count_documents(self, *a: Any, **k: Any) -> Any:
                        return real.count_documents(*a, **k)

                return Col()

        return Db()


@pytest.mark.mongo
def test_mongo_followed_while_the_dealer_writes(tmp_path: Path, mongo: tuple[Any, str, str]) -> None:  # noqa: F811 - the fixture
    from bson import json_util

    from loaders.core.mongo import MongoSource
    from loaders.pipeline import ingest

    client, uri, name = mongo
    docs = [json_util.loads(x) for x in lines_of(fixture_path("misbehave_bind2_40", "stored")) if x.strip()]
    col = client[name]["activities"]
    flaky = _Flaky(client)
    feed = MongoFeed(MongoSource(uri, name, client=flaky))
    w = Watcher(tmp_path / "w.duckdb", [feed], poll_s=0.01)
    problems: list[str] = []

    def write() -> None:
        for i in range(0, len(docs), 97):
            col.insert_many(docs[i:i + 97])
            if i == 97 * 20:
                flaky.down = True  # the server goes away until the watcher has noticed
                deadline = time.monotonic() + 30
                while feed.problem is None and time.monotonic() < deadline:
                    time.sleep(0.01)
                problems.append(str(feed.problem))
                flaky.down = False
            time.sleep(0.002)

    writer = threading.Thread(target=write)
    writer.start()
    watch_until(w, lambda: not writer.is_alive())
    writer.join()
    assert problems and "unreachable" in problems[0]
    ingest([MongoSource(uri, name, client=client)], tmp_path / "one.duckdb")
    assert_same(tmp_path / "w.duckdb", tmp_path / "one.duckdb")


KAKOMIMASU_GAMES = SHARED / "fixtures" / "kakomimasu" / "v1_games"


def _kakomimasu_game() -> Path:
    games = sorted(KAKOMIMASU_GAMES.glob("*.json"))
    if not games:
        pytest.skip(f"Kakomimasu fixture games not found at {KAKOMIMASU_GAMES} (is the checkout complete?)")
    return games[0]


def test_kakomimasu_game_followed_turn_by_turn(tmp_path: Path) -> None:
    """A Kakomimasu server serving a real game turn by turn (one more turn per request): the watcher polls
    its match resource, marks the game live while it runs, stops when it ends; the database then equals a
    one-shot ingest of the finished game, and ``kifu ingest URL`` reads the same game."""
    from kifu.replay_log import KakomimasuReplayServer
    from loaders.core.feeds import KakomimasuFeed

    path = _kakomimasu_game()
    game_id = json.loads(path.read_bytes())["id"]
    seen_live: list[int] = []
    with KakomimasuReplayServer(path, speed=0) as server:
        feed = KakomimasuFeed(server.match_url(game_id), interval_s=0.01)
        w = Watcher(tmp_path / "w.duckdb", [feed], poll_s=0.01)

        def until() -> bool:
            if w.status.batches:
                seen_live.append(w.status.live)
            return feed.done

        w.run(until=until)
        assert len(server.requests) > 3  # followed while it grew, not read once
        r = subprocess.run(_kifu("ingest", server.match_url(game_id), "--db", str(tmp_path / "url.duckdb"),
                                 "--no-progress"), capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
        assert r.returncode == 0, r.stderr
    assert 1 in seen_live  # live while it was played
    assert query(tmp_path / "w.duckdb", "select count(*) from live_matches") == [(0,)]
    ingest_files(tmp_path / "one.duckdb", path)
    assert_same(tmp_path / "w.duckdb", tmp_path / "one.duckdb")
    assert_same(tmp_path / "url.duckdb", tmp_path / "one.duckdb")


def test_ingest_into_a_watched_database(tmp_path: Path) -> None:
    """``kifu ingest`` of another log into the database a watcher writes: the ingest hands the log to the
    watcher, which reads it between its own batches (``loaders.live.handoff``) — the database ends as a
    one-shot ingest of both logs."""
    a, b = fixture_path("misbehave_bind2_40"), fixture_path("speciallogic_timeout_probe_2")
    lines = lines_of(a)
    log = tmp_path / "a.log"
    log.write_bytes(b"".join(lines[: len(lines) // 2]))
    db = tmp_path / "w.duckdb"
    w = Watcher(db, [follow_path(log, settle_s=0.2)], poll_s=0.01)
    state: dict[str, Any] = {"step": 0}

    def ingest_then_write() -> None:  # another process ingests while the watcher runs
        state["ingest"] = subprocess.run(_kifu("ingest", str(b), "--db", str(db), "--no-progress"),
                                         capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
        append_slowly(log, lines[len(lines) // 2:], chunk=2000, pause=0)
        state["t"] = time.monotonic()
        state["step"] = 2

    def until() -> bool:
        if state["step"] == 0 and w.status.events >= len(lines) // 2:
            state["step"] = 1
            threading.Thread(target=ingest_then_write, daemon=True).start()
        return state["step"] == 2 and w.status.behind == 0 and time.monotonic() - state["t"] > 2.0

    w.run(until=until)
    assert state["ingest"].returncode == 0, state["ingest"].stderr
    assert "reads these files between its own batches" in state["ingest"].stderr  # handed over, not swapped
    ingest_files(tmp_path / "one.duckdb", a, b)
    assert_same(db, tmp_path / "one.duckdb")


def test_a_reader_gets_the_file_within_a_poll(tmp_path: Path) -> None:
    """The watcher keeps the file open between batches; a reader that asks (the gate) gets it at once."""
    log = tmp_path / "a.log"
    log.write_bytes(gzip.open(fixture_path("speciallogic_timeout_probe_2")).read())
    db = tmp_path / "w.duckdb"
    w = Watcher(db, [follow_path(log, settle_s=0.1)], poll_s=0.05)
    waits: list[float] = []

    def reader() -> None:
        while w.status.batches == 0:
            time.sleep(0.01)
        for _ in range(5):
            t = time.monotonic()
            assert count_events(db) > 0
            waits.append(time.monotonic() - t)
            time.sleep(0.2)

    th = threading.Thread(target=reader)
    th.start()
    w.run(until=lambda: not th.is_alive())
    th.join()
    assert len(waits) == 5 and max(waits) < 2.0, waits
    assert w._writer.opened >= 2  # it let go for the reader and took the file back


def test_names_from_the_log_are_printed_inert(tmp_path: Path) -> None:
    """A bot's name with terminal escapes, a bell and a line break: the text line shows them escaped,
    the JSON line gives the name back exactly."""
    evil = "Mis\x1b[2J\x1b]0;pwned\x07be\nhaver"
    data = gzip.open(fixture_path("misbehave_bind2_40")).read().replace(b'"Misbehaver"', json.dumps(evil).encode())
    log = tmp_path / "m.log"
    log.write_bytes(data)
    out = {}
    for fmt in ("text", "json"):
        r = subprocess.run(_kifu("watch", str(log), "--db", str(tmp_path / f"{fmt}.duckdb"), "--format", fmt,
                                 "--player", evil, "--fail-on", "error", "--no-status"),
                           capture_output=True, cwd=REPO, timeout=120)  # fmt: skip
        assert r.returncode == 1, r.stderr
        out[fmt] = r.stdout
    assert out["text"] and b"\x1b" not in out["text"] and b"\x07" not in out["text"]
    assert all(line.count(b"\n") == 0 for line in out["text"].splitlines())
    assert {json.loads(line)["player_name"] for line in out["json"].splitlines()} == {evil}


def test_a_match_that_ended_is_compacted_once_not_again_when_the_watcher_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """`kifu dealer`'s watcher stops right after its match ends: the file is compacted when the match ends, and the
    stop (whose batch reads nothing, only the runs' rows) does not copy the whole file again.  A match still being
    played when the watcher stops is compacted at the stop."""
    import loaders.live.watch as watch_module

    copies: list[str] = []
    real = watch_module.live.compact
    monkeypatch.setattr(watch_module.live, "compact",
                        lambda db, waiting=None: (copies.append("copy"), real(db, waiting)))  # fmt: skip
    lines = lines_of(fixture_path("misbehave_bind2_40"))
    log = tmp_path / "Dealer 1-D-00000001.log"
    log.write_bytes(b"".join(lines))  # the whole match: it ends in the watcher's batches
    w = Watcher(tmp_path / "w.duckdb", [follow_path(log, settle_s=0.2)], poll_s=0.01)
    watch_until(w, lambda: True)
    assert copies == ["copy"]
    ingest_files(tmp_path / "one.duckdb", fixture_path("misbehave_bind2_40"))
    assert_same(tmp_path / "w.duckdb", tmp_path / "one.duckdb")

    copies.clear()
    cut = tmp_path / "Dealer 1-D-00000002.log"
    cut.write_bytes(b"".join(lines[: len(lines) // 2]))  # stopped while the match is played: compacted at the stop
    w = Watcher(tmp_path / "cut.duckdb", [follow_path(cut, settle_s=0.2)], poll_s=0.01)
    watch_until(w, lambda: True)
    assert copies == ["copy"]
