"""Re-play a recorded game log at its recorded pace × a speed factor, for tests, demos and benchmarks.

A recorded match becomes a live one again, so that ``kifu watch`` (which follows a growing file,
a MongoDB collection or a Kakomimasu server's HTTP API) can be tried, tested and measured on it:

* :func:`replay_to_file` appends the lines of an ALGORI dealer log (plain or gzip) to a file at
  the pace their ``dateCreated`` recorded, each line in one ``os.write`` on an ``O_APPEND``
  descriptor (a follower never sees more than one half-written line, and only while it is being
  written);
* :func:`replay_to_mongo` inserts the same lines as documents into a MongoDB collection (a real
  ``pymongo`` collection or a ``mongomock`` one), ``dateCreated`` as a BSON date, as the dealer
  writes them;
* :class:`KakomimasuReplayServer` serves Kakomimasu API v1 games turn by turn over HTTP
  (``GET /v1/matches/<id>``), as the official server shows a game while it is played.

The pace (:func:`schedule`): every line is written the recorded gap after the line before it,
divided by the speed; a line without a time (or with a time earlier than one already seen) follows
at once, and a gap longer than ``max_gap_s`` seconds of recorded time (the dealer idling between
matches) is cut to ``max_gap_s``.  ``speed`` 0 (or less) or ``math.inf`` writes as fast as possible.

Command line (``kifu replay-log``, registered in ``kifu/cli.py`` by calling :func:`main`)::

    kifu replay-log FILE --to OUT [--speed X|max] [--max-gap S] [--append] [--split-lines] [--no-progress]
    kifu replay-log FILE --mongo-uri URI [--database D] [--collection C] [--new-ids]
                         [--speed X|max] [--max-gap S] [--no-progress]

    FILE             the recorded log: JSON lines, plain or gzip (the dealer's download file, or
                     mongoexport output of the ``activities`` collection)
    --to OUT         append the lines to this file (created if missing; emptied first unless --append)
    --mongo-uri URI  insert the lines as documents into MongoDB instead (--database, default
                     uno-local; --collection, default activities — the dealer's own names)
    --speed X        X times the recorded pace (default 1); ``max`` (or 0, or inf): as fast as possible
    --max-gap S      longest wait between two lines, in seconds of recorded time (default 5)
    --append         keep what OUT holds and append after it
    --split-lines    write each line in two halves a moment apart (to test a follower's handling of
                     a half-written line)
    --new-ids        MongoDB: drop each document's recorded ``_id`` (the server gives a new one), so
                     the same log can be inserted twice into one collection
    --no-progress    no progress bar (it goes to stderr)

It prints ``wrote N lines to OUT in S s (speed ×X)`` (or ``inserted N documents into D.C …``) at
the end.  Exit status: 0 done; 1 the file or the database could not be read or written; 2 a bad
argument (a missing FILE, both or neither of --to and --mongo-uri, a negative speed, OUT being
FILE…); 130 after Ctrl-C, with a line saying how many lines were written (all of them complete).

Examples::

    kifu replay-log tests/fixtures/algori-2023/misbehave_bind2_40.download.jsonl.gz --to live.log --speed 10 &
    kifu watch live.log --db live.duckdb
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import math
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

import orjson

__all__ = [
    "DEFAULT_MAX_GAP_S",
    "KakomimasuReplayServer",
    "ReplayInterrupted",
    "ServedRequest",
    "iter_lines",
    "line_time_ms",
    "main",
    "mongo_document",
    "replay_to_file",
    "replay_to_mongo",
    "schedule",
]

GZIP_MAGIC = b"\x1f\x8b"
#: Longest wait between two lines, in seconds of recorded time (before dividing by the speed).
DEFAULT_MAX_GAP_S = 5.0
#: The pause between the two halves of a line written with ``split_lines``.
SPLIT_PAUSE_S = 0.02
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MS = dt.timedelta(milliseconds=1)

OnLine = Callable[[int, bytes, float], Any]


class ReplayInterrupted(KeyboardInterrupt):
    """Ctrl-C (KeyboardInterrupt) ended a replay: ``lines`` lines (or documents) were written, all of
    them whole; ``seconds`` since the first one."""

    def __init__(self, lines: int, seconds: float) -> None:
        super().__init__(f"interrupted after {lines} lines")
        self.lines = lines
        self.seconds = seconds


# ---- reading the recorded log -----------------------------------------------------------------


def iter_lines(path: str | os.PathLike[str]) -> Iterator[bytes]:
    """The lines of a log file, plain or gzip (told by the magic bytes 1f 8b, not by the name).

    Each line comes back exactly as stored, without its final ``b"\\n"`` only (a ``b"\\r"`` before
    it stays, blank lines are kept, a last line without a newline comes as it is): writing every
    line followed by ``b"\\n"`` reproduces the (decompressed) file, with a final newline added
    where it was missing."""
    raw = open(path, "rb")  # noqa: SIM115 - closed by the generator
    try:
        magic = raw.read(2)
        raw.seek(0)
    except BaseException:
        raw.close()
        raise
    return _Lines(raw, magic == GZIP_MAGIC)


class _Lines:
    """The iterator :func:`iter_lines` returns; ``close()`` closes the file (also before the first line)."""

    def __init__(self, raw: Any, gzipped: bool) -> None:
        self._raw = raw
        self._fh: Any = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> bytes:
        if self._raw.closed:
            raise StopIteration
        line = self._fh.readline()
        if not line:
            self.close()
            raise StopIteration
        return line[:-1] if line.endswith(b"\n") else line

    def close(self) -> None:
        if self._fh is not self._raw:
            self._fh.close()
        self._raw.close()

    def __enter__(self) -> _Lines:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def line_time_ms(line: bytes) -> int | None:
    """The recorded time of a dealer log line, in epoch milliseconds: its ``dateCreated`` — an
    integer of epoch milliseconds, an ISO-8601 string (``"2023-09-14T05:11:02.123Z"``; without a
    zone: UTC) or MongoDB Extended JSON ``{"$date": …}`` (an ISO string, epoch milliseconds or
    ``{"$numberLong": "…"}``).  None when the line has none or cannot be read (never raises)."""
    if b"dateCreated" not in line:
        return None
    try:
        doc = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict):
        return None
    return _time_ms(doc.get("dateCreated"))


def _time_ms(v: Any, nested: bool = False) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return round(v) if math.isfinite(v) else None
    if isinstance(v, str):
        return _text_ms(v)
    if isinstance(v, dict) and len(v) == 1 and not nested:
        if "$date" in v:
            inner = v["$date"]
            if isinstance(inner, dict):
                if len(inner) == 1 and isinstance(inner.get("$numberLong"), str):
                    return _text_ms(inner["$numberLong"], iso=False)
                return None
            return _time_ms(inner, nested=True)
    return None


def _text_ms(text: str, iso: bool = True) -> int | None:
    s = text.strip()
    if re.fullmatch(r"[+-]?\d{1,19}", s):
        return int(s)
    if not iso:
        return None
    try:
        when = dt.datetime.fromisoformat(s)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return (when - _EPOCH) // _MS


def _as_datetime(v: Any) -> dt.datetime | None:
    """An int epoch-ms or ISO ``dateCreated`` as a timezone-aware UTC datetime (None: neither)."""
    if isinstance(v, dt.datetime):
        return v
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        return None
    ms = _time_ms(v)
    if ms is None:
        return None
    try:
        return _EPOCH + dt.timedelta(milliseconds=ms)
    except OverflowError:
        return None


# ---- the pace ---------------------------------------------------------------------------------


def _fast(speed: float) -> bool:
    if isinstance(speed, bool) or not isinstance(speed, int | float) or math.isnan(speed):
        raise ValueError(f"speed must be a number (got {speed!r})")
    return speed <= 0 or math.isinf(speed)


class _Pacer:
    """:func:`schedule`, one line at a time (the replays stream the log)."""

    def __init__(self, speed: float, max_gap_s: float | None = DEFAULT_MAX_GAP_S) -> None:
        self.fast = _fast(speed)
        self.speed = float(speed)
        if max_gap_s is not None and (math.isnan(max_gap_s) or max_gap_s < 0):
            raise ValueError(f"max_gap_s must be 0 or more (got {max_gap_s!r})")
        self.cap_ms = None if max_gap_s is None or math.isinf(max_gap_s) else max_gap_s * 1000.0
        self.high: int | None = None  # the latest recorded time seen
        self.recorded_ms = 0.0  # recorded time elapsed so far, gaps capped

    def next(self, t: int | None) -> float:
        """Seconds after the start at which the line with recorded time ``t`` is due."""
        if t is not None:
            if self.high is not None and t > self.high:
                gap = float(t - self.high)
                self.recorded_ms += gap if self.cap_ms is None else min(gap, self.cap_ms)
            if self.high is None or t > self.high:
                self.high = t
        return 0.0 if self.fast else self.recorded_ms / 1000.0 / self.speed


def schedule(times: list[int | None], speed: float,
             max_gap_s: float | None = DEFAULT_MAX_GAP_S) -> list[float]:  # fmt: skip
    """Seconds after the start at which each line is to be written.

    The gap between two lines is their recorded gap (epoch ms) divided by ``speed``; a line
    without a time, or with a time going backwards (earlier than the latest seen so far), gets gap
    0, and the next gap is measured from the latest time seen; a gap longer than ``max_gap_s``
    seconds of recorded time (None: no cap) is cut to ``max_gap_s`` before dividing.  ``speed`` <= 0
    or ``math.inf``: all zeros (as fast as possible).  Raises ValueError for a NaN speed or a
    negative ``max_gap_s``."""
    pacer = _Pacer(speed, max_gap_s)
    return [pacer.next(t) for t in times]


def _wait_until(due: float, clock: Callable[[], float], sleep: Callable[[float], Any]) -> None:
    while True:
        left = due - clock()
        if left <= 0:
            return
        sleep(left)


# ---- replay into a file -----------------------------------------------------------------------


@dataclass
class _FileState:
    """What is in the output file: ``base`` bytes before the replay, then ``done`` bytes of ``lines``
    whole lines, then (while ``current`` is set) part of ``current``."""

    fd: int
    base: int | None  # None: not a seekable file
    done: int = 0
    lines: int = 0
    current: bytes | None = None

    def complete(self) -> None:
        """After an interrupt: finish the line being written, if any (the file's size says how much of
        it is there; the replay is the file's only writer)."""
        data = self.current
        if data is None or self.base is None:
            return
        while True:
            try:
                there = os.lseek(self.fd, 0, os.SEEK_END) - self.base - self.done
                if there > 0:
                    if there < len(data):
                        os.write(self.fd, data[there:])
                        continue
                    self.done, self.lines, self.current = self.done + len(data), self.lines + 1, None
                return
            except KeyboardInterrupt:  # a second Ctrl-C: the line is finished all the same
                continue


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def replay_to_file(
    src: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    speed: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Any] = time.sleep,
    on_line: OnLine | None = None,
    append: bool = False,
    max_gap_s: float | None = DEFAULT_MAX_GAP_S,
    split_lines: bool = False,
    split_pause_s: float = SPLIT_PAUSE_S,
    wallclock: Callable[[], float] = time.time,
) -> int:
    """Write the lines of ``src`` (see :func:`iter_lines`) to ``out`` at the :func:`schedule`; the
    number of lines written.

    ``out`` is created if missing and emptied first unless ``append``.  Each line goes out with its
    ``b"\\n"`` in one ``os.write`` on an ``O_APPEND`` descriptor (no buffering: a follower sees it at
    once); ``split_lines`` writes it in two halves with ``sleep(split_pause_s)`` between them, so that
    a follower can be caught reading half a line.  ``on_line(index, line, written_at)`` is called
    right after each line is written (``index``: 0-based line number in ``src``; ``written_at``:
    ``wallclock()``, i.e. ``time.time()``, comparable across processes).  ``clock`` and ``sleep``
    pace the replay (inject fakes in tests).

    On Ctrl-C (KeyboardInterrupt, also inside a line's write) the line being written is finished and
    :class:`ReplayInterrupted` (a KeyboardInterrupt) is raised with the number of lines written: the
    file then holds only whole lines."""
    pacer = _Pacer(speed, max_gap_s)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
    if not append:
        flags |= os.O_TRUNC
    lines = iter_lines(src)
    fd = os.open(out, flags, 0o644)
    try:
        base: int | None = os.lseek(fd, 0, os.SEEK_END)
    except OSError:  # a pipe: nothing to finish a line by after Ctrl-C
        base = None
    state = _FileState(fd, base)
    start: float | None = None
    try:
        try:
            for index, line in enumerate(lines):
                due = pacer.next(line_time_ms(line))
                if start is None:
                    start = clock()
                _wait_until(start + due, clock, sleep)
                data = line + b"\n"
                state.current = data
                if split_lines and len(data) > 1:
                    half = len(data) // 2
                    _write_all(fd, data[:half])
                    sleep(split_pause_s)
                    _write_all(fd, data[half:])
                else:
                    _write_all(fd, data)
                state.done, state.lines, state.current = state.done + len(data), state.lines + 1, None
                if on_line is not None:
                    on_line(index, line, wallclock())
        except KeyboardInterrupt:
            state.complete()
            raise ReplayInterrupted(state.lines, 0.0 if start is None else clock() - start) from None
    finally:
        lines.close()
        os.close(fd)
    return state.lines


