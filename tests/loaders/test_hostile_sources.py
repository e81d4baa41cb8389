"""Network sources facing hostile servers: every request ends within its bound, and Kifu goes on.

A local HTTP server (:class:`HostileServer`, a thread of this process) answers as a broken or hostile
Kakomimasu server would: one byte every 0.5 s (``/trickle``), a body without end (``/huge``) or one that
announces 3 GiB (``/announced``), a redirect to another port (``/elsewhere``), a game that never ends
(``/endless``: the same unfinished game at every request; ``/restless``: a game that changes at every
request and never ends).  The bounds are set small through the commands' options, so each case takes
about two seconds.  MongoDB's bounds are checked on the options the client gets and on mongomock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from loaders.core.feeds import KakomimasuFeed
from loaders.core.netfetch import BoundExceeded, HttpBounds, fetch
from loaders.core.sources import SourceError
from tests.conftest import REPO, query

GAME = REPO / "tests" / "fixtures" / "kakomimasu" / "v1_games" / "game02_A-2.json"
CHASER_SAMPLE = REPO / "samples" / "chaser_greedy-vs-greedy.txt"


def unfinished_game(turns: int = 5, name: str | None = None) -> bytes:
    """A real Kakomimasu game cut at ``turns``, its status still "playing"."""
    doc = json.loads(GAME.read_bytes())
    doc["log"] = doc["log"][:turns]
    doc["turn"] = turns
    doc["status"] = "playing"
    if name is not None:
        doc["name"] = name
    return json.dumps(doc).encode()


class HostileServer:
    """A local HTTP server answering as a hostile one, path by path (see the module's text)."""

    def __init__(self, trickle_every_s: float = 0.5) -> None:
        self.stop = threading.Event()
        self.requests: list[str] = []
        self.times: list[float] = []  # time.monotonic() of each request
        self.trickle_every_s = trickle_every_s
        self.other = _Server(("127.0.0.1", 0), _Handler)  # the port a redirect points to
        self.other.owner = self
        self.main = _Server(("127.0.0.1", 0), _Handler)
        self.main.owner = self
        self.url = f"http://127.0.0.1:{self.main.server_address[1]}"
        self.other_url = f"http://127.0.0.1:{self.other.server_address[1]}"
        self._restless = 0
        self._threads = [threading.Thread(target=s.serve_forever, args=(0.05,), daemon=True) for s in (self.main, self.other)]

    def __enter__(self) -> HostileServer:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        for s in (self.main, self.other):
            s.shutdown()
            s.server_close()

    def answer(self, h: BaseHTTPRequestHandler) -> None:
        port = h.server.server_address[1]
        self.times.append(time.monotonic())
        self.requests.append(f"{port}{h.path}")
        path = h.path.split("?")[0]
        if h.server is self.other:
            return self._send(h, 200, unfinished_game())
        if path == "/trickle":
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", "100000")
            h.end_headers()
            while not self.stop.is_set():
                h.wfile.write(b" ")
                h.wfile.flush()
                self.stop.wait(self.trickle_every_s)
        elif path == "/huge":  # no length announced: bytes as fast as they go, without end
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.end_headers()
            block = b"[" + b"0," * 32767
            while not self.stop.is_set():
                h.wfile.write(block)
        elif path == "/announced":
            h.send_response(200)
            h.send_header("Content-Length", str(3 * 1024**3))
            h.end_headers()
            while not self.stop.is_set():
                h.wfile.write(b"0" * 65536)
        elif path == "/elsewhere":
            h.send_response(302)
            h.send_header("Location", f"{self.other_url}/game")
            h.send_header("Content-Length", "0")
            h.end_headers()
        elif path == "/here":
            h.send_response(301)
            h.send_header("Location", "/game")
            h.send_header("Content-Length", "0")
            h.end_headers()
        elif path == "/loop":
            h.send_response(307)
            h.send_header("Location", "/loop")
            h.send_header("Content-Length", "0")
            h.end_headers()
        elif path in ("/game", "/endless"):
            self._send(h, 200, unfinished_game())
        elif path == "/restless":
            self._restless += 1
            self._send(h, 200, unfinished_game(name=f"never ends {self._restless}"))
        else:
            self._send(h, 404, b"{}")

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: bytes) -> None:
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: HostileServer


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        try:
            self.server.owner.answer(self)  # type: ignore[attr-defined]
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Any:
    with HostileServer() as s:
        yield s


