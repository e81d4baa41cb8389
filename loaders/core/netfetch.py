"""HTTP reads with bounds: every request ends, whatever the server does.

A GET made here is bounded

- in **time**, whole: connecting, every redirect, the headers and the body together get
  :attr:`HttpBounds.timeout_s` (``--http-timeout``, default 30 s) — a server that answers one byte
  at a time cannot keep a read alive by sending just often enough;
- in **size**: a body longer than :attr:`HttpBounds.max_bytes` (``--http-max-bytes``, default
  64 MiB) is refused as soon as its announced length or the bytes read pass the bound, and nothing of
  it is kept;
- in **where it goes**: a redirect is followed only to the same origin (scheme, host and port), at
  most :data:`MAX_REDIRECTS` times;
- in **looking up the host**: the name is resolved in a thread of its own (one per host and port at a
  time, shared by the requests that need it), and the request waits for it within its bound like for
  the rest; a resolver that never answers ends the request at ``--http-timeout`` all the same;
- and it can be **abandoned at once**: the request runs in a thread of its own while the caller waits
  in short steps, so Ctrl-C and SIGTERM are answered within a fraction of a second (the caller's
  handlers run) and a ``kifu watch`` loop never waits on a server at all (:class:`Request`).

A bound that is hit raises :class:`BoundExceeded` (a :class:`~loaders.core.sources.SourceError`): one
line naming the URL, the bound and the option that raises it.  A server that cannot be reached or
answers an error status raises a plain :class:`~loaders.core.sources.SourceError`.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from common.safe import terminal
from loaders.core.sources import SourceError

#: Defaults of the bounds (documented in docs/live.md and the commands' help).
HTTP_TIMEOUT_S = 30.0
HTTP_MAX_BYTES = 64 * 1024 * 1024
MAX_REDIRECTS = 5
CHUNK = 64 * 1024
#: How often a waiting caller looks whether it was stopped (its signal handlers run in between).
STEP_S = 0.1

_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


class _Lookup:
    """One ``getaddrinfo`` of a host and port, running in a daemon thread: the system's resolver cannot be
    interrupted, so a request does not wait for it past its bound; a lookup still under way is shared by
    the requests that ask for the same host meanwhile (a resolver that hangs costs one thread, not one per
    request)."""

    _running: dict[tuple[str, int], _Lookup] = {}
    _lock = threading.Lock()

    def __init__(self, host: str, port: int) -> None:
        self.key = (host, port)
        self.done = threading.Event()
        self.infos: list[Any] = []
        self.error: OSError | None = None
        threading.Thread(target=self._run, name="kifu-dns", daemon=True).start()

    @classmethod
    def of(cls, host: str, port: int) -> _Lookup:
        with cls._lock:
            found = cls._running.get((host, port))
            if found is None:
                found = cls._running[(host, port)] = cls(host, port)
            return found

    def _run(self) -> None:
        try:
            self.infos = socket.getaddrinfo(self.key[0], self.key[1], 0, socket.SOCK_STREAM)
        except OSError as exc:
            self.error = exc
        except BaseException as exc:  # noqa: BLE001 - told to the request, never lost in the thread
            self.error = OSError(str(exc) or type(exc).__name__)
        finally:
            with self._lock:
                if self._running.get(self.key) is self:
                    del self._running[self.key]
            self.done.set()


class BoundExceeded(SourceError):
    """A request ended by one of its bounds (time, size, redirect): the server's answer is not used."""


@dataclass(frozen=True)
class HttpBounds:
    timeout_s: float = HTTP_TIMEOUT_S
    max_bytes: int = HTTP_MAX_BYTES


def parse_size(text: str) -> int:
    """``--http-max-bytes``: a number of bytes, or a number and a unit (KB, MB, GB, KiB, MiB, GiB)."""
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = _UNITS.get((m.group(2) or "b").lower()) if m else None
    if m is None or unit is None or float(m.group(1)) * unit < 1:
        raise ValueError(f"{text!r} is not a size: give bytes or a number and a unit, e.g. 64MiB, 500KB")
    return int(float(m.group(1)) * unit)


