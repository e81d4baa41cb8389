"""`kifu serve --host 0.0.0.0` (what the Docker image runs) contacts nothing beyond the machine.

The served process gets a ``sitecustomize`` that records every attempt to reach a host that is not
this machine — a name looked up (``getaddrinfo``), a socket connected or sent to — in a file, and refuses
it (so the test never reaches the network either).  Streamlit, bound to a wildcard address, looks up
the machine's external address at start (``checkip.amazonaws.com``) and points a UDP socket at 8.8.8.8;
both must be gone while the dashboard still serves its page and accepts a cross-origin WebSocket
check (which, too, asks for those addresses)."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

RECORDER = r'''
import ipaddress, os, socket

_LOG = os.environ["KIFU_TEST_OUTBOUND_LOG"]
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "", None, socket.gethostname()}


def _local(host):
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if host in _LOCAL_NAMES:
        return True
    try:
        ip = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


def _record(what, target):
    with open(_LOG, "a", encoding="utf-8") as f:
        f.write(f"{what} {target!r}\n")
    raise OSError(101, "outbound connection refused by the test")


_getaddrinfo = socket.getaddrinfo


def getaddrinfo(host, *args, **kw):
    if not _local(host):
        _record("getaddrinfo", host)
    return _getaddrinfo(host, *args, **kw)


socket.getaddrinfo = getaddrinfo


def _address_host(address):
    return address[0] if isinstance(address, tuple) else None


class _Socket(socket.socket):
    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(_address_host(address)):
            _record("connect", address)
        return super().connect(address)

    def connect_ex(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(_address_host(address)):
            _record("connect_ex", address)
        return super().connect_ex(address)

    def sendto(self, data, *args):
        address = args[-1]
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(_address_host(address)):
            _record("sendto", address)
        return super().sendto(data, *args)


socket.socket = _Socket
'''


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_serve_on_all_interfaces_reaches_nothing_beyond_the_machine(tmp_path: Path, empty_db: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(RECORDER, encoding="utf-8")
    log = tmp_path / "outbound.log"
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]), "KIFU_TEST_OUTBOUND_LOG": str(log),
           "HOME": str(tmp_path)}  # no ~/.streamlit of the machine's user
    for name in ("KIFU_DB", "KIFU_UPLOAD", "KIFU_UPLOAD_TOKEN"):
        env.pop(name, None)
    proc = subprocess.Popen([sys.executable, "-m", "kifu.cli", "serve", "--db", str(empty_db), "--host", "0.0.0.0",
                             "--port", str(port)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, body = _get(port, "/_stcore/health")
                if status == 200 and body == b"ok":
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""  # type: ignore[union-attr]
                pytest.fail(f"kifu serve did not come up (exit {proc.poll()}):\n{out[-3000:]}")
            time.sleep(0.2)
        status, body = _get(port, "/")
        assert status == 200 and b"<html" in body.lower()
        # A WebSocket from another origin than the Host: Streamlit judges the origin by the machine's
        # internal and external addresses (looked up, unless Kifu stopped it).
        ws_headers = {"Host": f"127.0.0.1:{port}", "Origin": "http://dashboard.example", "Upgrade": "websocket",
                      "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}  # fmt: skip
        ws_status, _ = _get(port, "/_stcore/stream", ws_headers)
        assert ws_status in (101, 403), ws_status  # answered (a cross-origin socket is refused), not hung
        time.sleep(1.5)  # the start-up banner (and its address lookup) is printed right after the server starts
        assert proc.poll() is None, "the server stopped"
    finally:
        proc.terminate()
        try:
            out = proc.communicate(timeout=20)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            proc.kill()
            out = proc.communicate()[0].decode(errors="replace")
    attempts = log.read_text(encoding="utf-8") if log.exists() else ""
    assert attempts == "", f"outbound attempts:\n{attempts}\nserver output:\n{out[-2000:]}"
    assert "Local URL" in out or "localhost" in out, out[-2000:]  # the banner was printed (its lookup would have run)


def test_every_duckdb_connection_kifu_opens_downloads_no_extension(tmp_path: Path) -> None:
    """DuckDB installs an extension a query needs from the network unless told not to: Kifu's connections say
    so (a database file, the dashboard's hub)."""
    import queries

    opened = [queries.connect(tmp_path / "k.duckdb"), queries.open_hub("256MB")]
    try:
        for con in opened:
            assert con.execute("select current_setting('autoinstall_known_extensions')").fetchone() == (False,)
    finally:
        for con in opened:
            con.close()
