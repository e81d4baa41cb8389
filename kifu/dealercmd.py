"""``kifu dealer``: serve one ALGORI 2023 match to socket.io players, log it, follow the log into the database."""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

from common.safe import terminal

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
        follow = Follow(args, out)
        why = follow.start()
        if why is not None:
            return fail(why, 1)

        def sink(line: bytes) -> None:
            if not f.closed:  # after a Ctrl-C the table may write on a moment: the log is closed
                f.write(line + b"\n")
                f.flush()

        server = DealerServer(opts, sink, say)
        interrupted = False
        try:
            why = asyncio.run(server.serve())
        except KeyboardInterrupt:
            why, interrupted = "interrupted", True
        finally:
            f.close()
            follow.finish()
    if interrupted:
        fail(f"interrupted (log so far: {out})", 130)
    elif why is not None:
        fail(f"the match did not complete: {why} (log so far: {out})", 1)
    else:
        table = server.table
        assert table is not None
        say(f"match {table.dealer_code} complete: {table.rounds} rounds, {table.seq} lines written to {out}")
    stored = follow.status(args)  # what is stored, whatever the end; --fail-on
    return 130 if interrupted else 1 if why is not None else stored

class Follow:
    """The log followed into ``--db`` while the match is played: :class:`loaders.live.watch.Watcher` in a
    thread of its own, its findings told as ``kifu watch`` tells them (``--player``, ``--format``,
    ``--fail-on``)."""

    def __init__(self, args: argparse.Namespace, out: Path) -> None:
        from kifu.watchcmd import Printer
        from loaders.core import feeds
        from loaders.live.watch import Watcher

        self.printer = Printer(argparse.Namespace(format=args.format, player=args.player, fail_on=args.fail_on,
                                                  no_status=True), sys.stdout, sys.stderr, prog="kifu dealer")  # fmt: skip
        self.watcher = Watcher(args.db, [feeds.follow_path(out)], on_finding=self.printer.finding,
                               on_note=self.printer.note if not args.quiet else None)  # fmt: skip
        self.error: str | None = None
        self._ready = threading.Event()
        self._done = threading.Event()
        self._drained = False
        self._thread = threading.Thread(target=self._run, name="kifu-dealer-watch", daemon=True)

    def start(self) -> str | None:
        """Starts following; why it cannot (another watcher holds the database, …), or None."""
        self._thread.start()
        self._ready.wait(30)
        return self.error

    def finish(self) -> None:
        """The log is complete: read it to its end, store it, stop."""
        self._done.set()
        self._thread.join()

    def _until(self) -> bool:
        # the log complete, one more poll reads it to its end; then stop (the last batch is stored on the way out)
        if self._done.is_set() and self._drained and self.watcher.status.behind == 0:
            return True
        self._drained = self._done.is_set()
        return False

    def _run(self) -> None:
        from loaders.core.sources import SourceError
        from queries import DatabaseError

        try:
            self.watcher.run(until=self._until, on_tick=lambda s: self._ready.set())
        except (SourceError, DatabaseError) as exc:
            self.error = f"the match is not stored in the database: {exc}"
        finally:
            self._ready.set()

    def status(self, args: argparse.Namespace) -> int:
        """0, or 1 when the match could not be stored or ``--fail-on`` found what it looks for."""
        if self.error is not None:
            print(f"kifu dealer: {terminal(self.error)}", file=sys.stderr)
            return 1
        s = self.watcher.status
        if not args.quiet:
            self.printer.note(f"{s.events:,} events stored into {args.db}, {s.findings:,} findings")
        if self.printer.failed is not None:
            f = self.printer.failed
            self.printer.note(f"--fail-on {args.fail_on}: {f.severity} {f.code} in {f.match_id} (seq {f.seq}) — exit 1")
            return 1
        return 0