def _timed(fn: Any) -> tuple[float, BaseException | None, Any]:
    t0 = time.monotonic()
    try:
        return time.monotonic() - t0, None, fn()
    except BaseException as exc:  # noqa: BLE001
        return time.monotonic() - t0, exc, None


# -- the request's own bounds


def test_a_trickling_server_is_cut_at_the_time_bound(server: HostileServer) -> None:
    took, exc, _ = _timed(lambda: fetch(f"{server.url}/trickle", HttpBounds(timeout_s=2.0)))
    assert isinstance(exc, BoundExceeded)
    assert str(exc) == f"{server.url}/trickle: gave no complete answer in 2 s (--http-timeout)"
    assert 1.9 <= took < 2.6


def test_a_body_past_the_size_bound_is_refused(server: HostileServer) -> None:
    bounds = HttpBounds(timeout_s=10.0, max_bytes=1024 * 1024)
    took, exc, _ = _timed(lambda: fetch(f"{server.url}/huge", bounds))
    assert isinstance(exc, BoundExceeded) and "larger than 1 MiB" in str(exc) and "--http-max-bytes" in str(exc)
    assert took < 2.0
    took, exc, _ = _timed(lambda: fetch(f"{server.url}/announced", bounds))  # refused on its announced length
    assert isinstance(exc, BoundExceeded) and "3,221,225,472 bytes announced" in str(exc)
    assert took < 1.0


def test_redirects_stay_within_the_origin(server: HostileServer) -> None:
    took, exc, _ = _timed(lambda: fetch(f"{server.url}/elsewhere", HttpBounds(timeout_s=5.0)))
    assert isinstance(exc, BoundExceeded) and "redirected to another origin" in str(exc)
    assert server.other_url.split("//")[1] in str(exc)
    assert not [r for r in server.requests if r.startswith(server.other_url.rsplit(":", 1)[1])]  # never asked
    assert json.loads(fetch(f"{server.url}/here"))["status"] == "playing"  # within the origin: followed


def test_a_redirect_loop_ends_after_five(server: HostileServer) -> None:
    with pytest.raises(BoundExceeded) as info:
        fetch(f"{server.url}/loop", HttpBounds(timeout_s=5.0))
    assert str(info.value) == f"{server.url}/loop: more than 5 redirects"
    assert server.requests.count(f"{server.url.rsplit(':', 1)[1]}/loop") == 6


def test_bounds_given_on_the_command_line_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    from kifu.cli import main
    from loaders.core.netfetch import parse_size

    assert parse_size("64MiB") == 64 * 1024**2 and parse_size("500KB") == 500_000 and parse_size("2048") == 2048
    for argv in (["--http-timeout", "0"], ["--http-max-bytes", "lots"], ["--mongo-timeout", "-1"],
                 ["--http-stall", "x"]):  # fmt: skip
        command = "watch" if argv[0] == "--http-stall" else "ingest"
        with pytest.raises(SystemExit) as exit_:
            main([command, "http://127.0.0.1:9/x", *argv])
        assert exit_.value.code == 2
        assert argv[0] in capsys.readouterr().err


def test_an_unreachable_server_is_an_error_not_a_bound() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nobody listens there
    with pytest.raises(SourceError) as info:
        fetch(f"http://127.0.0.1:{port}/x", HttpBounds(timeout_s=5.0))
    assert not isinstance(info.value, BoundExceeded) and "unreachable" in str(info.value)


# -- kifu watch's feed


def _follow(feed: KakomimasuFeed, limit_s: float) -> float:
    t0 = time.monotonic()
    while not feed.done and time.monotonic() - t0 < limit_s:
        feed.poll()
        time.sleep(0.02)
    return time.monotonic() - t0


