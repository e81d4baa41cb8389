"""``kifu dealer``: serve one ALGORI 2023 match to socket.io players, log it, follow the log into the database."""

from __future__ import annotations

import argparse
import asyncio
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
    a finding; 2: a bad argument; 130: Ctrl-C (what was played is stored all the same)."""
    from common.settings import SettingError, memory_limit
    from referee import bots
    from referee.dealer import PACE_S
    from referee.dealer_server import SEATS, DealerServer, Options
    from rules.uno.profile import get as get_profile

    def fail(why: str, status: int = 2) -> int:
        print(f"kifu dealer: {terminal(why)}", file=sys.stderr)
        return status

    try:
        memory_limit()
    except SettingError as exc:
        return fail(str(exc))
    if args.rounds < 1:
        return fail(f"--rounds {args.rounds}: at least one round")
    if not 0 < args.timeout_ms <= 600_000:
        return fail(f"--timeout-ms {args.timeout_ms}: give 1 to 600000")
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
    with open(out, "wb") as f:  # line by line, flushed: the watcher below (and any `kifu watch`) follows it
        follow = Follow(args, out)  # its process starts while the server starts listening

        written = 0

        def sink(line: bytes) -> None:
            nonlocal written
            if not f.closed:  # after a Ctrl-C the table may write on a moment: the log is closed
                f.write(line + b"\n")
                f.flush()
                written += 1

        server = DealerServer(opts, sink, say)

        def await_follow() -> None:  # the match starts once the watcher follows the log, or not at all
            refused = follow.ready()
            if refused is None:
                server.ready.set()
            else:
                server.abort(refused)

        threading.Thread(target=await_follow, name="kifu-dealer-await-watcher", daemon=True).start()
        interrupted = False
        try:
            try:
                why = asyncio.run(server.serve())
            except KeyboardInterrupt:
                why, interrupted = "interrupted", True
            finally:
                f.close()
            if interrupted:
                fail(f"interrupted (log so far: {out})", 130)
            elif server.aborted is not None:
                fail(server.aborted, 1)
            elif why is not None:
                fail(f"the match did not complete: {why} (log so far: {out})", 1)
            else:
                table = server.table
                assert table is not None
                say(f"match {table.dealer_code} complete: {count(table.rounds, 'round')}, {count(written, 'line')} "
                    f"written to {out}")
        finally:
            stored = follow.finish()  # what is stored, whatever the end; --fail-on
    return 130 if interrupted else 1 if why is not None else stored

#: How long the watcher may take, once the match is over, to store the rest of the log (a 1,000-round match
#: played by the fastest bots: a few seconds, 22 s on a loaded machine).
FINISH_S = 600.0


class Follow:
    """The log followed into ``--db`` while the match is played: :class:`loaders.live.watch.Watcher` in a
    process of its own (:func:`_follow`), its findings told as ``kifu watch`` tells them (``--player``,
    ``--format``, ``--fail-on``).  Its own process, not a thread: storing a match costs about as much CPU as
    refereeing it, and in the dealer's process it would share one interpreter lock with the socket server and
    the table — every action's answer would wait for it.  It ignores Ctrl-C (the dealer tells it when the log
    is complete, whatever the end) and dies with the dealer (SIGKILL included: the database is then as after
    its last committed batch)."""

    def __init__(self, args: argparse.Namespace, out: Path) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self.done = ctx.Event()
        self._conn, child = ctx.Pipe(duplex=False)
        opts = {"db": str(args.db), "format": args.format, "player": args.player, "fail_on": args.fail_on,
                "quiet": bool(args.quiet)}  # fmt: skip
        self.proc = ctx.Process(target=_follow, args=(opts, str(out), self.done, child), name="kifu-dealer-watch",
                                daemon=True)  # fmt: skip
        self.proc.start()  # while the dealer sets up its server
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
        self.proc.join(FINISH_S)
        if self.proc.is_alive():  # bounded: what it committed is stored (a database as after its last batch)
            self.proc.kill()
            self.proc.join()
            print(f"kifu dealer: the watcher had not stored the log's end {FINISH_S:g} s after the match — stopped; "
                  "the database holds what it committed", file=sys.stderr)  # fmt: skip
            return 1
        code = self.proc.exitcode
        return 0 if code == 0 else 1


def _follow(opts: dict[str, Any], out: str, done: Any, conn: Any) -> None:
    """The watcher process of :class:`Follow`: exits 0, or 1 (what for is on stderr)."""
    import signal

    from kifu.watchcmd import Printer
    from loaders.core import feeds
    from loaders.core.sources import SourceError
    from loaders.live.watch import Watcher
    from loaders.parallel.lifeline import die_with_parent
    from queries import DatabaseError

    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
    if not args.quiet:
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
