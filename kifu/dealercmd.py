"""``kifu dealer``: serve one ALGORI 2023 match to socket.io players, log it, ingest it."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from common.safe import terminal

WHITE_WILD = {"bind_2": "algori-2023/bind_2", "skip_bind_2": "algori-2023/skip_bind_2",
              "none": "algori-2023/no-white-wild"}  # fmt: skip
FILL = ("random", "greedy", "stacker")  # the sloppy bot's fouls are the JUA profile's


def run(args: argparse.Namespace, port_busy: Any, ingest: Any) -> int:
    """Exit 0: the match completed (and was ingested); 1: it did not, or the ingest failed; 2: a bad argument."""
    from referee import bots
    from referee.dealer_server import SEATS, DealerServer, Options
    from rules.uno.profile import get as get_profile

    def fail(why: str, status: int = 2) -> int:
        print(f"kifu dealer: {terminal(why)}", file=sys.stderr)
        return status

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
                   join_wait_s=args.join_wait, fill=fill)  # fmt: skip
    say = (lambda msg: print(f"kifu dealer: {terminal(msg)}", file=sys.stderr, flush=True)) if not args.quiet \
        else (lambda msg: None)  # fmt: skip
    with open(out, "wb") as f:  # line by line, flushed: `kifu watch` can follow the match as it is played
        def sink(line: bytes) -> None:
            f.write(line + b"\n")
            f.flush()

        server = DealerServer(opts, sink, say)
        why = asyncio.run(server.serve())
    if why is not None:
        return fail(f"the match did not complete: {why} (log so far: {out})", 1)
    table = server.table
    assert table is not None
    say(f"match {table.dealer_code} complete: {table.rounds} rounds, {table.seq} lines written to {out}")
    return int(ingest(argparse.Namespace(db=args.db, paths=[str(out)], sample=False, mongo_uri=None, mongo_uri_file=None,
                                database="uno-local", collection="activities", dealer=None, dealer_code=None,
                                jobs=1, files_only=True, ruleset=None, no_progress=True)))  # fmt: skip