def test_watch_feed_never_waits_on_the_server_and_gives_up_at_a_bound(server: HostileServer) -> None:
    feed = KakomimasuFeed(f"{server.url}/trickle", interval_s=0.05, bounds=HttpBounds(timeout_s=1.5))
    slowest = 0.0
    t0 = time.monotonic()
    while not feed.done and time.monotonic() - t0 < 5:
        t = time.monotonic()
        assert feed.poll() == []
        slowest = max(slowest, time.monotonic() - t)
    assert feed.done and feed.failed == f"{server.url}/trickle: gave no complete answer in 1.5 s (--http-timeout)"
    assert 1.4 <= time.monotonic() - t0 < 2.2
    assert slowest < 0.4  # a poll waits on the server a moment at most


def test_a_game_that_never_ends_is_followed_within_its_bounds(server: HostileServer) -> None:
    endless = KakomimasuFeed(f"{server.url}/endless", interval_s=0.05, stall_s=1.0)
    took = _follow(endless, 5)
    assert endless.failed is not None and endless.failed.endswith("has not changed for 1 s and has not ended (--http-stall)")
    assert 0.9 <= took < 1.6
    restless = KakomimasuFeed(f"{server.url}/restless", interval_s=0.05, stall_s=60, follow_s=1.5)
    took = _follow(restless, 5)
    assert restless.failed is not None and restless.failed.endswith("followed for 1.5 s and the game has not ended (--http-follow)")
    assert 1.4 <= took < 2.1


# -- the commands


def _kifu(*args: str) -> list[str]:
    return [sys.executable, "-m", "kifu.cli", *args]


def _stopped_by_sigterm(proc: subprocess.Popen[bytes], blocked: Any) -> tuple[int, float, str]:
    """Wait (≤ 30 s) until ``blocked()`` says the command waits on its source, then 0.5 s more, and SIGTERM it: its
    exit code, the seconds it took to end, its stderr (it is killed whatever happens)."""
    try:
        deadline = time.monotonic() + 30
        while not blocked():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""  # it ended: say why
            assert time.monotonic() < deadline, "the command never waited on its source"
            time.sleep(0.05)
        time.sleep(0.5)  # well inside the source's bound: it is still waiting
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return code, took, proc.stderr.read().decode() if proc.stderr else ""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def test_ingest_reports_each_bound_in_one_line_and_ingests_the_rest(server: HostileServer, tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    t0 = time.monotonic()
    r = subprocess.run(_kifu("ingest", f"{server.url}/trickle", f"{server.url}/huge", f"{server.url}/elsewhere",
                             str(CHASER_SAMPLE), "--db", str(db), "--no-progress", "--http-timeout", "2",
                             "--http-max-bytes", "1MiB", "--jobs", "1"),
                       capture_output=True, text=True, cwd=REPO, env=_env(), timeout=60)  # fmt: skip
    took = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stderr.splitlines() if line.startswith("kifu ingest: ")]
    assert said == [
        f"kifu ingest: {server.url}/trickle: gave no complete answer in 2 s (--http-timeout) — not ingested",
        f"kifu ingest: {server.url}/huge: the answer is larger than 1 MiB (--http-max-bytes); nothing of it is kept "
        "— not ingested",
        f"kifu ingest: {server.url}/elsewhere: redirected to another origin ({server.other_url}); "
        f"only redirects within http://127.0.0.1:{server.url.rsplit(':', 1)[1]} are followed — not ingested",
    ], r.stderr
    assert "Traceback" not in r.stderr
    assert took < 30  # the trickle's 2 s bound, the rest at once (plus the ingest of the sample)
    assert query(db, "select game, count(*) from matches group by game") == [("chaser", 1)]  # the file, nothing else