# ---- replay into MongoDB ----------------------------------------------------------------------


def mongo_document(line: bytes, *, keep_ids: bool = True) -> dict[str, Any]:
    """A log line as the document the dealer stores: Extended JSON read (``{"$oid"}`` → ObjectId,
    ``{"$date"}`` → datetime, ``{"$numberLong"}`` → int…), an int epoch-ms or ISO ``dateCreated``
    (and ``dateUpdated``) as a timezone-aware UTC datetime; ``keep_ids`` False drops ``_id``.
    Raises ValueError for a line that is not a JSON object."""
    try:
        if b'"$' in line:
            from bson import json_util

            doc = json_util.loads(line, json_options=_json_options())
        else:
            doc = orjson.loads(line)
    except Exception as exc:  # orjson.JSONDecodeError, json.JSONDecodeError, bson errors
        raise ValueError(f"not JSON ({exc.__class__.__name__})") from None
    if not isinstance(doc, dict):
        raise ValueError(f"not a JSON object (a {type(doc).__name__})")
    for key in ("dateCreated", "dateUpdated"):
        if key in doc:
            when = _as_datetime(doc[key])
            if when is not None:
                doc[key] = when
    if not keep_ids:
        doc.pop("_id", None)
    return doc


_JSON_OPTIONS: Any = None


