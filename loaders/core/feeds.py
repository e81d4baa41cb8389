"""Sources that grow: what ``kifu watch`` follows, polled for what they added since the last look.

Every feed answers :meth:`poll` with a list of items, in the order they happened:

:class:`Lines`
    new records of a stream of JSON lines (a dealer log file being appended to, the dealer's
    MongoDB collection); each record exactly once, a line caught half-written waits for its end.
:class:`Restart`
    the stream started over (the file was truncated or replaced: the dealer kit restarted): what
    came before it is complete, what follows is a new log.
:class:`Document`
    a whole document to ingest as ``kifu ingest`` would (a CHaser log that settled, a Kakomimasu
    game as its server shows it now, a file that is not JSON lines); a document read again
    replaces what it gave before when it goes further (the game loaders' rule).

:meth:`rewind` makes a feed give everything again from its beginning (the watcher does so when
it restarts or when someone else changed the database under it): records already stored are
recognised and skipped by the loaders, so reading twice never stores twice.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from loaders.core.sources import (
    ISSUE_PREFIX,
    MAX_LINE_BYTES,
    FileSource,
    Record,
    SourceError,
    _json_reason,
    too_long,
)  # fmt: skip
from common.jsontext import parse_json

#: How long a file must stay unchanged before a CHaser log or a non-JSON-lines file is read whole,
#: and before a last line without its newline is taken as complete.
SETTLE_S = 2.0
#: Bytes read from one file per poll at the most (a long backlog is taken over several batches).
READ_CHUNK = 8 * 1024 * 1024
#: Names of the files a watched folder holds that Kifu reads (dealer logs, game JSON, CHaser logs).
WATCHED_SUFFIXES = (".log", ".jsonl", ".json", ".ndjson", ".txt", ".gz", ".map")


@dataclass
class Lines:
    key: str  # the stream (its records go to one assembler)
    name: str  # the source name stored as lineage
    records: list[Record]
    logged_ms: int | None = None  # the newest record's own time (dateCreated), for the lag shown


@dataclass
class Restart:
    key: str


@dataclass
class Document:
    key: str
    source: Any  # a loaders.pipeline Source (a FileSource) read whole
    final: bool = True  # False: a game still being played (the document will grow)


def _logged_ms(doc: Any) -> int | None:
    if type(doc) is not dict:
        return None
    v = doc.get("dateCreated")
    if isinstance(v, dict):
        v = v.get("$date")
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str):
        import datetime as dt

        try:
            return int(dt.datetime.fromisoformat(v.replace("Z", "+00:00")).timestamp() * 1000)
        except ValueError:
            return None
    return None


def line_record(lineno: int, line: bytes) -> Record | None:
    """A complete line as :class:`~loaders.core.sources.FileSource` reads it (None: a blank line)."""
    length = len(line)
    if length > MAX_LINE_BYTES:
        return Record(lineno, line[:ISSUE_PREFIX], error=too_long("line", length), length=length)
    if line.endswith(b"\r"):
        line = line[:-1]
    if not line.strip():
        return None
    try:
        return Record(lineno, line, parse_json(line))
    except orjson.JSONDecodeError as exc:
        return Record(lineno, line, error=f"invalid JSON: {_json_reason(exc, line)}")
    except RecursionError:
        return Record(lineno, line, error="line nested too deeply")


class FileTail:
    """A JSON-lines log being appended to: every complete line once, in order.

    A last line without its newline is held until the newline comes, or — when it is valid JSON and
    the file has not changed for :data:`SETTLE_S` — taken as the log's last line (as ``kifu ingest``
    would read it).  A file truncated, replaced (another file under the name) or rewritten from its
    start gives :class:`Restart` and is read again from its first line.
    """

    def __init__(self, path: str | Path, *, settle_s: float = SETTLE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = Path(path)
        self.name = str(path)
        self.key = f"file:{self.path}"
        self.settle_s = settle_s
        self.clock = clock
        self._fh: Any = None
        self._ino: tuple[int, int] | None = None
        self._head = b""
        self.offset = 0  # bytes of complete lines read (and of a last line taken whole)
        self.lineno = 0  # the number of the last line read
        self._carry = b""
        self._carry_since = 0.0
        self._taken_tail = 0  # bytes of an unterminated last line already taken as complete
        self.size = 0
        self.bytes_done = 0

    def rewind(self) -> None:
        self._close()
        self.offset = self.lineno = self._taken_tail = 0
        self._carry = b""
        self._head = b""

    def close(self) -> None:
        self._close()

    def _close(self) -> None:
        if self._fh is not None:
            self._fh.close()
        self._fh, self._ino = None, None

    def behind(self) -> int:
        """Bytes written to the file that are not read yet."""
        try:
            return max(0, self.path.stat().st_size - self.offset - len(self._carry))
        except OSError:
            return 0

    def poll(self) -> list[Any]:
        out: list[Any] = []
        try:
            st = self.path.stat()
        except OSError:
            return out  # gone for now (being replaced): what was read stays read
        ino = (st.st_dev, st.st_ino)
        if self._fh is not None and ino != self._ino:
            out += self._read(final_of_old=True)  # lines appended to the old file before it was replaced
            self._restart(out)
        elif self._fh is not None and (st.st_size < self.offset + len(self._carry) or not self._same_head()):
            self._restart(out)
        if self._fh is None:
            try:
                self._fh = open(self.path, "rb")  # noqa: SIM115 - kept open while following
            except OSError as exc:
                raise SourceError(f"{self.path}: cannot open ({exc.strerror or exc})") from exc
            self._ino = ino
            self._fh.seek(self.offset + len(self._carry))
        out += self._read()
        return out

    def _restart(self, out: list[Any]) -> None:
        self._close()
        self.offset = self.lineno = self._taken_tail = 0
        self._carry = b""
        self._head = b""
        out.append(Restart(self.key))

    def _same_head(self) -> bool:
        """The file still begins as it did (not rewritten from the start with as many bytes or more)."""
        if not self._head:
            return True
        try:
            with open(self.path, "rb") as f:
                return f.read(len(self._head)) == self._head
        except OSError:
            return True

    def _read(self, final_of_old: bool = False) -> list[Any]:
        assert self._fh is not None
        data = self._fh.read(READ_CHUNK)
        now = self.clock()
        if data:
            self._carry_since = now
        buf = self._carry + data
        if len(self._head) < 64:
            self._head = os.pread(self._fh.fileno(), 64, 0)
        cut = buf.rfind(b"\n")
        records: list[Record] = []
        if cut >= 0:
            lines, self._carry = buf[:cut].split(b"\n"), buf[cut + 1:]
            first = 0
            if self._taken_tail:  # the rest of a last line taken whole earlier: that line is done
                tail_rest = lines[0]
                self.offset += len(tail_rest) + 1
                self._taken_tail = 0
                first = 1
            for line in lines[first:]:
                self.lineno += 1
                self.offset += len(line) + 1
                rec = line_record(self.lineno, line)
                if rec is not None:
                    records.append(rec)
        else:
            self._carry = buf
        if self._carry and not self._taken_tail and (final_of_old or now - self._carry_since >= self.settle_s):
            rec = line_record(self.lineno + 1, self._carry) if len(self._carry) <= MAX_LINE_BYTES else None
            if rec is not None and rec.error is None:  # a complete JSON record that no newline followed
                self.lineno += 1
                self.offset += len(self._carry)
                self._taken_tail = len(self._carry)
                self._carry = b""
                records.append(rec)
        if not records:
            return []
        logged = None
        for rec in reversed(records):
            logged = _logged_ms(rec.doc)
            if logged is not None:
                break
        return [Lines(self.key, self.name, records, logged)]


def looks_like_json_lines(path: Path) -> bool | None:
    """True: a JSON-lines file (its first line is one JSON object); False: something else (read whole);
    None: too little written yet to say."""
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return None
    if head[:2] == b"\x1f\x8b":
        return False
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text:
        return None
    if text[:1] != b"{":
        return False
    nl = text.find(b"\n")
    if nl < 0:  # one line so far: a whole JSON document written without a newline (a game server's file), or the
        # first line of a log still being written (a JSON-lines writer ends each line: it is not whole yet)
        if len(head) >= 65536:
            return False
        try:
            return False if isinstance(parse_json(text), dict) else None
        except (orjson.JSONDecodeError, RecursionError):
            return None
    try:
        return isinstance(parse_json(text[:nl]), dict)
    except (orjson.JSONDecodeError, RecursionError):
        return False  # a pretty-printed JSON document


@dataclass
class _Settled:
    stamp: tuple[int, int, int] | None = None  # (size, mtime_ns, inode) last seen
    since: float = 0.0
    read: tuple[int, int, int] | None = None  # the stamp last read whole


class WholeFile:
    """A file read whole once it stops changing (a CHaser log, a Kakomimasu game file, a gzip log),
    and again whenever it changed and settled again."""

    def __init__(self, path: Path, *, settle_s: float = SETTLE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self.key = f"whole:{path}"
        self.settle_s = settle_s
        self.clock = clock
        self._s = _Settled()

    def rewind(self) -> None:
        self._s.read = None

    def close(self) -> None:
        pass

    def behind(self) -> int:
        return 0 if self._s.read == self._s.stamp else 1

    def poll(self) -> list[Any]:
        try:
            st = self.path.stat()
        except OSError:
            return []
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        now = self.clock()
        if stamp != self._s.stamp:
            self._s.stamp, self._s.since = stamp, now
            return []
        if stamp == self._s.read or now - self._s.since < self.settle_s or not st.st_size:
            return []
        self._s.read = stamp
        try:
            return [Document(self.key, FileSource(self.path))]
        except SourceError:
            return []


class Folder:
    """A folder the dealer or a game server writes logs into: each file that appears is followed — a
    JSON-lines log as it grows (:class:`FileTail`), anything else once it settles (:class:`WholeFile`)."""

    def __init__(self, path: str | Path, *, settle_s: float = SETTLE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = Path(path)
        self.key = f"dir:{self.path}"
        self.settle_s = settle_s
        self.clock = clock
        self.files: dict[Path, Any] = {}
        self._undecided: set[Path] = set()
        #: Files of the folder that cannot be read (a symlink loop, no permission), each told once
        #: (:meth:`take_notes`) and shown in the status line (``problem``) while they cannot; the rest goes on.
        self.problem: str | None = None
        self._unreadable: dict[Path, str] = {}
        self._notes: list[str] = []

    def rewind(self) -> None:
        for f in self.files.values():
            f.rewind()

    def close(self) -> None:
        for f in self.files.values():
            f.close()

    def behind(self) -> int:
        return sum(f.behind() for f in self.files.values())

    def _scan(self) -> None:
        try:
            names = sorted(os.scandir(self.path), key=lambda e: e.name)
        except OSError:
            return
        for entry in names:
            p = Path(entry.path)
            if p in self.files or entry.name.startswith(".") or not entry.name.lower().endswith(WATCHED_SUFFIXES):
                continue
            try:
                if not entry.is_file():
                    continue
                os.close(os.open(p, os.O_RDONLY | os.O_NONBLOCK))
            except OSError as exc:  # a symlink loop, no permission: this file is not read, the others are
                self._cannot(p, f"{p}: cannot open ({exc.strerror or exc}) — not read")
                continue
            self._unreadable.pop(p, None)
            kind = looks_like_json_lines(p)
            if kind is None:
                continue  # nothing to tell by yet: looked at again next time
            self.files[p] = (FileTail(p, settle_s=self.settle_s, clock=self.clock) if kind
                             else WholeFile(p, settle_s=self.settle_s, clock=self.clock))  # fmt: skip

    def poll(self) -> list[Any]:
        self._scan()
        out: list[Any] = []
        for p, f in self.files.items():
            try:
                out += f.poll()
            except SourceError as exc:  # e.g. its permission taken away: asked again at the next poll
                self._cannot(p, f"{exc} — not read")
            else:
                self._unreadable.pop(p, None)
        self.problem = next(reversed(self._unreadable.values()), None)
        return out

    def _cannot(self, path: Path, why: str) -> None:
        if path not in self._unreadable:
            self._notes.append(why)
        self._unreadable[path] = why

    def take_notes(self) -> list[str]:
        """The lines to tell once (a file that cannot be read), taken."""
        notes, self._notes = self._notes, []
        return notes


def follow_path(path: str | Path, *, settle_s: float = SETTLE_S) -> Any:
    """The feed for a path given to ``kifu watch``: a folder, a JSON-lines log, or a file read whole."""
    p = Path(path)
    if p.is_dir():
        return Folder(p, settle_s=settle_s)
    if not p.exists() and not p.parent.is_dir():
        raise SourceError(f"{path}: no such file or folder")
    kind = looks_like_json_lines(p) if p.exists() else True
    return FileTail(p, settle_s=settle_s) if kind in (True, None) else WholeFile(p, settle_s=settle_s)


#: How long a poll waits for a network source's answer before it lets the watcher go on (the answer is
#: taken at a later poll): the watcher's loop, and its Ctrl-C and SIGTERM, never wait longer on a server.
NET_WAIT_S = 0.25


class _Job:
    """``fn()`` in a thread of its own; :meth:`result` answers without waiting (None: not done yet)."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        import threading

        self._fn = fn
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        threading.Thread(target=self._run, name="kifu-source", daemon=True).start()

    def _run(self) -> None:
        try:
            self._value = self._fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the poller
            self._error = exc
        finally:
            self._done.set()

    def settle(self, wait_s: float) -> bool:
        return self._done.wait(wait_s)

    def result(self) -> tuple[bool, Any]:
        if not self._done.is_set():
            return False, None
        if self._error is not None:
            raise self._error
        return True, self._value


