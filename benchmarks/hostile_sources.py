"""Hostile network sources at Kifu's default bounds: how long each case takes to end, and its peak RSS.

    .venv/bin/python benchmarks/hostile_sources.py [--only NAME ...] [--skip-slow]

Each case runs ``kifu ingest`` or ``kifu watch`` (a process of its own, its peak RSS read from
``wait4``) against a local server of this process that answers as a hostile one:

=================  ==========================================================  =======================
case               the server                                                  the bound that ends it
=================  ==========================================================  =======================
trickle            1 byte every 3 s (a body announced as 100 kB)               --http-timeout (30 s)
huge               a body without end, as fast as it goes (no length given)    --http-max-bytes (64 MiB)
announced          a body announced as 3 GiB                                   --http-max-bytes, at once
redirect           a redirect to another port of the same host                 same origin only, at once
endless game       the same unfinished Kakomimasu game at every request        --http-stall (120 s)
restless game      a game that changes at every request and never ends         --http-follow (3 h: run
                                                                               here with 60 s)
watch + SIGTERM    kifu watch on the trickle; SIGTERM 2 s into the request     2 s
mongo trickle      MongoDB that handshakes, then answers 1 byte every 0.5 s    --mongo-timeout (10 s)
mongo silent       MongoDB that handshakes, then never answers                 --mongo-timeout (10 s)
=================  ==========================================================  =======================

Printed per case: the wall time to the command's end, its exit status, its peak RSS, the bound, and
the one line it ended with.  ``--skip-slow`` leaves out the two cases of the game bounds (about 3 min).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.loaders.test_hostile_sources import HostileMongo, HostileServer  # noqa: E402


def _kifu(*args: str) -> list[str]:
    return [sys.executable, "-m", "kifu.cli", *args]


def run(argv: list[str], *, term_after: Any = None) -> tuple[float, int, float, str, float]:
    """(wall seconds, exit status, peak RSS in MiB, the line that says why it ended, monotonic end) of one
    command (wall: from SIGTERM when ``term_after`` says when to send it)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=err)
        sent = None
        if term_after is not None:
            term_after()
            sent = time.monotonic()
            proc.send_signal(signal.SIGTERM)
        _, status, usage = os.wait4(proc.pid, 0)
        end = time.monotonic()
        proc.returncode = os.waitstatus_to_exitcode(status)
        took = time.monotonic() - (sent if sent is not None else t0)
        err.seek(0)
        lines = [x for x in err.read().decode(errors="replace").splitlines() if x.strip()]
    said = next((x for x in lines if "--http" in x or "--mongo" in x or "redirected" in x or "unreachable" in x),
                lines[-1] if lines else "")  # fmt: skip
    return took, proc.returncode if proc.returncode >= 0 else 128 - proc.returncode, usage.ru_maxrss / 1024, said, end


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", help="run only these cases (names as printed, e.g. trickle huge)")
    ap.add_argument("--skip-slow", action="store_true", help="leave out the endless and restless games")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kifu-hostile-"))
    with HostileServer(trickle_every_s=3.0) as web:

        def ingest(path: str, name: str) -> tuple[float, int, float, str, float]:
            return run(_kifu("ingest", f"{web.url}{path}", "--db", str(tmp / f"{name}.duckdb"), "--no-progress", "--jobs", "1"))

        def watch(path: str, name: str, *extra: str, term_after: Any = None) -> tuple[float, int, float, str, float]:
            return run(_kifu("watch", f"{web.url}{path}", "--db", str(tmp / f"{name}.duckdb"), "--no-status", *extra),
                       term_after=term_after)

        def two_s_into_the_request() -> None:
            n = len(web.requests)
            while len(web.requests) == n:
                time.sleep(0.02)
            time.sleep(2.0)

        cases: list[tuple[str, str, Any, bool]] = [
            ("trickle", "--http-timeout 30 s", lambda: ingest("/trickle", "trickle"), False),
            ("huge", "--http-max-bytes 64 MiB", lambda: ingest("/huge", "huge"), False),
            ("announced", "--http-max-bytes 64 MiB", lambda: ingest("/announced", "announced"), False),
            ("redirect", "same origin", lambda: ingest("/elsewhere", "redirect"), False),
            ("watch+SIGTERM", "2 s after SIGTERM", lambda: watch("/trickle", "term", term_after=two_s_into_the_request), False),
            ("endless", "--http-stall 120 s", lambda: watch("/endless", "endless"), True),
            ("restless", "--http-follow (60 s here)", lambda: watch("/restless", "restless", "--http-follow", "60"), True),
        ]
        for name, bound, fn, slow in cases:
            if (args.only and name not in args.only) or (slow and args.skip_slow):
                continue
            n = len(web.times)
            took, code, rss, said, end = fn()
            served = end - web.times[n] if len(web.times) > n else float("nan")
            show(name, took, served, code, rss, bound, said)
    for name, every in (("mongo-trickle", 0.5), ("mongo-silent", None)):
        if args.only and name not in args.only:
            continue
        with HostileMongo(every) as mongo:
            took, code, rss, said, end = run(_kifu("ingest", "--mongo-uri", mongo.uri, "--database", "d",
                                                   "--db", str(tmp / f"{name}.duckdb"), "--no-progress"))  # fmt: skip
            queried = [t for t, c in zip(mongo.times, mongo.commands, strict=False) if next(iter(c)) in ("aggregate", "find")]
        show(name, took, end - queried[0] if queried else float("nan"), code, rss, "--mongo-timeout 10 s", said)
    return 0


def show(name: str, took: float, served: float, code: int, rss: float, bound: str, said: str) -> None:
    """One case: wall time of the command (from SIGTERM for watch+SIGTERM), time from the hostile request
    reaching the server to the command's end, exit status, peak RSS, the bound, the line it ended with."""
    print(f"{name:14} wall {took:6.1f} s  from the request {served:6.1f} s  exit {code:<3}  peak RSS {rss:5.0f} MiB  "
          f"bound: {bound}\n{'':16}{said}", flush=True)  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
