"""``kifu play``: seats, bots and profile from the command line; the referee's log to a file."""

from __future__ import annotations

import gzip
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from referee import bots
from referee.algori import AlgoriTable
from referee.match import BotError, BotFailed, Referee, Seat
from referee.plugin import PluginBot
from rules.uno import profile as P

#: The clock of a plug-in bot under rules that set none (JUA): past it the match stops.
REFEREE_CLOCK_MS = 5_000


class PlayError(Exception):
    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def seats_from(args: Any, clock_ms: int = REFEREE_CLOCK_MS) -> list[Seat]:
    """The seats ``--bot``, ``--bots``, ``--players`` and ``--names`` ask for; a plug-in bot is started in its
    own process, answering within ``clock_ms`` (call :func:`close` on the seats when the match is over)."""
    listed = [b.strip() for b in (args.bots or "").split(",") if b.strip()]
    specs = list(args.bot) + listed
    if not specs:
        raise PlayError("give the bots: --bots random,greedy,… or --bot path/to/bot.py:function")
    n = args.players or max(len(specs), 4 if not args.bot else len(specs))
    if n < 1:
        raise PlayError(f"--players {n}: at least one player")
    if not 0 <= args.sloppy_rate <= 1:
        raise PlayError(f"--sloppy-rate {args.sloppy_rate}: give a rate from 0 to 1")
    names = [x.strip() for x in args.names.split(",")] if args.names else []
    if names and len(names) != n:
        raise PlayError(f"--names gives {len(names)} names for {n} players")
    seats: list[Seat] = []
    for i in range(n):
        rest = listed or args.bot  # the seats after --bot are filled from --bots, repeated
        spec = args.bot[i] if i < len(args.bot) else rest[(i - len(args.bot)) % len(rest)]
        try:
            if spec in bots.KINDS:
                name = names[i] if names else f"{spec}-{i + 1}"
                bot: Any = bots.builtin(spec, args.seed * 1009 + i, sloppy_rate=args.sloppy_rate)
            else:
                path, function = bots.plugin(spec)
                name = names[i] if names else f"{function}-{i + 1}"
                try:
                    bot = PluginBot(path, function, name, clock_ms)
                except ValueError as exc:  # no such function
                    raise ValueError(f"bot {spec!r}: {exc}") from None
        except ValueError as exc:
            close(seats)
            raise PlayError(str(exc)) from None
        except BotFailed as exc:  # the contestant's module failed to import, or its process ended
            close(seats)
            raise PlayError(f"bot {spec!r} {exc}", 1) from None
        seats.append(Seat(f"P-{i + 1:08d}", name, bot))
    return seats


def close(seats: list[Seat]) -> None:
    """Ends the processes of the plug-in bots."""
    for seat in seats:
        if isinstance(seat.bot, PluginBot):
            seat.bot.close()


def _partial(out: str) -> Path:
    return Path(out + ".partial")


@contextmanager
def _open(out: str) -> Any:
    if out == "-":
        try:
            yield sys.stdout.buffer
        finally:
            sys.stdout.buffer.flush()
        return
    path = Path(out)
    if path.is_dir():
        raise PlayError(f"--out {out} is a folder: give a file name, e.g. match.jsonl")
    if not path.parent.is_dir():
        raise PlayError(f"--out {out}: there is no folder {path.parent}")
    tmp = path.with_name(path.name + ".tmp")
    raw = open(tmp, "wb")  # noqa: SIM115
    # no file name and no time in the gzip header: the same seed gives the same bytes under any name
    f: IO[bytes] = gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) if out.endswith(".gz") else raw
    try:
        yield f
    except BotError:  # the match stopped: the log so far, complete to its last line, under another name
        f.close()
        raw.close()
        tmp.replace(_partial(out))
        raise
    except BaseException:
        f.close()
        raw.close()
        tmp.unlink(missing_ok=True)
        raise
    f.close()
    raw.close()
    tmp.replace(path)  # a whole log or none: never half a match under the name asked for
    _partial(out).unlink(missing_ok=True)  # the log of an earlier run that stopped is no longer the news


def play(args: Any) -> Path:
    """Play the match ``args`` describe and write its log; the path written."""
    try:
        profile = P.get(args.ruleset)
    except ValueError as exc:
        raise PlayError(f"--ruleset: {exc}") from None
    if args.rounds is not None and args.rounds < 1:
        raise PlayError(f"--rounds {args.rounds}: at least one round")
    clock = getattr(args, "bot_timeout_ms", None)
    if clock is not None and clock < 1:
        raise PlayError(f"--bot-timeout-ms {clock}: give a clock of at least 1 ms")
    seats = seats_from(args, clock or profile.action_ms or REFEREE_CLOCK_MS)
    try:
        return _play(args, profile, seats)
    finally:
        close(seats)


def match_name(args: Any, seats: list[Seat]) -> str:
    """The name the match is logged under (the dealer's name: what the dashboard lists it by): ``--name``, else
    one made from the bots' names and the seed, e.g. "random-1, greedy-2, stacker-3, random-4 · seed 1"."""
    given = (getattr(args, "name", None) or "").strip()
    if given:
        return given
    names = [s.name for s in seats]
    shown = ", ".join(names[:4]) + (f" +{len(names) - 4}" if len(names) > 4 else "")
    return f"{shown} · seed {args.seed}"


def _play(args: Any, profile: P.Profile, seats: list[Seat]) -> Path:
    name = match_name(args, seats)
    try:
        if profile.audit == P.DEALER_AUDIT:  # the ALGORI dealer's rules and log (1,000 rounds, as in the contest)
            ref: Any = AlgoriTable(profile, seats, seed=args.seed, rounds=args.rounds or 1000, dealer=name)
        else:
            ref = Referee(profile, seats, seed=args.seed, rounds=args.rounds, dealer=name)
    except ValueError as exc:
        raise PlayError(str(exc)) from None
    if args.out != "-" and not Path(args.out).parent.is_dir():
        raise PlayError(f"--out {args.out}: there is no folder {Path(args.out).parent}")
    bar = None
    if not args.no_progress and args.out != "-":
        from tqdm import tqdm

        bar = tqdm(total=ref.rounds, unit=" round", desc=f"{ref.profile.id} seed {args.seed}", leave=False,
                   file=sys.stderr, mininterval=0.5)  # fmt: skip
    try:
        with _open(args.out) as f:
            ref.play(lambda line: f.write(line + b"\n"), on_round=bar.update if bar is not None else None)
    except BotError as exc:
        where = "on standard output" if args.out == "-" else f"in {_partial(args.out)}"
        raise PlayError(f"{exc}; the log so far ({ref.seq} lines) is {where}", 1) from None
    except BrokenPipeError:  # --out - into a reader that stopped reading (`| head`): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return Path(args.out)
    finally:
        if bar is not None:
            bar.close()
    if args.out != "-":
        print(f"kifu play: {ref.profile.id}, {len(seats)} players, {ref.rounds} rounds, seed {args.seed}: "
              f"{ref.seq} lines written to {args.out}", file=sys.stderr)  # fmt: skip
    return Path(args.out)