class MongoFeed:
    """New ``activities`` documents of the dealer's MongoDB, by polling for ``_id`` beyond the last one
    seen (the contest kit's server is standalone: no change streams).  While the server is away the
    feed says so (``problem``) and tries again at every poll.

    Each query runs in a thread of its own, bounded by the source's timeout (``--mongo-timeout``); a poll
    waits for it at most :data:`NET_WAIT_S` and takes its answer at a later poll otherwise, so the watcher
    never hangs on the server."""

    def __init__(self, source: Any, *, batch: int = 5000) -> None:
        self.source = source  # a loaders.core.mongo.MongoSource (uri, database, collection, filter, client)
        self.key = f"mongo:{source.name}"
        self.name = source.name
        self.batch = batch
        self.last_id: Any = None
        self.position = 0
        self.problem: str | None = None
        self._job: _Job | None = None

    def rewind(self) -> None:
        self.last_id, self.position = None, 0
        self._job = None  # an answer under way is for the old position: dropped

    def close(self) -> None:
        self._job = None

    def behind(self) -> int:
        return 1 if self._job is not None else 0  # a query under way: its answer is still to be read

    def poll(self) -> list[Any]:
        from bson import json_util

        if self._job is None:
            query = dict(self.source.query)
            if self.last_id is not None:
                query["_id"] = {"$gt": self.last_id}
            self._job = _Job(lambda: self.source.find(query, sort=[("_id", 1)], limit=self.batch))
        self._job.settle(NET_WAIT_S)
        try:
            done, docs = self._job.result()
            if not done:
                return []  # under way: taken at a later poll
            self._job = None
            self.problem = None
        except SourceError as exc:
            self._job = None
            self.problem = str(exc)
            return []
        except Exception as exc:  # noqa: BLE001 - pymongo's errors (server away, timeouts): tried again
            self._job = None
            self.problem = f"MongoDB {self.source.name} unreachable ({type(exc).__name__}) — trying again"
            return []
        if not docs:
            return []
        self.last_id = docs[-1]["_id"]
        docs.sort(key=lambda d: (_sort_time(d.get("dateCreated")), str(d.get("_id"))))
        records = []
        for doc in docs:
            self.position += 1
            try:
                raw = json_util.dumps(doc, json_options=json_util.RELAXED_JSON_OPTIONS)
            except Exception as exc:  # noqa: BLE001
                records.append(Record(self.position, repr(doc)[:65536], error=f"unserialisable document: {exc}"))
                continue
            records.append(Record(self.position, raw, doc))
        last = docs[-1].get("dateCreated")
        logged = int(last.timestamp() * 1000) if hasattr(last, "timestamp") else _logged_ms({"dateCreated": last})
        return [Lines(self.key, self.name, records, logged)]