def test_ingest_with_only_failing_urls_says_so_and_makes_no_database(server: HostileServer, tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    r = subprocess.run(_kifu("ingest", f"{server.url}/elsewhere", "--db", str(db), "--no-progress"),
                       capture_output=True, text=True, cwd=REPO, env=_env(), timeout=60)  # fmt: skip
    assert r.returncode == 1
    assert r.stderr.splitlines()[-1] == "kifu ingest: nothing could be ingested; no database was made"
    assert not db.exists()


def test_watch_stuck_on_a_trickling_server_stops_on_sigterm_within_2_s(server: HostileServer, tmp_path: Path) -> None:
    proc = subprocess.Popen(_kifu("watch", f"{server.url}/trickle", "--db", str(tmp_path / "w.duckdb"),
                                  "--no-status", "--poll", "0.05"),
                            cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    code, took, err = _stopped_by_sigterm(proc, lambda: any(r.endswith("/trickle") for r in server.requests))
    assert took < 2.0, (took, err)
    assert code == 0 and "Traceback" not in err, err


def test_watch_gives_up_a_game_that_never_ends_and_says_so(server: HostileServer, tmp_path: Path) -> None:
    t0 = time.monotonic()
    r = subprocess.run(_kifu("watch", f"{server.url}/endless", "--db", str(tmp_path / "w.duckdb"), "--no-status",
                             "--poll", "0.05", "--http-stall", "1.5"),
                       capture_output=True, text=True, cwd=REPO, env=_env(), timeout=60)  # fmt: skip
    assert time.monotonic() - t0 < 20
    assert r.returncode == 1, r.stderr
    assert (f"kifu watch: {server.url}/endless: the game has not changed for 1.5 s and has not ended (--http-stall) "
            "— no longer followed") in r.stderr.splitlines()
    assert "Traceback" not in r.stderr
    # what the game showed while it was followed is stored, as the game stood
    assert query(tmp_path / "w.duckdb", "select count(*) from matches where game = 'kakomimasu'") == [(1,)]


# -- MongoDB


def test_mongo_client_gets_every_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    import pymongo

    from loaders.core.mongo import MongoSource

    made: dict[str, Any] = {}

    class Client:
        def __init__(self, uri: str, **options: Any) -> None:
            made.update(options)

    monkeypatch.setattr(pymongo, "MongoClient", Client)
    try:
        MongoSource("mongodb://localhost:1", timeout_ms=2500)._collection()
    except TypeError:
        pass  # the stand-in client has no databases: the options it was given are what is checked
    assert made == {"serverSelectionTimeoutMS": 2500, "connectTimeoutMS": 2500, "socketTimeoutMS": 2500}
    made.clear()
    try:
        MongoSource("mongodb://localhost:1/?socketTimeoutMS=900", timeout_ms=2500)._collection()
    except TypeError:
        pass
    assert made == {"serverSelectionTimeoutMS": 2500, "connectTimeoutMS": 2500}  # the URI's own bound is kept


def test_mongo_queries_carry_the_bound_and_a_timeout_is_one_line() -> None:
    import mongomock
    import pymongo.errors

    from loaders.core.mongo import MongoSource

    client = mongomock.MongoClient()
    client["d"]["activities"].insert_many([{"_id": i, "dateCreated": i} for i in range(3)])
    seen: list[Any] = []
    real_find = mongomock.collection.Collection.find

    def find(self: Any, *a: Any, **kw: Any) -> Any:
        seen.append(kw.get("max_time_ms"))
        return real_find(self, *a, **kw)

    src = MongoSource("mongodb://mongomock", "d", client=client, timeout_ms=1500)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mongomock.collection.Collection, "find", find)
        assert len(list(src.records())) == 3
        assert len(src.find({}, limit=2)) == 2
    assert seen == [1500, 1500]

    def slow() -> Any:
        raise pymongo.errors.ExecutionTimeout("operation exceeded time limit", 50)

    with pytest.raises(SourceError) as info:
        src._bounded(slow)
    assert str(info.value) == "MongoDB mongodb://mongomock: gave no complete answer in 1.5 s (--mongo-timeout)"

    def away() -> Any:
        raise pymongo.errors.ServerSelectionTimeoutError("no servers")

    with pytest.raises(SourceError) as info:
        src._bounded(away)
    assert "unreachable within 1.5 s (--mongo-timeout)" in str(info.value)


class HostileMongo:
    """A TCP server speaking just enough of MongoDB's wire protocol for pymongo to find it (``hello``,
    ``ping``), then answering every query (``find``, ``aggregate``…) one byte every ``every_s`` seconds —
    or never (``every_s`` None).  The commands it got are kept in :attr:`commands`."""

    def __init__(self, every_s: float | None = 0.5) -> None:
        import socket

        self.every_s = every_s
        self.stop = threading.Event()
        self.commands: list[dict[str, Any]] = []
        self.times: list[float] = []  # time.monotonic() of each command
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.uri = f"mongodb://127.0.0.1:{self.sock.getsockname()[1]}/?directConnection=true"
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> HostileMongo:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self._thread.join(2)
        self.sock.close()

    def _accept(self) -> None:
        import socket

        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, socket.timeout, OSError):
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: Any) -> None:
        import struct

        import bson

        def read(n: int) -> bytes:
            data = b""
            while len(data) < n:
                got = conn.recv(n - len(data))
                if not got:
                    raise ConnectionError
                data += got
            return data

        try:
            conn.settimeout(None)
            while not self.stop.is_set():
                length, request_id, _, op = struct.unpack("<iiii", read(16))
                body = read(length - 16)
                if op == 2004:  # OP_QUERY (the first hello): flags, collection name, skip, return, the command
                    name_end = body.index(b"\0", 4)
                    command = bson.decode(body[name_end + 9:name_end + 9 + struct.unpack("<i", body[name_end + 9:name_end + 13])[0]])
                else:  # OP_MSG: flags, then a section of kind 0 holding the command
                    size = struct.unpack("<i", body[5:9])[0]
                    command = bson.decode(body[5:5 + size])
                self.times.append(time.monotonic())
                self.commands.append(command)
                verb = next(iter(command)).lower()
                if verb in ("hello", "ismaster"):
                    doc = {"ismaster": True, "isWritablePrimary": True, "helloOk": True, "maxBsonObjectSize": 16777216,
                           "maxMessageSizeBytes": 48000000, "maxWriteBatchSize": 100000, "minWireVersion": 0,
                           "maxWireVersion": 21, "logicalSessionTimeoutMinutes": 30, "connectionId": 1, "ok": 1.0}  # fmt: skip
                    hostile = False
                else:
                    doc = {"ok": 1.0} if verb in ("ping", "endsessions", "buildinfo") else {
                        "cursor": {"id": 0, "ns": "d.activities", "firstBatch": []}, "ok": 1.0}  # fmt: skip
                    hostile = verb not in ("ping", "endsessions", "buildinfo")
                payload = bson.encode(doc)
                if op == 2004:  # OP_REPLY
                    reply = struct.pack("<iqii", 0, 0, 0, 1) + payload
                    message = struct.pack("<iiii", 16 + len(reply), 1, request_id, 1) + reply
                else:
                    reply = struct.pack("<I", 0) + b"\0" + payload
                    message = struct.pack("<iiii", 16 + len(reply), 1, request_id, 2013) + reply
                if not hostile:
                    conn.sendall(message)
                elif self.every_s is None:
                    self.stop.wait()
                else:
                    for i in range(len(message)):
                        if self.stop.wait(self.every_s):
                            return
                        conn.sendall(message[i:i + 1])
        except (ConnectionError, OSError, ValueError):
            pass
        finally:
            conn.close()