def show_size(n: int) -> str:
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{round(n / size, 1):g} {unit}"
    return f"{n:,} bytes"


def origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or (443 if scheme == "https" else 80)


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise SourceError(f"{terminal(url)}: only http:// and https:// URLs can be read")


class Request:
    """One bounded GET running in a thread of its own.

    :meth:`result` answers without waiting: None while the request is under way, else the body (or the
    error it ended with, raised).  :meth:`wait` waits for it in short steps (for ``kifu ingest``);
    :meth:`cancel` abandons it (its connection is shut, its thread ends)."""

    def __init__(self, url: str, bounds: HttpBounds = HttpBounds(), *, clock: Callable[[], float] = time.monotonic) -> None:
        _check_url(url)
        self.url = url
        self.bounds = bounds
        self.clock = clock
        self.deadline = clock() + bounds.timeout_s
        self._done = threading.Event()
        self._body: bytes | None = None
        self._error: BaseException | None = None
        self._conn: Any = None
        self._cancelled = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="kifu-http", daemon=True)
        self._thread.start()

    # -- the caller's side

    def result(self) -> bytes | None:
        if self._done.is_set():
            if self._error is not None:
                raise self._error
            return self._body
        if self.clock() >= self.deadline:
            self.cancel()
            raise self._timed_out()
        return None

    def settle(self, wait_s: float) -> bool:
        """Wait at most ``wait_s`` (and never past the deadline) for the request to end; True if it did."""
        return self._done.wait(max(0.0, min(wait_s, self.deadline - self.clock())))

    def wait(self, stopped: Callable[[], bool] = lambda: False) -> bytes:
        """The body, waiting in steps of :data:`STEP_S` (signal handlers run between them; a handler that
        raises — Ctrl-C — abandons the request); ``stopped()`` true abandons it too."""
        try:
            while True:
                body = self.result()
                if body is not None:
                    return body
                if stopped():
                    self.cancel()
                    raise SourceError(f"{terminal(self.url)}: stopped before the answer was complete")
                self._done.wait(min(STEP_S, max(0.0, self.deadline - self.clock())) or 0.001)
        except BaseException:
            self.cancel()
            raise

    def cancel(self) -> None:
        """Abandon the request: its socket is shut down, so the thread's read ends at once."""
        with self._lock:
            self._cancelled = True
            conn = self._conn
        sock = getattr(conn, "sock", None)
        if sock is not None:
            try:
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the raw socket, also under TLS
            except OSError:
                pass

    # -- the thread's side

    def _run(self) -> None:
        try:
            self._body = self._get()
        except SourceError as exc:
            self._error = exc
        except ssl.SSLError as exc:
            self._error = SourceError(f"{terminal(self.url)}: TLS failed ({terminal(exc.reason or exc)})")
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if self._cancelled or self.clock() >= self.deadline:
                self._error = self._timed_out()
            else:
                reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
                self._error = SourceError(f"{terminal(self.url)}: unreachable ({terminal(reason)})")
        except BaseException as exc:  # noqa: BLE001 - told to the caller, never lost in the thread
            self._error = SourceError(f"{terminal(self.url)}: {type(exc).__name__}")
        finally:
            conn = self._conn
            if conn is not None:
                try:
                    conn.close()
                except Exception:  # noqa: BLE001
                    pass
            self._done.set()

    def _timed_out(self) -> BoundExceeded:
        return BoundExceeded(f"{terminal(self.url)}: gave no complete answer in {self.bounds.timeout_s:g} s "
                             "(--http-timeout)")  # fmt: skip

    def _remaining(self) -> float:
        left = self.deadline - self.clock()
        if left <= 0 or self._cancelled:
            raise self._timed_out()
        return left

    def _connect(self, address: tuple[str, int], timeout: Any = None, source_address: Any = None) -> socket.socket:
        """``socket.create_connection`` with the host looked up in a :class:`_Lookup` waited for in short
        steps until the deadline (or a cancel), then each address tried within the time left."""
        host, port = address
        lookup = _Lookup.of(host, port)
        while not lookup.done.wait(min(STEP_S, max(0.001, self.deadline - self.clock()))):
            self._remaining()  # past the deadline or cancelled: the request ends, the lookup goes on alone
        if lookup.error is not None:
            raise lookup.error
        error: OSError = OSError(f"{host}: no address")
        for family, kind, proto, _name, sockaddr in lookup.infos:
            sock = socket.socket(family, kind, proto)
            try:
                sock.settimeout(self._remaining())
                if source_address:
                    sock.bind(source_address)
                sock.connect(sockaddr)
                return sock
            except OSError as exc:
                sock.close()
                error = exc
        raise error

    def _get(self) -> bytes:
        url = self.url
        first = origin(url)
        for _hop in range(MAX_REDIRECTS + 1):
            parts = urlsplit(url)
            scheme, host, port = origin(url)
            cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
            conn = cls(host, port, timeout=self._remaining())
            conn._create_connection = self._connect  # the host looked up within the bound, not by the socket
            with self._lock:
                if self._cancelled:
                    raise OSError("cancelled")
                self._conn = conn
            conn.connect()
            if self._cancelled:  # cancelled while connecting: the socket was not there to shut
                raise OSError("cancelled")
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            conn.request("GET", path, headers={"Accept": "application/json", "User-Agent": "kifu",
                                               "Accept-Encoding": "identity"})  # fmt: skip
            resp = conn.getresponse()
            if resp.status in (301, 302, 303, 307, 308):
                target = urljoin(url, resp.getheader("Location") or "")
                if origin(target) != first or urlsplit(target).scheme.lower() not in ("http", "https"):
                    to = urlsplit(target)
                    raise BoundExceeded(f"{terminal(self.url)}: redirected to another origin "
                                        f"({terminal(to.scheme)}://{terminal(to.netloc)}); only redirects within "
                                        f"{first[0]}://{first[1]}:{first[2]} are followed")  # fmt: skip
                conn.close()
                url = target
                continue
            if resp.status >= 400:
                raise SourceError(f"{terminal(self.url)}: the server answered {resp.status} {terminal(resp.reason)}")
            if resp.status != 200:
                raise SourceError(f"{terminal(self.url)}: the server answered {resp.status} {terminal(resp.reason)} "
                                  "(not a document)")  # fmt: skip
            limit = self.bounds.max_bytes
            announced = resp.getheader("Content-Length")
            if announced and announced.strip().isdigit() and int(announced) > limit:
                raise self._too_big(f"{int(announced):,} bytes announced")
            body = bytearray()
            while True:
                chunk = resp.read1(CHUNK) if hasattr(resp, "read1") else resp.read(CHUNK)
                if not chunk:
                    break
                body += chunk
                if len(body) > limit:
                    raise self._too_big("")
                self._remaining()
            return bytes(body)
        raise BoundExceeded(f"{terminal(self.url)}: more than {MAX_REDIRECTS} redirects")

    def _too_big(self, what: str) -> BoundExceeded:
        return BoundExceeded(f"{terminal(self.url)}: the answer is larger than {show_size(self.bounds.max_bytes)} "
                             f"({what + '; ' if what else ''}--http-max-bytes); nothing of it is kept")  # fmt: skip


def fetch(url: str, bounds: HttpBounds = HttpBounds(), stopped: Callable[[], bool] = lambda: False) -> bytes:
    """GET ``url`` within ``bounds``, waiting (interruptibly) for the whole answer."""
    return Request(url, bounds).wait(stopped)