def _sort_time(v: Any) -> float:
    if hasattr(v, "timestamp"):
        return float(v.timestamp())
    ms = _logged_ms({"dateCreated": v})
    return ms / 1000 if ms is not None else 0.0


class BytesSource(FileSource):
    """A document held in memory (an HTTP response) read as :class:`FileSource` reads a file."""

    def __init__(self, name: str, data: bytes) -> None:
        self.path = Path(name)
        self.name = name
        self.size = len(data)
        self.data = data
        self.bytes_done = 0
        self.progress = None

    def describe(self) -> dict[str, Any]:
        return {"kind": "http", "url": self.name, "bytes": self.size}

    def _open(self) -> tuple[Any, Any]:
        raw = io.BufferedReader(io.BytesIO(self.data))  # type: ignore[arg-type]
        return raw, raw


def kakomimasu_url(target: str, api: str | None = None) -> str:
    """The match resource of a Kakomimasu server: a URL as given, or a game id on ``api`` (its base URL)."""
    if target.startswith(("http://", "https://")):
        return target
    if not api:
        raise SourceError(f"{target}: a Kakomimasu game id needs --kakomimasu-api URL (the server's address)")
    return f"{api.rstrip('/')}/v1/matches/{target}"


def fetch(url: str, bounds: Any = None, stopped: Callable[[], bool] = lambda: False) -> bytes:
    """GET ``url`` (JSON) within ``bounds`` (:class:`loaders.core.netfetch.HttpBounds`: the whole request's
    time, the answer's size, redirects within the origin); SourceError with the status, the network's reason
    or the bound that ended it."""
    from loaders.core.netfetch import HttpBounds
    from loaders.core.netfetch import fetch as bounded_fetch

    return bounded_fetch(url, bounds or HttpBounds(), stopped)