@pytest.mark.parametrize("every_s", [0.5, None], ids=["trickle", "silent"])
def test_real_pymongo_against_a_hostile_server_ends_within_the_bound(every_s: float | None) -> None:
    """pymongo itself (not mongomock) against a server that finds and handshakes, then trickles or keeps
    silent on the query: the whole operation ends at ``--mongo-timeout``, in one line, with maxTimeMS sent."""
    from loaders.core.mongo import MongoSource

    with HostileMongo(every_s) as server:
        src = MongoSource(server.uri, "d", timeout_ms=1000)
        t0 = time.monotonic()
        with pytest.raises(SourceError) as info:
            src.count()
        took = time.monotonic() - t0
        with pytest.raises(SourceError):
            src.find({}, limit=10)
        queries = [c for c in server.commands if next(iter(c)) in ("aggregate", "find")]
    assert str(info.value) == f"MongoDB {server.uri}: gave no complete answer in 1 s (--mongo-timeout)"
    assert 0.9 <= took < 2.0
    assert [next(iter(c)) for c in queries] == ["aggregate", "find"]
    assert all(0 < c["maxTimeMS"] <= 1000 for c in queries)  # the server too is told the bound


def test_watch_on_a_hostile_mongo_stops_on_sigterm_within_2_s(tmp_path: Path) -> None:
    with HostileMongo(0.5) as server:
        proc = subprocess.Popen(_kifu("watch", "--mongo-uri", server.uri, "--db", str(tmp_path / "w.duckdb"),
                                      "--no-status", "--poll", "0.05", "--mongo-timeout", "60"),
                                cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        code, took, err = _stopped_by_sigterm(proc, lambda: any(next(iter(c)) == "find" for c in server.commands))
    assert took < 2.0, (took, err)
    assert code == 0 and "Traceback" not in err, err


@pytest.mark.parametrize("source", ["http", "mongo"])
def test_ingest_waiting_on_a_trickling_source_stops_on_sigterm_within_2_s(source: str, server: HostileServer,
                                                                          tmp_path: Path) -> None:  # fmt: skip
    with HostileMongo(0.5) as mongo:
        what = [f"{server.url}/trickle"] if source == "http" else ["--mongo-uri", mongo.uri, "--mongo-timeout", "60"]
        asked = (lambda: any(r.endswith("/trickle") for r in server.requests)) if source == "http" else (
            lambda: any(next(iter(c)) == "aggregate" for c in mongo.commands))  # fmt: skip
        proc = subprocess.Popen(_kifu("ingest", *what, "--db", str(tmp_path / "k.duckdb"), "--no-progress"),
                                cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        code, took, err = _stopped_by_sigterm(proc, asked)
    assert took < 2.0, (took, err)
    assert code == 143 and err.strip().splitlines()[-1] == "kifu: interrupted; no database was made", err


# -- a resolver that never answers


@pytest.fixture
def hung_resolver(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``socket.getaddrinfo`` hanging until the test ends (no network is asked); yields the calls made."""
    import socket

    release = threading.Event()
    calls: list[Any] = []

    def getaddrinfo(host: Any, *a: Any, **kw: Any) -> Any:
        calls.append(host)
        release.wait(60)
        raise socket.gaierror(socket.EAI_AGAIN, "released")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield calls
    release.set()


def test_a_host_name_that_never_resolves_ends_the_request_at_its_bound(hung_resolver: list[Any]) -> None:
    from loaders.core.netfetch import Request

    first = Request("http://never.invalid/a", HttpBounds(timeout_s=1.0))
    took, exc, _ = _timed(first.wait)
    assert isinstance(exc, BoundExceeded)
    assert str(exc) == "http://never.invalid/a: gave no complete answer in 1 s (--http-timeout)"
    assert 0.9 <= took < 2.0
    first._thread.join(1.0)
    assert not first._thread.is_alive()  # the request's thread ended with it, only the lookup goes on
    second = Request("http://never.invalid/b", HttpBounds(timeout_s=0.5))
    assert isinstance(_timed(second.wait)[1], BoundExceeded)
    assert hung_resolver == ["never.invalid"]  # the lookup under way is shared, not started again


def test_ingest_waiting_on_a_resolver_stops_on_sigterm(tmp_path: Path) -> None:
    hang = ("import socket, sys, threading; socket.getaddrinfo = lambda *a, **k: "
            "(print('resolving', flush=True), threading.Event().wait()); "
            "from kifu.cli import main; sys.exit(main(sys.argv[1:]))")  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-c", hang, "ingest", "http://never.invalid/x", "--http-timeout", "60",
                             "--db", str(tmp_path / "k.duckdb"), "--no-progress"],
                            cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    assert proc.stdout is not None
    lookup = lambda: proc.stdout.readline() == b"resolving\n"  # noqa: E731 - the lookup is under way
    code, took, err = _stopped_by_sigterm(proc, lookup)
    assert took < 2.0, (took, err)
    assert code == 143 and err.strip().splitlines() == ["kifu: interrupted; no database was made"], err
