"""``kifu dealer``: serve one ALGORI 2023 match to socket.io players, log it, follow the log into the database."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from common.safe import terminal
from common.words import count

WHITE_WILD = {"bind_2": "algori-2023/bind_2", "skip_bind_2": "algori-2023/skip_bind_2",
              "none": "algori-2023/no-white-wild"}  # fmt: skip
FILL = ("random", "greedy", "stacker")  # the sloppy bot's fouls are the JUA profile's


def run(args: argparse.Namespace, port_busy: Any) -> int:
    """Exit 0: the match completed and is stored; 1: it did not, it could not be stored, or ``--fail-on`` found
    a finding; 2: a bad argument; 130: Ctrl-C, 143: SIGTERM (what was played is stored all the same).

    Nothing heavy is imported before the server listens: the watcher storing the match (DuckDB, the loaders)
    is a process of its own, started once the port accepts connections (:class:`Follow`)."""
    from common.settings import SettingError, memory_limit
    from referee import bots
    from referee.dealer import PACE_S, DealerStop

    _serving_only()
    from referee.dealer_server import JOIN_WAIT_S, SEATS, STOPS, DealerServer, Options
    from rules.uno.profile import get as get_profile

    def fail(why: str, status: int = 2) -> int:
        print(f"kifu dealer: {terminal(why)}", file=sys.stderr, flush=True)
        return status

    try:
        memory_limit()
    except SettingError as exc:
        return fail(str(exc))
    if args.rounds < 1:
        return fail(f"--rounds {args.rounds}: at least one round")
    if not 0 < args.timeout_ms <= 600_000:
        return fail(f"--timeout-ms {args.timeout_ms}: give 1 to 600000")
    if args.join_wait is None:
        args.join_wait = JOIN_WAIT_S
    if not 1 <= args.join_wait <= JOIN_WAIT_MAX_S:
        return fail(f"--join-wait {args.join_wait:g}: give 1 to {JOIN_WAIT_MAX_S:g} seconds")
    if not args.room or len(args.room.encode("utf-16-le")) // 2 > 20:
        return fail("--room: give a room name of 1 to 20 characters")
    if len(args.fill) > SEATS:
        return fail(f"--fill: at most {SEATS} bots")
    unknown = [b for b in args.fill if b not in FILL]
    if unknown:
        return fail(f"--fill {unknown[0]}: built-in bots are {', '.join(FILL)}")
    if port_busy(args.host, args.port):
        return fail(f"port {args.port} on {args.host} is in use")
    out = Path(args.out) if args.out else Path(f"kifu-dealer-{args.room}.jsonl")
    if not out.parent.is_dir():
        return fail(f"--out {out}: there is no folder {out.parent}")
    fill = [(kind, bots.builtin(kind, args.seed * 1009 + i)) for i, kind in enumerate(args.fill)]
    opts = Options(room=args.room, rounds=args.rounds, profile=get_profile(WHITE_WILD[args.white_wild]),
                   host=args.host, port=args.port, seed=args.seed, timeout_s=args.timeout_ms / 1000,
                   join_wait_s=args.join_wait, fill=fill, pace_s=PACE_S if args.pace == "official" else 0.0)  # fmt: skip
    say = (lambda msg: print(f"kifu dealer: {terminal(msg)}", file=sys.stderr, flush=True)) if not args.quiet \
        else (lambda msg: None)  # fmt: skip
    tidy = Tidy(Path(args.db), out)  # what exists now is left as it is; what the dealer makes beside it goes
    follow: Follow | None = None
    with open(out, "wb") as f:  # line by line, flushed: the watcher below (and any `kifu watch`) follows it
        written = 0
        writing = threading.Lock()

        def sink(line: bytes) -> None:
            nonlocal written
            with writing:
                if f.closed:  # the dealer was stopped (Ctrl-C, SIGTERM): the table stops at its next line
                    raise DealerStop("the dealer was stopped")
                f.write(line + b"\n")
                f.flush()
                written += 1

        def listening() -> None:  # on the server's loop, in the main thread (the watcher dies with that thread)
            nonlocal follow
            follow = Follow(args, out)
            threading.Thread(target=await_follow, args=(follow,), name="kifu-dealer-await-watcher", daemon=True).start()

        def await_follow(follow: Follow) -> None:  # the match starts once the watcher follows the log, or not at all
            refused = follow.ready()
            if refused is None:
                server.ready.set()
            else:
                server.abort(refused)

        server = DealerServer(opts, sink, say, on_listening=listening)
        why: str | None = "not started"
        try:
            try:
                why = asyncio.run(server.serve())
            except (KeyboardInterrupt, asyncio.CancelledError):  # a second Ctrl-C while stopping
                server.stopped = server.stopped or signal.SIGINT
                why = "stopped"
            finally:
                with writing:
                    f.close()
            stopped = STOPS[server.stopped] if server.stopped is not None else None
            played = server.table is not None
            if stopped is not None:
                where = f"log so far: {out}" if played else "no match was played"
                fail(f"stopped by {stopped[0]} ({where})", stopped[1])
            elif server.aborted is not None:
                fail(server.aborted, 1)
            elif why is not None:
                fail(f"the match did not complete: {why}" + (f" (log so far: {out})" if played else ""), 1)
            else:
                table = server.table
                assert table is not None
                say(f"match {table.dealer_code} complete: {count(table.rounds, 'round')}, {count(written, 'line')} "
                    f"written to {out}")
        finally:
            signal.signal(signal.SIGTERM, _interrupt)  # the loop's handlers are gone: SIGTERM now as Ctrl-C
            stored = follow.finish() if follow is not None else 0  # what is stored, whatever the end; --fail-on
            tidy.done(watcher_ended=follow is None or follow.proc.exitcode is not None)
    if server.stopped is not None:
        return STOPS[server.stopped][1]
    return 1 if why is not None else stored


#: What python-socketio 4.x and python-engineio 3.x import for their clients and message queues, each import of
#: theirs optional (``except ImportError``): the dealer only serves.
CLIENT_LIBRARIES = ("requests", "websocket", "tornado", "aiohttp", "redis", "aioredis", "kafka", "kombu", "aio_pika",
                    "eventlet")  # fmt: skip


def _serving_only() -> None:
    """Imports socket.io's server without its clients' HTTP libraries (requests, tornado: a tenth of a second of
    the dealer's start on an idle core).  The dealer's own process only: a socket.io client made in this process
    afterwards would find no ``requests``.  The libraries can be imported again afterwards."""
    if "socketio" in sys.modules:
        return
    kept_out = [m for m in CLIENT_LIBRARIES if m not in sys.modules]
    for m in kept_out:
        sys.modules[m] = None  # type: ignore[assignment]  # `import m` raises ImportError
    try:
        import socketio  # noqa: F401
    finally:
        for m in kept_out:
            if m in sys.modules and sys.modules[m] is None:
                del sys.modules[m]


#: When the match ends with this much of the log not read yet by the watcher (bytes), the wait is said.
BEHIND_SAID = 1 << 20

#: ``--join-wait`` at the most (seconds): every wait of the dealer is bounded.
JOIN_WAIT_MAX_S = 86_400.0


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


class Tidy:
    """What ``kifu dealer`` leaves beside the database: the lock files its watcher made (``<db>.lock``, the
    ``<db>.watch*`` files, ``<db>.watch.resume``) go when it ends, and, when no match was played, the empty
    log and the database it made.  A file that was there before the dealer started is left as it was."""

    SIDE = (".lock", ".watch", ".watch.gate", ".watch.want", ".watch.resume")

    def __init__(self, db: Path, out: Path) -> None:
        self.db, self.out = db, out
        self.side = [db.with_name(db.name + s) for s in self.SIDE]
        self.before = {p for p in [db, out, *self.side] if os.path.lexists(p)}

    def done(self, *, watcher_ended: bool) -> None:
        """After the watcher ended (``watcher_ended``; else, killed, it may hold the files: they stay)."""
        if not watcher_ended:
            return
        for p in self.side:
            if p not in self.before:
                _unlink_unheld(p)
        if self.out not in self.before and _size(self.out) == 0:  # no match: no line
            self.out.unlink(missing_ok=True)
            if self.db not in self.before and _empty_database(self.db):
                self.db.unlink(missing_ok=True)
                self.db.with_name(self.db.name + ".wal").unlink(missing_ok=True)


def _size(p: Path) -> int | None:
    try:
        return p.stat().st_size
    except OSError:
        return None


def _unlink_unheld(p: Path) -> None:
    """Removes the lock file ``p`` unless another run holds it right now (``flock``); a run waiting for it then
    finds the path gone and locks the new file (:func:`queries.sharing.db_lock`)."""
    import fcntl

    try:
        fh = open(p, "rb")  # noqa: SIM115 - closed below
    except OSError:
        return
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        return
    try:
        if os.path.samestat(os.fstat(fh.fileno()), os.stat(p)):
            p.unlink()
    except OSError:
        pass
    finally:
        fh.close()


def _empty_database(db: Path) -> bool:
    """A database file that holds no event, no game and no run (the watcher opened it, nothing was stored)."""
    if _size(db) is None:
        return False
    import duckdb

    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error:
        return False
    try:
        tables = {r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()}
        return all(con.execute(f'select count(*) from "{t}"').fetchone()[0] == 0 for t in tables)  # noqa: S608
    except duckdb.Error:
        return False
    finally:
        con.close()

#: How long the watcher may take, once the match is over, to store the rest of the log (a 1,000-round match
#: played by the fastest bots: a few seconds, 22 s on a loaded machine).
FINISH_S = 600.0


class Follow:
    """The log followed into ``--db`` while the match is played: :class:`loaders.live.watch.Watcher` in a
    process of its own (:func:`_follow`), its findings told as ``kifu watch`` tells them (``--player``,
    ``--format``, ``--fail-on``).  Its own process, not a thread: storing a match costs about as much CPU as
    refereeing it, and in the dealer's process it would share one interpreter lock with the socket server and
    the table — every action's answer would wait for it.  It ignores Ctrl-C and SIGTERM (the dealer tells it
    when the log is complete, whatever the end) and dies with the dealer (SIGKILL included: the database is
    then as after its last committed batch)."""

    def __init__(self, args: argparse.Namespace, out: Path) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self.done = ctx.Event()
        self._conn, child = ctx.Pipe(duplex=False)
        opts = {"db": str(args.db), "format": args.format, "player": args.player, "fail_on": args.fail_on,
                "quiet": bool(args.quiet)}  # fmt: skip
        self.proc = ctx.Process(target=_follow, args=(opts, str(out), self.done, child), name="kifu-dealer-watch",
                                daemon=True)  # fmt: skip
        self.proc.start()  # once the dealer listens: its imports (a second of CPU) no longer delay that
        child.close()
        self.error: str | None = None

    def ready(self, timeout: float = 60.0) -> str | None:
        """Waits until the watcher follows the log; why it cannot (another watcher holds the database, …), or None."""
        if not self._conn.poll(timeout):
            self.finish()
            return f"the watcher storing the match did not start in {timeout:g} s"
        try:
            kind, text = self._conn.recv()
        except EOFError:
            kind, text = "error", f"the watcher storing the match ended at start (exit {self.proc.exitcode})"
        if kind == "error":
            self.finish()
            return text
        return None

    def finish(self) -> int:
        """The log is complete: the watcher reads it to its end, stores it and ends.  0, or 1 when the match
        could not be stored or ``--fail-on`` found what it looks for (the watcher said which)."""
        self.done.set()
        try:
            self.proc.join(FINISH_S)
        except KeyboardInterrupt:  # Ctrl-C (or SIGTERM) again while it stores the log's end: stopped at once
            why = "stopped while storing the log's end"
        else:
            why = f"the watcher had not stored the log's end {FINISH_S:g} s after the match"
        if self.proc.is_alive():  # bounded: what it committed is stored (a database as after its last batch)
            self.proc.kill()
            self.proc.join()
            print(f"kifu dealer: {why} — stopped; the database holds what it committed", file=sys.stderr)
            return 1
        code = self.proc.exitcode
        return 0 if code == 0 else 1


def _follow(opts: dict[str, Any], out: str, done: Any, conn: Any) -> None:
    """The watcher process of :class:`Follow`: exits 0, or 1 (what for is on stderr)."""
    from kifu.watchcmd import Printer
    from loaders.core import feeds
    from loaders.core.sources import SourceError
    from loaders.live.watch import Watcher
    from loaders.parallel.lifeline import die_with_parent
    from queries import DatabaseError

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the dealer tells it when to stop (Ctrl-C to the process group too)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    die_with_parent()
    args = argparse.Namespace(**opts)
    printer = Printer(argparse.Namespace(format=args.format, player=args.player, fail_on=args.fail_on, no_status=True),
                      sys.stdout, sys.stderr, prog="kifu dealer")  # fmt: skip
    told = False
    drained = False

    def tick(_: Any) -> None:
        nonlocal told
        if not told:
            told = True
            conn.send(("ready", None))

    def until() -> bool:  # the log complete, one more poll reads it to its end; then stop (the last batch stored)
        nonlocal drained
        if done.is_set() and drained and watcher.status.behind == 0:
            return True
        if done.is_set() and not drained and not args.quiet and watcher.status.behind >= BEHIND_SAID:
            s = watcher.status  # the wait that follows is said: the watcher had fallen behind the match
            printer.note(f"storing the rest of the log: {s.behind / 2**20:,.1f} MiB not read yet"
                         + (f", the oldest line waiting {s.lag_s:.0f} s" if s.lag_s else ""))  # fmt: skip
        drained = done.is_set()
        return False

    try:
        watcher = Watcher(args.db, [feeds.follow_path(Path(out))], on_finding=printer.finding,
                          on_note=printer.note if not args.quiet else None)  # fmt: skip
        watcher.run(until=until, on_tick=tick)
    except (SourceError, DatabaseError) as exc:
        why = f"the match is not stored in the database: {exc}"
        if not told:
            conn.send(("error", why))
        else:
            print(f"kifu dealer: {terminal(why)}", file=sys.stderr, flush=True)
        sys.exit(1)
    s = watcher.status
    if not args.quiet and (s.events or s.findings):  # none: no match was played (the dealer says so)
        for line in printer.summary():
            printer.note(line)
        printer.note(f"{_named(watcher.matches(), out)}{count(s.events, 'event')} stored into {args.db}, "
                     f"{count(s.findings, 'finding')}")
    if printer.failed is not None:
        f = printer.failed
        printer.note(f"--fail-on {args.fail_on}: {f.severity} {f.code} in {f.match_id} (seq {f.seq}) — exit 1")
        sys.stdout.flush()
        sys.exit(1)
    sys.stdout.flush()


def _named(match_ids: list[str], out: str) -> str:
    """The match by both its names — its id in the database (``M-…``, as the findings name it) and its dealer code
    (``D-…``, as the dealer's lines and the log name it) — for the watcher's last line."""
    import orjson

    if len(match_ids) != 1:
        return ""
    try:
        with open(out, "rb") as f:
            code = orjson.loads(f.readline()).get("dealer_code")
    except (OSError, ValueError, AttributeError):
        code = None
    return f"match {match_ids[0]}" + (f" (dealer code {code})" if isinstance(code, str) else "") + ": "