#: How long a Kakomimasu game not ended may stay unchanged (its server answering the same, or not at
#: all) before ``kifu watch`` stops following it (``--http-stall``), and how long it is followed at most
#: (``--http-follow``).  A game of the official server lasts minutes.
HTTP_STALL_S = 120.0
HTTP_FOLLOW_S = 3 * 3600.0


@dataclass
class KakomimasuFeed:
    """A Kakomimasu game on its server, polled (``GET /v1/matches/{id}``) while it is played; done once
    the server says it ended.

    Polling never waits on the server: each request runs in a thread of its own
    (:class:`loaders.core.netfetch.Request`, bounded in time and size) and :meth:`poll` only looks whether
    it ended.  A server that cannot be reached or answers an error is asked again (``problem`` says why);
    a request ended by a bound, a game unchanged for ``stall_s`` or followed for ``follow_s`` without
    ending, gives the feed up: ``failed`` holds the one line that says why, ``done`` is set, and what the
    unfinished request read is dropped."""

    url: str
    interval_s: float = 1.0
    clock: Callable[[], float] = time.monotonic
    bounds: Any = None  # loaders.core.netfetch.HttpBounds (None: the defaults)
    stall_s: float = HTTP_STALL_S
    follow_s: float = HTTP_FOLLOW_S
    key: str = ""
    done: bool = False
    problem: str | None = None
    failed: str | None = None
    _last: bytes | None = None
    _next: float = 0.0
    _sent: list[bytes] = field(default_factory=list)
    _request: Any = None
    _started: float | None = None
    _changed: float | None = None

    def __post_init__(self) -> None:
        self.key = f"http:{self.url}"

    def rewind(self) -> None:
        self._last = None
        if self.failed is None:
            self.done = False

    def close(self) -> None:
        if self._request is not None:
            self._request.cancel()
            self._request = None

    def behind(self) -> int:
        return 0

    def _give_up(self, why: str) -> list[Any]:
        self.close()
        self.failed = self.problem = why
        self.done = True
        return []

    def poll(self) -> list[Any]:
        from loaders.core.netfetch import BoundExceeded, HttpBounds, Request

        now = self.clock()
        if self.done:
            return []
        if self._started is None:
            self._started = self._changed = now
        if now - self._started >= self.follow_s:
            return self._give_up(f"{self.url}: followed for {self.follow_s:g} s and the game has not ended "
                                 "(--http-follow)")  # fmt: skip
        if now - (self._changed or now) >= self.stall_s:
            return self._give_up(f"{self.url}: the game has not changed for {self.stall_s:g} s and has not ended "
                                 "(--http-stall)")  # fmt: skip
        if self._request is None:
            if now < self._next:
                return []
            self._next = now + self.interval_s
            try:
                self._request = Request(self.url, self.bounds or HttpBounds())
            except SourceError as exc:
                return self._give_up(str(exc))
        self._request.settle(NET_WAIT_S)
        try:
            data = self._request.result()
        except BoundExceeded as exc:
            self._request = None
            return self._give_up(str(exc))
        except SourceError as exc:  # away, or an error status: asked again at the next interval
            self._request = None
            self.problem = str(exc)
            return []
        if data is None:
            return []  # under way
        self._request = None
        self.problem = None
        if data == self._last:
            return []
        self._last = data
        self._changed = now
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError:
            doc = None
        ended = isinstance(doc, dict) and (doc.get("status") == "ended" or bool(doc.get("ended")))
        self.done = ended
        return [Document(self.key, BytesSource(self.url, data), final=ended)]


def iter_items(feeds: list[Any]) -> Iterator[Any]:
    for f in feeds:
        yield from f.poll()