def _json_options() -> Any:
    global _JSON_OPTIONS
    if _JSON_OPTIONS is None:
        from bson.json_util import JSONOptions

        _JSON_OPTIONS = JSONOptions(tz_aware=True, tzinfo=dt.UTC)
    return _JSON_OPTIONS


def replay_to_mongo(
    src: str | os.PathLike[str],
    collection: Any,
    *,
    speed: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Any] = time.sleep,
    on_line: OnLine | None = None,
    max_gap_s: float | None = DEFAULT_MAX_GAP_S,
    keep_ids: bool = True,
    on_skip: Callable[[int, bytes, str], Any] | None = None,
    wallclock: Callable[[], float] = time.time,
) -> int:
    """Insert each line of ``src`` as a document (:func:`mongo_document`) into ``collection`` (a
    pymongo or mongomock collection), one ``insert_one`` per line in order, at the :func:`schedule`;
    the number of documents inserted.  Blank lines and lines that are not JSON objects are skipped
    (``on_skip(index, line, reason)`` hears of them).  ``on_line`` as in :func:`replay_to_file`.
    Ctrl-C: :class:`ReplayInterrupted` with the number of documents inserted."""
    pacer = _Pacer(speed, max_gap_s)
    inserted = 0
    start: float | None = None
    lines = iter_lines(src)
    try:
        for index, line in enumerate(lines):
            due = pacer.next(line_time_ms(line))
            if not line.strip():
                if on_skip is not None:
                    on_skip(index, line, "blank line")
                continue
            try:
                doc = mongo_document(line, keep_ids=keep_ids)
            except ValueError as exc:
                if on_skip is not None:
                    on_skip(index, line, str(exc))
                continue
            if start is None:
                start = clock()
            _wait_until(start + due, clock, sleep)
            collection.insert_one(doc)
            inserted += 1
            if on_line is not None:
                on_line(index, line, wallclock())
    except KeyboardInterrupt:
        raise ReplayInterrupted(inserted, 0.0 if start is None else clock() - start) from None
    finally:
        lines.close()
    return inserted


