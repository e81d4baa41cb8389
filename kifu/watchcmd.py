"""``kifu watch``: the command around :class:`loaders.live.watch.Watcher` — its sources, its lines, its exit."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, TextIO

from common.safe import json_dumps, terminal
from common.words import count

if TYPE_CHECKING:  # the watcher (DuckDB, the loaders) is imported when a command runs, not to build the parser
    from loaders.live.watch import Finding, Status

SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


def add_arguments(p: argparse.ArgumentParser, db_default: str) -> None:
    p.add_argument("targets", nargs="*", metavar="SOURCE",
                   help="what to follow: a dealer log file (JSON lines) as it grows, a folder the dealer or a CHaser "
                   "server writes its logs into, a Kakomimasu match URL (https://host/v1/matches/ID), or a game id "
                   "with --kakomimasu-api")  # fmt: skip
    p.add_argument("--db", default=db_default, help="DuckDB database file (default: %(default)s)")
    p.add_argument("--mongo-uri", help="ALGORI: also follow the dealer's MongoDB (new activities, polled), e.g. "
                   "mongodb://uno:uno@localhost:27017 (prefer --mongo-uri-file or KIFU_MONGO_URI: a URI on the "
                   "command line is visible in `ps`)")  # fmt: skip
    p.add_argument("--mongo-uri-file", help="read the MongoDB URI from the first line of this file")
    p.add_argument("--database", default="uno-local", help="ALGORI: the dealer's MongoDB database (default: %(default)s)")
    p.add_argument("--collection", default="activities", help="ALGORI: the MongoDB collection (default: %(default)s)")
    p.add_argument("--dealer", help="ALGORI: only this dealer name (MongoDB)")
    p.add_argument("--dealer-code", help="ALGORI: only this dealer code (MongoDB)")
    p.add_argument("--kakomimasu-api", metavar="URL", help="Kakomimasu: the server's base URL, for SOURCEs given as game ids")
    p.add_argument("--ruleset", metavar="ID", help="UNO: judge every match by this rule profile (as kifu ingest --ruleset)")
    p.add_argument("--player", metavar="NAME", help="tell only the findings about this player (its code or name)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="findings as text lines, or one JSON object per line for tools (default: %(default)s)")
    p.add_argument("--fail-on", choices=("error", "warning"),
                   help="exit 1 at the first finding of this severity or worse (of --player's, if given), once it is stored")
    p.add_argument("--poll", type=float, default=0.2, metavar="SECONDS",
                   help="how often the sources are looked at (default: %(default)s)")
    p.add_argument("--settle", type=float, default=2.0, metavar="SECONDS",
                   help="how long a CHaser log or a file read whole must stay unchanged before it is read "
                   "(default: %(default)s)")  # fmt: skip
    p.add_argument("--batch-records", type=int, default=None, metavar="N",
                   help="records in one batch at the most (default: 4000; a backlog goes in several batches, each "
                   "committed at once)")  # fmt: skip
    p.add_argument("--batch-seconds", type=float, default=None, metavar="SECONDS",
                   help="how long one batch takes records at the most (default: 1.0)")
    p.add_argument("--no-status", action="store_true", help="no status line on stderr")
    add_network_arguments(p, watch=True)


def add_network_arguments(p: argparse.ArgumentParser, *, watch: bool) -> None:
    """The bounds of network sources (docs/live.md, "Network sources are bounded")."""
    from loaders.core import feeds, netfetch
    from loaders.core.mongo import MONGO_TIMEOUT_S

    def seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not 0 < value < 10**7:
            raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0")
        return value

    def size(text: str) -> int:
        try:
            return netfetch.parse_size(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    p.add_argument("--http-timeout", type=seconds, default=netfetch.HTTP_TIMEOUT_S, metavar="SECONDS",
                   help="Kakomimasu server: the most time one request may take, whole — connecting, redirects "
                   "(only within the URL's scheme, host and port), headers and body (default: %(default)g)")  # fmt: skip
    p.add_argument("--http-max-bytes", type=size, default=netfetch.HTTP_MAX_BYTES, metavar="SIZE",
                   help="Kakomimasu server: the largest answer read, e.g. 64MiB; a larger one is refused "
                   "and nothing of it is kept (default: 64MiB)")  # fmt: skip
    if watch:
        p.add_argument("--http-stall", type=seconds, default=feeds.HTTP_STALL_S, metavar="SECONDS",
                       help="Kakomimasu server: stop following a game that has not ended when it has not changed "
                       "for this long (default: %(default)g)")  # fmt: skip
        p.add_argument("--http-follow", type=seconds, default=feeds.HTTP_FOLLOW_S, metavar="SECONDS",
                       help="Kakomimasu server: stop following a game that has not ended after this long "
                       "(default: %(default)g)")  # fmt: skip
    p.add_argument("--mongo-timeout", type=seconds, default=MONGO_TIMEOUT_S, metavar="SECONDS",
                   help="MongoDB: the most time finding the server, connecting, and each query or batch of "
                   "documents may take (default: %(default)g)")  # fmt: skip


def http_bounds(args: argparse.Namespace) -> Any:
    from loaders.core.netfetch import HttpBounds

    return HttpBounds(timeout_s=args.http_timeout, max_bytes=args.http_max_bytes)


class Printer:
    """Writes each finding on one line (text or JSON) and the status line; decides ``--fail-on``."""

    def __init__(self, args: argparse.Namespace, out: TextIO, err: TextIO, prog: str = "kifu watch") -> None:
        self.prog = prog
        self.fmt = args.format
        self.player = args.player
        self.fail_rank = SEVERITY_RANK.get(args.fail_on) if args.fail_on else None
        self.out, self.err = out, err
        self.failed: Finding | None = None
        self.status_on = not args.no_status
        self.tty = bool(getattr(err, "isatty", lambda: False)())
        self._last_status = 0.0
        self._status_width = 0
        self.tally: dict[tuple[str, str], dict[str, int]] = {}  # (player, name) -> check -> findings told

    def selected(self, f: Finding) -> bool:
        return self.player is None or self.player in (f.player, f.player_name)

    def finding(self, f: Finding) -> None:
        if not self.selected(f):
            return
        by_check = self.tally.setdefault((f.player or "—", f.player_name or ""), {})
        by_check[f.code] = by_check.get(f.code, 0) + 1
        self._clear_status()
        if self.fmt == "json":
            self.out.write(json_dumps(f.as_dict(), indent=None) + "\n")
        else:
            where = " ".join(x for x in (
                f"round {f.round}" if f.round is not None and f.game == "algori-uno" else "",
                f"turn {f.turn}" if f.turn is not None else "",
                f"#{f.seq}" if f.seq is not None else "") if x)  # fmt: skip
            who = f.player or "—"
            if f.player_name and f.player_name != f.player:
                who += f" ({f.player_name})"
            line = (f"{time.strftime('%H:%M:%S', time.localtime(f.stored_at))}  {f.match_id[:16]}  {where or '—'}  "
                    f"{who}  {f.severity}  {f.code}: {f.message}")  # fmt: skip
            self.out.write(terminal(line) + "\n")
        self.out.flush()
        if self.fail_rank is not None and self.failed is None and SEVERITY_RANK.get(f.severity, 0) >= self.fail_rank:
            self.failed = f

    def summary(self) -> list[str]:
        """The findings told, counted per player and check, most first: one line per player."""
        out = []
        for (player, name), by_check in sorted(self.tally.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])):
            who = f"{player} ({name})" if name and name != player else player
            most = sorted(by_check.items(), key=lambda kv: (-kv[1], kv[0]))
            checks = ", ".join(f"{code} ×{n:,}" for code, n in most)
            out.append(f"findings by check: {who}: {checks}")
        return out

    def note(self, text: str) -> None:
        self._clear_status()
        self.err.write(f"{self.prog}: {terminal(text)}\n")
        self.err.flush()

    def status(self, s: Status, lag: float | None) -> None:
        if not self.status_on:
            return
        now = time.monotonic()
        if now - self._last_status < (1.0 if self.tty else 30.0):
            return
        self._last_status = now
        lag_text = f"{lag:.1f}s" if lag is not None else "—"
        text = (f"watching: {s.events:,} events" + (f" and {s.games:,} games" if s.games else "")
                + f" stored, {s.rate:,.0f}/s · lag {lag_text}"
                + (f" · {s.behind:,} bytes to read" if s.behind else "")
                + f" · {s.live} live · {count(s.findings, 'finding')}"
                + (f" · {s.quarantined:,} quarantined" if s.quarantined else "")
                + (f" · {s.waiting}" if s.waiting else "")
                + (f" · reading {s.ingests} file(s) for kifu ingest" if s.ingests else "")
                + "".join(f" · {p}" for p in s.problems))  # fmt: skip
        text = terminal(text)
        if self.tty:
            pad = max(0, self._status_width - len(text))
            self.err.write("\r" + text + " " * pad)
            self._status_width = len(text)
        else:
            self.err.write(text + "\n")
        self.err.flush()

    def _clear_status(self) -> None:
        if self.tty and self._status_width:
            self.err.write("\r" + " " * self._status_width + "\r")
            self._status_width = 0


def feeds_for(args: argparse.Namespace, mongo_uri: str | None) -> list[Any]:
    from loaders.core import feeds
    from loaders.core.sources import SourceError

    out: list[Any] = []
    for target in args.targets:
        if target.startswith(("http://", "https://")) or args.kakomimasu_api:
            out.append(feeds.KakomimasuFeed(feeds.kakomimasu_url(target, args.kakomimasu_api), bounds=http_bounds(args),
                                            stall_s=args.http_stall, follow_s=args.http_follow))  # fmt: skip
        elif target.endswith(("/", os.sep)) and not os.path.exists(target):  # a folder to come: waited for
            out.append(feeds.Folder(target.rstrip("/" + os.sep) or target, settle_s=args.settle))
        else:
            out.append(feeds.follow_path(target, settle_s=args.settle))
    if mongo_uri:
        from loaders.core.mongo import MongoSource

        out.append(feeds.MongoFeed(MongoSource(mongo_uri, args.database, args.collection,
                                               dealer=args.dealer, dealer_code=args.dealer_code,
                                               timeout_ms=int(args.mongo_timeout * 1000))))  # fmt: skip
    if not out:
        raise SourceError("give what to follow: a log file, a folder, a Kakomimasu match URL, or --mongo-uri")
    return out


def _missing(args: argparse.Namespace) -> list[str]:
    """The file or folder SOURCEs that do not exist (yet)."""
    if args.kakomimasu_api:
        return []
    return [t for t in args.targets if not t.startswith(("http://", "https://")) and not os.path.exists(t)]


def run(args: argparse.Namespace, mongo_uri: str | None, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Exit 0: stopped (Ctrl-C, SIGTERM, or every source finished); 1: --fail-on fired, or a source or the
    database cannot be used; 2: a bad argument."""
    from common.settings import SettingError, memory_limit
    from loaders.core.sources import SourceError
    from queries import DatabaseError

    try:
        memory_limit()
    except SettingError as exc:
        print(f"kifu watch: {exc}", file=err)
        return 2
    if args.poll <= 0 or args.settle < 0:
        print("kifu watch: --poll must be more than 0 and --settle at least 0", file=err)
        return 2
    batch_records = getattr(args, "batch_records", None)
    batch_seconds = getattr(args, "batch_seconds", None)
    if (batch_records is not None and batch_records < 1) or (batch_seconds is not None and batch_seconds <= 0):
        print("kifu watch: --batch-records must be at least 1 and --batch-seconds more than 0", file=err)
        return 2
    ruleset = None
    if args.ruleset:
        from rules.uno.profile import get as get_profile

        try:
            ruleset = get_profile(args.ruleset)
        except ValueError as exc:
            print(f"kifu watch: --ruleset: {exc}", file=err)
            return 2
    printer = Printer(args, out, err)
    try:
        feed_list = feeds_for(args, mongo_uri)
    except SourceError as exc:
        print(f"kifu watch: {terminal(exc)}", file=err)
        return 2
    from loaders.live.watch import BATCH_MAX_S, MAX_BATCH, Watcher

    watcher = Watcher(args.db, feed_list, ruleset=ruleset, on_finding=printer.finding, on_note=printer.note,
                      poll_s=args.poll, max_batch=batch_records or MAX_BATCH,
                      batch_max_s=batch_seconds or BATCH_MAX_S)  # fmt: skip
    stopped: list[int] = []

    def on_signal(signum: int, frame: Any) -> None:
        stopped.append(signum)
        watcher.stop()

    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    only_http = all(hasattr(f, "done") for f in feed_list)

    told: set[int] = set()

    def until() -> bool:
        for i, f in enumerate(feed_list):  # a source given up (a bound hit): said once, the others go on
            if getattr(f, "failed", None) and i not in told:
                told.add(i)
                printer.note(f"{f.failed} — no longer followed")
            for note in f.take_notes() if hasattr(f, "take_notes") else ():  # a folder's file that cannot be read
                printer.note(note)
        return printer.failed is not None or (only_http and all(f.done for f in feed_list))

    printer.note(f"following {len(feed_list)} source(s) into {args.db} — Ctrl-C stops")
    missing = _missing(args)
    said_missing: list[bool] = []

    def tick(s: Status) -> None:
        if not said_missing:  # once the watcher holds the database: said once, then waited for
            said_missing.append(True)
            for target in missing:
                kind = "folder" if target.endswith(("/", os.sep)) else "log file (end it with / for a folder)"
                printer.note(f"{target} does not exist yet — waiting for it as a {kind}")
        for target in [t for t in missing if os.path.exists(t)]:
            missing.remove(target)
            printer.note(f"{target} appeared — following it")
        printer.status(s, watcher.lag_s())

    try:
        watcher.run(until=until, on_tick=tick)
    except (SourceError, DatabaseError) as exc:
        printer.note(str(exc))
        return 1
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        printer._clear_status()
    s = watcher.status
    games = f" and {s.games:,} Kakomimasu/CHaser game(s)" if s.games else ""
    printer.note(f"stopped: {count(s.events, 'event')}{games} stored in {count(s.batches, 'batch', 'batches')}, "
                 f"{count(s.findings, 'finding')}"
                 + (f", {s.quarantined:,} records quarantined (table load_issues)" if s.quarantined else ""))  # fmt: skip
    if told:
        printer.note(f"{len(told)} source(s) given up (a bound was hit) — exit 1")
        if printer.failed is None:
            return 1
    if printer.failed is not None:
        f = printer.failed
        printer.note(f"--fail-on {args.fail_on}: {f.severity} {f.code} in {f.match_id} (seq {f.seq}) — exit 1")
        return 1
    return 0