# ---- Kakomimasu: a server that plays recorded games turn by turn ------------------------------


class ServedRequest(NamedTuple):
    """One request the replay server answered: the path as sent, when (its ``clock``), the HTTP
    status and the number of logged turns served (None: not a game)."""

    path: str
    at: float
    status: int
    turns: int | None


@dataclass
class _Game:
    id: str
    raw: bytes  # the final document, served byte for byte once every turn is out
    doc: dict[str, Any]
    total: int  # logged turns
    turn_seconds: float
    boards: list[Any] = field(default_factory=list)  # boards[k]: the field after k turns
    cache: dict[int, bytes] = field(default_factory=dict)
    steps: int = 0  # turns advanced by step()
    gets: int = 0  # GETs of this game so far


class KakomimasuReplayServer:
    """A Kakomimasu server on 127.0.0.1 serving recorded API v1 games as they stood turn by turn.

    ``games``: one game or several — a parsed Game JSON ``dict``, the JSON as ``bytes``, or a file
    path (``str`` / ``Path``; plain or gzip) holding one game, a JSON array of games or JSON lines.

    ``GET /v1/matches/<id>`` (``id`` = the game's ``id``; a query string or a final ``/`` is
    ignored) answers the game after ``k`` logged turns (``Content-Type: application/json``)::

        k = min(logged turns, steps + floor(elapsed_s * speed / turn_seconds))    auto, speed finite > 0
        k = min(logged turns, steps + (n - 1))   on the n-th GET of that id        auto, speed <= 0 or inf
        k = min(logged turns, steps)                                              auto=False

    ``elapsed_s``: ``clock()`` since :meth:`start` (``with`` starts the server); ``turn_seconds``:
    the game's ``operationSec + transitionSec`` (1 when missing); ``steps``: how far :meth:`step`
    and :meth:`finish` moved every game by hand.  At ``k`` = every logged turn the answer is the
    game's document byte for byte.  Before, it is the same document (same keys, same order) with
    what the official server shows mid-game: ``status`` ``"gaming"``, ``turn`` ``k + 1`` (the turn
    being played, as in the server's own ``afterAction`` samples), ``log`` cut to its first ``k``
    turns, ``field.tiles`` and every player's ``agents`` as they stood after turn ``k`` (replayed by
    :mod:`rules.kakomimasu.replay`; at ``k`` = 0 every tile neutral and every agent unplaced) and
    every player's ``point`` as logged for turn ``k`` (``{"areaPoint": 0, "wallPoint": 0}`` at 0).
    An unknown id or any other path: 404 with ``{"error": "not found", "message": …}``.  Every
    request is kept in :attr:`requests` (:class:`ServedRequest`)."""

    def __init__(
        self,
        games: Any,
        *,
        speed: float = 1.0,
        auto: bool = True,
        clock: Callable[[], float] = time.monotonic,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.per_request = _fast(speed)
        self.speed = float(speed)
        self.auto = auto
        self.clock = clock
        self.games: dict[str, _Game] = {}
        for doc, raw in _game_documents(games):
            game = _prepare(doc, raw)
            if game.id in self.games:
                raise ValueError(f"two games with id {game.id!r}")
            self.games[game.id] = game
        self.requests: list[ServedRequest] = []
        self._lock = threading.Lock()
        self._started: float | None = None
        self._thread: threading.Thread | None = None
        self._httpd = ThreadingHTTPServer((host, port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.replay = self  # type: ignore[attr-defined]
        self.host, self.port = self._httpd.server_address[:2]
        self.url = f"http://{self.host}:{self.port}"

    # -- life cycle
    def start(self) -> KakomimasuReplayServer:
        if self._thread is None:
            self._started = self.clock()
            self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="kakomimasu-replay",
                                            daemon=True)  # fmt: skip
            self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> KakomimasuReplayServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- turns
    def match_url(self, game_id: str) -> str:
        return f"{self.url}/v1/matches/{game_id}"

    def step(self, n: int = 1) -> None:
        """Advance every game by ``n`` turns (on top of what time or requests advance)."""
        with self._lock:
            for g in self.games.values():
                g.steps = min(g.total, g.steps + n)

    def finish(self) -> None:
        """Every game at its end: the next GET serves the final document."""
        with self._lock:
            for g in self.games.values():
                g.steps = g.total

    def turns(self, game_id: str) -> int:
        """How many turns a GET of ``game_id`` would serve now (a GET-counting server: the next GET)."""
        with self._lock:
            return self._turns(self.games[game_id], self.games[game_id].gets + 1)

    def _turns(self, g: _Game, gets: int) -> int:
        k = g.steps
        if self.auto:
            if self.per_request:
                k += max(0, gets - 1)
            elif self._started is not None:
                elapsed = max(0.0, self.clock() - self._started)
                k += math.floor(elapsed * self.speed / g.turn_seconds + 1e-9)
        return min(g.total, k)

    def body(self, game_id: str, k: int) -> bytes:
        """The JSON served for ``game_id`` after ``k`` turns."""
        g = self.games[game_id]
        k = max(0, min(g.total, k))
        if k == g.total:
            return g.raw
        with self._lock:
            cached = g.cache.get(k)
        if cached is None:
            cached = orjson.dumps(_mid_game(g, k))
            with self._lock:
                g.cache[k] = cached
        return cached

    def _answer(self, raw_path: str) -> tuple[int, bytes, int | None]:
        path = unquote(urlsplit(raw_path).path)
        m = re.fullmatch(r"/v1/matches/([^/]+)/?", path)
        game = self.games.get(m.group(1)) if m else None
        if game is None:
            what = f"no game with id {m.group(1)!r}" if m else f"no such path: {path}"
            return 404, orjson.dumps({"error": "not found", "message": what}), None
        with self._lock:
            game.gets += 1
            k = self._turns(game, game.gets)
        return 200, self.body(game.id, k), k

    def _record(self, path: str, status: int, turns: int | None) -> None:
        with self._lock:
            self.requests.append(ServedRequest(path, self.clock(), status, turns))


class _Handler(BaseHTTPRequestHandler):
    server_version = "KifuKakomimasuReplay/1"

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        replay: KakomimasuReplayServer = self.server.replay  # type: ignore[attr-defined]
        status, body, turns = replay._answer(self.path)
        replay._record(self.path, status, turns)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet: requests are kept instead
        pass


def _game_documents(games: Any) -> Iterator[tuple[dict[str, Any], bytes]]:
    """(document, its bytes) of every game given."""
    if isinstance(games, dict | bytes | bytearray | str | os.PathLike):
        games = [games]
    for item in games:
        if isinstance(item, dict):
            yield item, orjson.dumps(item)
            continue
        if isinstance(item, bytes | bytearray):
            data = bytes(item)
        elif isinstance(item, str | os.PathLike):
            data = Path(item).read_bytes()
            if data[:2] == GZIP_MAGIC:
                data = gzip.decompress(data)
        else:
            raise TypeError(f"a game is a dict, JSON bytes or a file path, not {type(item).__name__}")
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:  # JSON lines: one game per line
            for line in data.splitlines():
                if line.strip():
                    doc = orjson.loads(line)
                    yield doc, line.rstrip(b"\r")
            continue
        if isinstance(value, list):
            for doc in value:
                yield doc, orjson.dumps(doc)
        else:
            yield value, data


def _prepare(doc: Any, raw: bytes) -> _Game:
    from rules.kakomimasu.game import GameLogError, classify, from_v1
    from rules.kakomimasu.replay import initial_board, replay

    if classify(doc) != "v1-game":
        raise ValueError("not a Kakomimasu API v1 game (a JSON object with id, totalTurn, log, field, "
                         "players)")  # fmt: skip
    try:
        log = from_v1(doc)
    except GameLogError as exc:
        raise ValueError(f"game {doc.get('id')!r} cannot be replayed: {exc}") from None
    total = len(doc.get("log") or [])
    boards: list[Any] = []
    if log.has_board:
        boards = [initial_board(log)] + [frame.after for frame in replay(log)]
    if total and len(boards) != total + 1:
        raise ValueError(f"game {log.game_id!r}: the replay gives {len(boards) - 1} of {total} turns")
    op, tr = doc.get("operationSec"), doc.get("transitionSec")
    secs = sum(v for v in (op, tr) if isinstance(v, int | float) and not isinstance(v, bool) and v > 0)
    return _Game(log.game_id, raw, doc, total, float(secs) if secs > 0 else 1.0, boards)


def _mid_game(g: _Game, k: int) -> dict[str, Any]:
    """The game as the server shows it after ``k`` of its logged turns (``k`` < all of them)."""
    from rules.kakomimasu.engine import NOBODY

    doc = g.doc
    log = doc.get("log") or []
    board = g.boards[k]
    out = dict(doc)
    out["status"] = "gaming"
    out["turn"] = k + 1
    if "gaming" in doc:  # the 2020 server's flags, should a game carry them
        out["gaming"] = True
    if "ending" in doc:
        out["ending"] = False
    out["log"] = log[:k]
    fld = doc.get("field")
    if isinstance(fld, dict) and "tiles" in fld:
        old = fld.get("tiles") or []
        keys = list(old[0]) if old and isinstance(old[0], dict) else ["type", "player"]
        tiles = []
        for kind, owner in zip(board.kinds, board.owners, strict=True):
            value = {"type": kind, "player": None if owner == NOBODY else owner}
            tiles.append({key: value[key] for key in keys if key in value} | value)
        out["field"] = {**fld, "tiles": tiles}
    row = log[k - 1].get("players") if k else None
    players = []
    for i, p in enumerate(doc.get("players") or []):
        if not isinstance(p, dict):
            players.append(p)
            continue
        q = dict(p)
        if "agents" in p and i < len(board.agents):
            q["agents"] = [{"x": x, "y": y} for x, y in board.agents[i]]
        if "point" in p:
            logged = row[i].get("point") if row and i < len(row) and isinstance(row[i], dict) else None
            if isinstance(logged, dict):
                q["point"] = logged
            else:
                old_point = p["point"] if isinstance(p["point"], dict) else {}
                q["point"] = {key: 0 for key in old_point} or {"areaPoint": 0, "wallPoint": 0}
        players.append(q)
    if "players" in doc:
        out["players"] = players
    return out


# ---- command line -----------------------------------------------------------------------------

PROG = "kifu replay-log"


class _BadArgument(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, no usage dump; main() turns it into exit 2
        raise _BadArgument(message)


def _speed(text: str) -> float:
    t = text.strip().lower()
    if t in ("max", "inf", "infinity"):
        return math.inf
    try:
        v = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--speed {text!r}: a number (e.g. 1, 10, 0.5) or 'max'") from None
    if math.isnan(v) or v < 0:
        raise argparse.ArgumentTypeError(f"--speed {text}: must be positive (or 'max': as fast as possible)")
    return v


def _gap(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--max-gap {text!r}: a number of seconds") from None
    if math.isnan(v) or v < 0:
        raise argparse.ArgumentTypeError(f"--max-gap {text}: must be 0 or more seconds")
    return v


def _parser() -> _Parser:
    p = _Parser(
        prog=PROG,
        description="Re-play a recorded game log at its recorded pace × a speed factor: append its lines "
        "to a file, or insert them into MongoDB, so that `kifu watch` can follow a recorded match as if "
        "live.",
        epilog="Exit status: 0 done; 1 the log or the output could not be read or written; 2 a bad argument; "
        "130 Ctrl-C (the lines written so far are complete lines).",
    )
    p.add_argument("file", metavar="FILE", help="the recorded log: JSON lines, plain or gzip")
    p.add_argument("--to", metavar="OUT",
                   help="append the lines to this file (emptied first unless --append)")  # fmt: skip
    p.add_argument("--mongo-uri", metavar="URI",
                   help="insert the lines into MongoDB instead, e.g. mongodb://localhost:27017")  # fmt: skip
    p.add_argument("--database", default=None, help="MongoDB database (default: uno-local)")
    p.add_argument("--collection", default=None, help="MongoDB collection (default: activities)")
    p.add_argument("--speed", type=_speed, default=1.0, metavar="X",
                   help="X times the recorded pace (default 1); 'max': as fast as possible")  # fmt: skip
    p.add_argument("--max-gap", type=_gap, default=DEFAULT_MAX_GAP_S, metavar="S",
                   help="longest wait between two lines, in seconds of recorded time "
                   "(default %(default)s)")  # fmt: skip
    p.add_argument("--append", action="store_true", help="keep what OUT holds, append after it")
    p.add_argument("--split-lines", action="store_true",
                   help="write each line in two halves a moment apart (to test a follower)")  # fmt: skip
    p.add_argument("--new-ids", action="store_true", help="MongoDB: drop the recorded _id of each document")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _speed_text(speed: float) -> str:
    return "max" if _fast(speed) else f"{speed:g}"


def main(argv: list[str] | None = None) -> int:
    """``kifu replay-log`` (see the module docstring); the exit status."""
    try:
        args = _parser().parse_args(argv)
        src, target = _check(args)
    except _BadArgument as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    speed = args.speed
    bar = _progress(src, not args.no_progress)
    started = time.monotonic()

    def tick(index: int, line: bytes, written_at: float) -> None:
        if bar is not None:
            bar.update(1)

    try:
        if args.mongo_uri:
            n, where = _to_mongo(args, src, speed, tick)
            noun = "documents"
        else:
            n = replay_to_file(src, target, speed=speed, on_line=tick, append=args.append,
                               max_gap_s=args.max_gap, split_lines=args.split_lines)  # fmt: skip
            where, noun = f"to {target}", "lines"
    except ReplayInterrupted as stop:
        _close(bar)
        into = f"into {_mongo_place(args)}" if args.mongo_uri else f"to {target}"
        what = "documents inserted" if args.mongo_uri else "complete lines written"
        print(f"{PROG}: interrupted: {stop.lines} {what} {into}", file=sys.stderr)
        return 130
    except _Failure as exc:
        _close(bar)
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.status
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        _close(bar)
        if isinstance(exc, OSError) and exc.errno is not None and not args.mongo_uri:
            from kifu.paths import refusal  # the line every kifu command gives for a path the system refuses

            refused = refusal(exc, exc.filename if exc.filename is not None else target)
            print(refused.line(PROG), file=sys.stderr)
            return 1
        print(f"{PROG}: error: {_os_error(exc)}", file=sys.stderr)
        return 1
    _close(bar)
    verb = "inserted" if args.mongo_uri else "wrote"
    print(f"{verb} {n} {noun} {where} in {time.monotonic() - started:.1f} s (speed ×{_speed_text(speed)})")
    return 0


class _Failure(Exception):
    """A run that could not be done: one line, and the exit status (1; 2 for a bad URI)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def _check(args: argparse.Namespace) -> tuple[Path, Path | None]:
    src = Path(args.file)
    if not src.exists():
        raise _BadArgument(f"{src}: no such file")
    if src.is_dir():
        raise _BadArgument(f"{src}: is a directory, not a log file")
    if args.to and args.mongo_uri:
        raise _BadArgument("give either --to OUT or --mongo-uri URI, not both")
    if not args.to and not args.mongo_uri:
        raise _BadArgument("say where to replay: --to OUT (a file) or --mongo-uri URI (MongoDB)")
    if args.to:
        if args.database is not None or args.collection is not None:
            raise _BadArgument("--database and --collection go with --mongo-uri, not --to")
        if args.new_ids:
            raise _BadArgument("--new-ids goes with --mongo-uri, not --to")
        out = Path(args.to)
        if out.is_dir():
            raise _BadArgument(f"--to {out}: is a directory")
        if not out.parent.is_dir():
            raise _BadArgument(f"--to {out}: the folder {out.parent} does not exist")
        if out.exists() and os.path.samefile(out, src):
            raise _BadArgument(f"--to {out} is FILE itself")
        return src, out
    if args.append or args.split_lines:
        raise _BadArgument("--append and --split-lines go with --to, not --mongo-uri")
    if not re.match(r"(?i)mongodb(\+srv)?://", args.mongo_uri):
        raise _BadArgument("--mongo-uri: a MongoDB URI starts with mongodb:// or mongodb+srv://")
    return src, None


def _progress(src: Path, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    try:
        total = sum(1 for _ in iter_lines(src))
    except (OSError, EOFError):
        total = None  # the replay itself says what is wrong
    from common.safe import terminal

    return tqdm(total=total, unit=" line", desc=terminal(src.name)[:40], leave=False, file=sys.stderr, mininterval=0.5,
                dynamic_ncols=True)  # fmt: skip


def _close(bar: Any) -> None:
    if bar is not None:
        bar.close()


def _os_error(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename or ''}{': ' if exc.filename else ''}{exc.strerror}"
    return f"{exc.__class__.__name__}: {exc}"


def _mongo_place(args: argparse.Namespace) -> str:
    from loaders.core.mongo import DEFAULT_COLLECTION, DEFAULT_DATABASE, redact_uri

    place = f"{args.database or DEFAULT_DATABASE}.{args.collection or DEFAULT_COLLECTION}"
    return f"{place} at {redact_uri(args.mongo_uri)}"


def _mongo_error(uri: str, exc: BaseException) -> str:
    from loaders.core.mongo import redact_uri

    text = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
    text = text.split(" (configured timeouts")[0]  # pymongo's topology dump says nothing more
    return f"MongoDB {redact_uri(uri)}: {text[:300]}"


def _to_mongo(args: argparse.Namespace, src: Path, speed: float, tick: OnLine) -> tuple[int, str]:
    import pymongo
    import pymongo.errors

    from loaders.core.mongo import DEFAULT_COLLECTION, DEFAULT_DATABASE

    where = f"into {_mongo_place(args)}"
    uri = args.mongo_uri
    options: dict[str, Any] = {}
    for name in ("serverSelectionTimeoutMS", "connectTimeoutMS"):
        if name.lower() not in uri.lower():
            options[name] = 5000
    try:
        client: Any = pymongo.MongoClient(uri, **options)
    except Exception as exc:  # a bad URI or option
        raise _Failure(_mongo_error(uri, exc), status=2) from None
    try:
        client.admin.command("ping")  # a server that is not there: said before the replay starts
        col = client[args.database or DEFAULT_DATABASE][args.collection or DEFAULT_COLLECTION]
        n = replay_to_mongo(src, col, speed=speed, on_line=tick, max_gap_s=args.max_gap,
                            keep_ids=not args.new_ids)  # fmt: skip
    except pymongo.errors.DuplicateKeyError:
        raise _Failure(f"a document with the same _id is already {where}: use --new-ids, "
                       "or another collection") from None  # fmt: skip
    except pymongo.errors.PyMongoError as exc:
        raise _Failure(_mongo_error(uri, exc)) from None
    finally:
        client.close()
    return n, where


if __name__ == "__main__":
    sys.exit(main())
