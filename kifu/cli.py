"""The ``kifu`` command: ingest dealer logs, validate them, serve the dashboard."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from common import __version__

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "samples" / "misbehave_bind2_40.download.jsonl.gz"
#: ``--sample`` ingests one log of every game Kifu knows: an ALGORI match, a Kakomimasu game, a CHaser game.
SAMPLES = [SAMPLE, REPO / "samples" / "kakomimasu_island-4_hanako-vs-a3.json.gz", REPO / "samples" / "chaser_greedy-vs-greedy.txt"]


def _cores() -> int:
    from loaders.parallel.workers import default_jobs

    return default_jobs()


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of processes: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"at least 1 process (got {n})")
    return n


def _db_default() -> str:
    return os.environ.get("KIFU_DB", "kifu.duckdb")


def _db_name(value: str) -> str:
    """Where a --db value came from, as a message names it: KIFU_DB (the default) or --db."""
    return "KIFU_DB" if os.environ.get("KIFU_DB") == value else "--db"


def _checked(parse: Any, text: str) -> Any:
    """An argparse ``type``: ``parse(text)``, its SettingError as argparse's one-line error."""
    from common.settings import SettingError

    try:
        return parse(text)
    except SettingError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _port(text: str) -> int:
    from common.settings import port

    return int(_checked(port, text))


def _upload_mb(text: str) -> int:
    from common.settings import positive_int

    return int(_checked(lambda t: positive_int(t, what="a size in MB, e.g. 200"), text))


def _dashboard_default() -> str:
    """Where ``kifu validate``'s links point: $KIFU_DASHBOARD_URL, else what ``kifu serve`` binds by default."""
    return os.environ.get("KIFU_DASHBOARD_URL") or "http://127.0.0.1:8501"


#: The subcommands (``kifu COMMAND``).
COMMANDS = ("ingest", "validate", "play", "dealer", "watch", "export", "replay-log", "serve")


def main(argv: list[str] | None = None) -> int:
    raw = sys.argv[1:] if argv is None else argv

    def wanted(command: str) -> bool:
        """Whether ``command``'s arguments may be asked for: it is the command run, or none is (``kifu --help``,
        an unknown one).  Those whose definition imports much (the watcher's sources, the lake's formats) are
        only made then: ``kifu dealer`` listens sooner."""
        return not raw or raw[0] == command or raw[0] not in COMMANDS

    parser = argparse.ArgumentParser(
        prog="kifu", description="Kifu: game-log analytics for ALGORI UNO, Kakomimasu and CHaser — ingest contest logs, "
        "check every move against the rules, browse and replay them in a dashboard."
    )
    parser.add_argument("--version", action="version", version=f"kifu {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="load logs of any of the three games (ALGORI dealer logs or MongoDB activities, Kakomimasu game JSON, "
                   "CHaser server logs) into DuckDB",
                   description="Load logs of ALGORI UNO (dealer logs, MongoDB activities), Kakomimasu "
                   "(game JSON) and CHaser (server logs, maps) into a DuckDB database, each told apart by "
                   "its content, and replay every game through Kifu's rules validator.",
                   epilog="Prints a summary (records, new, already present, quarantined with the reason, "
                   "files skipped). A Kakomimasu URL that fails (unreachable, an error status, or a bound hit: "
                   "--http-timeout, --http-max-bytes, a redirect to another origin) is said in one line and the "
                   "rest is ingested. Exit status: 0 when something was ingested or already there; 1 when "
                   "nothing could be ingested (the database is left as it was, or none is made) or the "
                   "database cannot be used; 2 on a bad argument or setting. Environment: KIFU_DB (the "
                   "default --db); KIFU_MEMORY_LIMIT (DuckDB's memory cap: a number and a unit, "
                   "KB/MB/GB/TB or KiB/MiB/GiB/TiB, e.g. 256MB, 1.5GB, 2GiB; default 256MB); "
                   "KIFU_MONGO_URI.")  # fmt: skip
    p.add_argument("paths", nargs="*", help="log files, directories or globs, any mix of games: ALGORI dealer logs (.jsonl, mongoexport, JSON array), "
                   "Kakomimasu game JSON (.json), CHaser server logs (.txt/.log) and maps (.map); optionally .gz; "
                   "or a Kakomimasu server's match URL (https://host/v1/matches/ID)")
    p.add_argument("--db", default=_db_default(), help="DuckDB database file (default: %(default)s)")
    p.add_argument("--sample", action="store_true", help="ingest the bundled sample logs (an ALGORI match, a Kakomimasu game, a CHaser game)")
    p.add_argument("--mongo-uri", help="ALGORI: read the dealer's MongoDB instead of files, e.g. mongodb://uno:uno@localhost:27017 "
                   "(visible to other users in `ps`: prefer --mongo-uri-file or KIFU_MONGO_URI)")
    p.add_argument("--mongo-uri-file", help="read the MongoDB URI from the first line of this file")
    p.add_argument("--database", default="uno-local",
                   help="ALGORI: the dealer's MongoDB database (default: %(default)s)")
    p.add_argument("--collection", default="activities",
                   help="ALGORI: the MongoDB collection (default: %(default)s)")
    p.add_argument("--dealer", help="ALGORI: only this dealer name (MongoDB)")
    p.add_argument("--dealer-code", help="ALGORI: only this dealer code (MongoDB)")
    p.add_argument("--jobs", "-j", type=_jobs, default=None, metavar="N",
                   help="worker processes: several large log files (a season) are ingested whole side by side, "
                   "one file per worker; one file's ALGORI rounds and Kakomimasu and CHaser games are replayed in "
                   "them (default: every core; 1: none beside this one)")
    p.add_argument("--ruleset", metavar="ID",
                   help="UNO: judge every match by this rule profile (e.g. jua-2016, algori-2023/bind_2), for logs "
                   "that do not name theirs (default: the profile the log names in first-player.contents.ruleset, "
                   "else its ALGORI white-wild setting)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    from kifu import watchcmd

    if wanted("ingest"):
        watchcmd.add_network_arguments(p, watch=False)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("validate", help="print, per match and bot, how the match ended, every penalty with the finding "
                       "that explains it, and the validator's findings (every game)",
                       description="Report, from a database made by `kifu ingest`, per match (ALGORI UNO, "
                       "Kakomimasu, CHaser) and per bot: how the match ended, every penalty the dealer gave "
                       "with the validator's finding that explains it, the findings by check and think "
                       "times, each with a link to the dashboard page that shows it.",
                       epilog="Exit status: 0 when the report is printed; 1 when --fail-on finds findings of "
                       "that severity, or the database is missing, empty or not Kifu's; 2 on a bad "
                       "argument: an unknown --match or --player (the known ones are listed), a --db "
                       "that is a folder, a bad --dashboard-url. Environment: KIFU_DB (the default --db); "
                       "KIFU_DASHBOARD_URL (the default --dashboard-url).")  # fmt: skip
    p.add_argument("--db", default=_db_default(), help="DuckDB database file, made by `kifu ingest` (default: %(default)s)")
    p.add_argument("--match", help="match id (Kakomimasu, CHaser: also the game's id without Kifu's kakomimasu:/chaser: "
                   "prefix; ALGORI: also dealer code or dealer name), the start of an id as `kifu watch` prints it, a "
                   "CHaser game's logged timestamp, or the name of the match's log file (default: every match)")
    p.add_argument("--player", help="player name (exact) or code (any case, e.g. COOL or Cool): only that player, in the "
                   "matches it played (default: every player)")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                   help="text for a terminal, json for a program (every player of a match listed, its lists empty when "
                   "it has nothing), markdown for a document or a CI summary (default: %(default)s)")
    p.add_argument("--fail-on", choices=("error", "warning"),
                   help="exit 1 when the selected bot(s) have player-rule findings of this severity or worse (for CI)")
    p.add_argument("--dashboard-url", default=_dashboard_default(),
                   help="the dashboard the links point to (default: $KIFU_DASHBOARD_URL or %(default)s)")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("play", help="referee a UNO match between bots under any rule profile and write its log "
                       "(fast local self-play)",
                       description="Play a whole UNO match between bots — built-in or your own Python function — "
                       "under a rule profile (the JUA competition rules, the ALGORI 2023 rules) and write the log in "
                       "the dealer's activity-log shape, ready for `kifu ingest`. Same seed, same log, byte for byte.",
                       epilog="Bots: random (a random legal card), greedy (sheds high points first), stacker (stacks "
                       "and challenges whenever allowed), sloppy (breaks a rule at --sloppy-rate), or "
                       "path/to/bot.py:function (docs/referee.md: the player's view in, an action out). Profiles: "
                       "jua-2016, algori-2023/skip_bind_2, …; options as jua-2016(rounds=3,first_wild_color=left). "
                       "Your own bot runs in its own process, on a clock per action (--bot-timeout-ms). "
                       "Exit status: 0 when the match was written; 1 when a bot failed (the message names it, the "
                       "round and the turn; the log so far is kept as FILE.partial); 2 on a bad argument.")  # fmt: skip
    p.add_argument("--ruleset", default="jua-2016", help="rule profile id (default: %(default)s)")
    p.add_argument("--players", type=int, help="number of players (default: the number of --bots, else 4)")
    p.add_argument("--rounds", type=int, help="rounds in the match (default: the profile's, 5 for jua-2016)")
    p.add_argument("--seed", type=int, default=1, help="random seed: the deal and the bots' choices (default: %(default)s)")
    p.add_argument("--bots", default="random,greedy,stacker,random",
                   help="comma-separated bots, seat by seat, repeated to fill the seats (default: %(default)s)")
    p.add_argument("--bot", action="append", default=[], metavar="PATH.py:FUNCTION",
                   help="your own bot, in the first seats (repeatable)")
    p.add_argument("--bot-timeout-ms", type=int, metavar="MS",
                   help="the clock of each action of your own bot: past it the ALGORI profiles give the dealer's "
                   "timeout penalty, jua-2016 (no timeout rule) stops the match (default: the profile's, 5000)")
    p.add_argument("--names", help="comma-separated player names, seat by seat (default: the bot kind and seat, e.g. sloppy-4)")
    p.add_argument("--name", help="the match's name, as the dashboard lists it (the dealer's name in the log; default: "
                   "made from the players' names and the seed, e.g. \"random-1, greedy-2, stacker-3, random-4 · seed 1\")")
    p.add_argument("--sloppy-rate", type=float, default=0.2, help="how often a sloppy bot breaks a rule, 0–1 (default: %(default)s)")
    p.add_argument("--out", "-o", required=True, help="the log file to write (.jsonl, or .jsonl.gz compressed; - for stdout)")
    p.add_argument("--ingest", action="store_true", help="ingest the log into --db once it is written")
    p.add_argument("--db", default=_db_default(), help="with --ingest: the DuckDB database file (default: %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("dealer", help="serve one ALGORI 2023 match to socket.io players (the contest's dealer "
                       "protocol), referee it, write its log and store it live",
                       description="Be the ALGORI 2023 dealer for one match: players in any language connect with "
                       "socket.io 2.x and join --room; when the four seats are full (or filled with --fill bots) "
                       "the match is played by Kifu's referee, with the system specification's events, errors, "
                       "penalties and 5-second clock. The log is written line by line in the dealer's shape and "
                       "followed into --db as it is written (as kifu watch follows it), findings told as they come.",
                       epilog="Exit status: 0 when the match completed and is stored; 1 when it did not (the "
                       "one-line reason says why), it could not be stored, or --fail-on found a finding; 2 on a bad "
                       "argument; 130 on Ctrl-C (what was played is stored).")  # fmt: skip
    p.add_argument("--room", required=True, help="the dealer name players join (their room_name)")
    p.add_argument("--rounds", type=int, required=True, help="rounds in the match")
    p.add_argument("--white-wild", choices=("bind_2", "skip_bind_2", "none"), default="skip_bind_2",
                   help="the white wild's effect (default: %(default)s)")
    p.add_argument("--port", type=_port, default=8080, help="port to listen on (default: %(default)s)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s, this machine only)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the deck (default: %(default)s)")
    p.add_argument("--timeout-ms", type=int, default=5000, help="a player's time to act (default: %(default)s)")
    p.add_argument("--join-wait", type=float, default=None, metavar="SECONDS",
                   help="seconds to wait for the players to join; who is still awaited is said every 15 s "
                   "(default: 120, at most 86400)")  # referee.dealer_server.JOIN_WAIT_S
    p.add_argument("--fill", nargs="*", default=[], metavar="BOT",
                   help="built-in bots (random, greedy, stacker) taking the last seats")
    p.add_argument("--db", required=True, help="the DuckDB database file the match is stored into as it is played "
                   "(`kifu serve --db` on it shows the match live)")
    p.add_argument("--player", metavar="NAME", help="tell only the findings about this player (its code or name)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="findings as text lines, or one JSON object per line for tools (default: %(default)s)")
    p.add_argument("--fail-on", choices=("error", "warning"),
                   help="exit 1 at the end if there was a finding of this severity or worse (of --player's, if given)")
    p.add_argument("--pace", choices=("fast", "official"), default="fast",
                   help="official: wait 10 ms where the official dealer does (at least three times per card "
                   "played); fast: no waits (default: %(default)s)")
    p.add_argument("--out", "-o", help="the log file (default: kifu-dealer-ROOM.jsonl)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress messages")
    p.set_defaults(func=cmd_dealer)

    p = sub.add_parser("watch", help="follow logs while matches are played (dealer log files, folders, the dealer's "
                       "MongoDB, a Kakomimasu server, CHaser logs), ingest what they add and print each finding at once",
                       description="Follow sources while matches are played and ingest what they add, batch by batch, "
                       "into the database (which `kifu serve` keeps showing, the matches being played marked live). "
                       "Each new finding is printed at once: time, match, round/turn, player, severity, check and "
                       "message. Ctrl-C or SIGTERM stops it cleanly; started again, it goes on where it stopped.",
                       epilog="Exit status: 0 when stopped (or every Kakomimasu game followed has ended); 1 when "
                       "--fail-on fired, a source or the database cannot be used, or a source was given up because "
                       "it hit a bound (--http-timeout, --http-max-bytes, a redirect to another origin, --http-stall, "
                       "--http-follow: said in one line; the other sources go on); 2 on a bad argument. "
                       "Environment: KIFU_DB, KIFU_MONGO_URI, KIFU_MEMORY_LIMIT. How it works: docs/live.md.")  # fmt: skip
    from kifu import watchcmd

    if wanted("watch"):
        watchcmd.add_arguments(p, _db_default())
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("export", help="write every table as a Hive-partitioned Parquet (or CSV) lake, one folder per "
                       "game and match, for pandas, Polars, Spark or DuckDB",
                       description="Write every table of a database made by `kifu ingest` into a folder: tables with "
                       "a match_id partitioned by game and match (DIR/<table>/game=G/match_id=M/part-0.parquet), the "
                       "others whole, and DIR/_kifu_lake.json (schema version, columns). Exporting a match again "
                       "replaces its folders only. docs/export.md",
                       epilog="Exit status: 0 when the lake is written; 1 when the database is locked, the lake "
                       "cannot be written, or a match was skipped (its folders cannot be made: listed, every other "
                       "match written); 2 on a bad argument (a missing database or not Kifu's, a --to of another "
                       "schema version or not a lake, an unknown --match or --game). Environment: KIFU_DB.")  # fmt: skip
    if wanted("export"):
        from kifu import export

        export.add_arguments(p, _db_default())
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("replay-log", help="write a recorded log again line by line at its recorded pace × --speed "
                       "(to a file or a MongoDB collection), for watching a recorded match again",
                       add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_replay_log)

    p = sub.add_parser("serve", help="start the dashboard on 127.0.0.1: every game's matches, replays and "
                       "findings (ALGORI UNO, Kakomimasu, CHaser), and an Upload page",
                       description="Serve the dashboard over a database made by `kifu ingest`: matches, "
                       "replays and findings of ALGORI UNO, Kakomimasu and CHaser, and an Upload page for "
                       "logs of any of them.",
                       epilog="Environment: KIFU_DB (the default --db); KIFU_MEMORY_LIMIT (DuckDB's memory "
                       "cap, e.g. 512MB, 1.5GB, 2GiB; default 512MB); KIFU_UPLOAD (on or off); "
                       "KIFU_UPLOAD_TOKEN; KIFU_UPLOAD_JOBS (processes per upload); KIFU_UPLOAD_BUDGET_MB "
                       "(room for uploads being ingested).")  # fmt: skip
    p.add_argument("--db", default=_db_default(),
                   help="DuckDB database file, made by `kifu ingest` (default: %(default)s)")
    p.add_argument("--port", type=_port, default=8501,
                   help="port to listen on, 1–65535 (default: %(default)s)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    p.add_argument("--max-upload-mb", type=_upload_mb, default=200,
                   help="upload size limit in MB, more than zero (default: %(default)s)")
    p.add_argument("--allow-upload", action="store_true",
                   help="keep the Upload page open to anyone when binding beyond loopback (off by default there)")
    p.add_argument("--upload-token-file",
                   help="ask uploaders for the token on the first line of this file (or set KIFU_UPLOAD_TOKEN)")
    p.add_argument("--show-errors", action="store_true",
                   help="show exception details in the browser (for debugging; by default visitors see a generic message)")
    p.set_defaults(func=cmd_serve)

    if raw[:1] == ["replay-log"]:  # its own parser: options may come before the file
        return _replay_log(list(raw[1:]))
    args = _parse(parser, sub, raw)
    prog = f"kifu {args.command}"
    from kifu import paths

    refused = paths.check(paths.command_paths(args.command, args))
    if refused is not None:
        print(refused.line(prog), file=sys.stderr)
        return refused.status
    previous = _interrupt_on_sigterm() if args.command == "ingest" else None
    db = getattr(args, "db", None)
    existed = bool(db) and os.path.exists(db)
    try:
        return int(args.func(args))
    except OSError as exc:  # a path the system refused while the command worked: one line, no traceback
        refused = paths.refusal(exc, None if exc.filename is not None else paths.written(args.command, args, exc))
        print(refused.line(prog), file=sys.stderr)
        return refused.status
    except KeyboardInterrupt:
        return _interrupted(db, existed)
    except RuntimeError as exc:  # DuckDB turns a Ctrl-C during a query into "Query interrupted"
        if "interrupted" not in str(exc).lower():
            raise
        return _interrupted(db, existed)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _replay_log(rest: list[str]) -> int:
    """``kifu replay-log``: its own parser; its paths checked and its OSErrors told as every command's."""
    from kifu import paths, replay_log

    prog = "kifu replay-log"
    try:
        args, _ = replay_log._parser().parse_known_args(rest)
    except (SystemExit, replay_log._BadArgument):  # --help, or a usage error: replay_log.main says it
        args = None
    if args is not None:
        refused = paths.check(paths.command_paths("replay-log", args))
        if refused is not None:
            print(refused.line(prog), file=sys.stderr)
            return refused.status
    try:
        return int(replay_log.main(rest))
    except OSError as exc:
        refused = paths.refusal(exc)
        print(refused.line(prog), file=sys.stderr)
        return refused.status


def _parse(parser: argparse.ArgumentParser, sub: Any, raw: list[str]) -> argparse.Namespace:
    """``parser.parse_args(raw)``, but an unknown option of a subcommand is told by that subcommand: its usage
    and the nearest option it has ("did you mean --ruleset?"), not the top-level usage."""
    import difflib

    args, extras = parser.parse_known_args(raw)
    if not extras:
        return args
    command = sub.choices.get(args.command) if getattr(args, "command", None) else None
    if command is None:
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    options = sorted({o for a in command._actions for o in a.option_strings if o.startswith("--")})
    first = extras[0]
    unknown = first.split("=", 1)[0]
    hint = ""
    if unknown.startswith("-"):
        near = difflib.get_close_matches(unknown, options, n=1, cutoff=0.6)
        if near:
            hint = f" (did you mean {near[0]}?)"
    command.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
    raise AssertionError("unreachable")  # pragma: no cover


#: Set when SIGTERM (not Ctrl-C) ended the run: the exit status is then 143 (128 + SIGTERM), not 130.
_terminated = False


def _interrupted(db: Any, existed: bool) -> int:
    """One line for a run ended by Ctrl-C or SIGTERM; exit 130 (Ctrl-C) or 143 (SIGTERM)."""
    left = "the database is unchanged" if existed or (db and Path(db).exists()) else "no database was made"
    print(f"kifu: interrupted; {left}", file=sys.stderr)
    return 143 if _terminated else 130


def _interrupt_on_sigterm() -> Any:
    """SIGTERM ends a run like Ctrl-C: the copy being written is removed, the database kept."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum: int, frame: Any) -> None:
        global _terminated
        _terminated = True
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, stop)


def _progress_factory(enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    from common.safe import terminal

    def make(source: Any) -> Any:
        if source.kind == "file":
            return tqdm(
                total=source.size, unit="B", unit_scale=True, unit_divisor=1024,
                desc=terminal(Path(source.name).name)[:40], leave=False, file=sys.stderr,  # a name is untrusted
                dynamic_ncols=True, mininterval=0.5,
            )  # fmt: skip
        return tqdm(
            total=getattr(source, "size", None) or None, unit=" rec", desc="mongodb",
            leave=False, file=sys.stderr, mininterval=0.5,
        )  # fmt: skip

    return make


def _mongo_uri(args: argparse.Namespace) -> str | None:
    """The MongoDB URI: --mongo-uri, else the first line of --mongo-uri-file, else $KIFU_MONGO_URI."""
    if getattr(args, "files_only", False):  # kifu play --ingest: the log just written, nothing else
        return None
    from loaders.core.sources import SourceError

    if args.mongo_uri:
        return str(args.mongo_uri)
    if args.mongo_uri_file:
        try:
            lines = Path(args.mongo_uri_file).read_text(encoding="utf-8").strip().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise SourceError(f"--mongo-uri-file {args.mongo_uri_file}: cannot read it ({exc.__class__.__name__})") from None
        if not lines:
            raise SourceError(f"--mongo-uri-file {args.mongo_uri_file}: the file is empty")
        return lines[0].strip()
    return os.environ.get("KIFU_MONGO_URI") or None


def cmd_ingest(args: argparse.Namespace) -> int:
    """Exit 0: something ingested (or already there); 1: nothing could be, or no usable database;
    2: a bad setting."""
    from common.safe import terminal
    from common.settings import SettingError, database_path, memory_limit
    from loaders.pipeline import open_sources, print_summary
    from loaders.live.swap import ingest_swapped
    from loaders.core.sources import SourceError
    from queries import DatabaseError

    try:
        memory_limit()
        database_path(args.db, name=_db_name(args.db))
    except SettingError as exc:
        print(f"kifu ingest: {exc}", file=sys.stderr)
        return 2
    ruleset = None
    if getattr(args, "ruleset", None):
        from rules.uno.profile import get as get_profile

        try:
            ruleset = get_profile(args.ruleset)
        except ValueError as exc:
            print(f"kifu ingest: --ruleset: {exc}", file=sys.stderr)
            return 2
    urls = [p for p in args.paths if p.startswith(("http://", "https://"))]
    paths = [p for p in args.paths if p not in urls]
    if args.sample:
        paths.extend(str(p) for p in SAMPLES)
    skipped: list[Path] = []
    try:
        sources: list[Any] = open_sources(paths, skipped) if paths else []
        failed = 0
        if urls:  # a Kakomimasu server's match resource (GET /v1/matches/ID): the game as it stands
            from kifu.watchcmd import http_bounds
            from loaders.core.feeds import BytesSource, fetch

            for url in urls:  # each within its bounds; one that fails is said and the rest goes on
                try:
                    sources.append(BytesSource(url, fetch(url, http_bounds(args))))
                except SourceError as exc:
                    failed += 1
                    print(f"kifu ingest: {terminal(exc)} — not ingested", file=sys.stderr, flush=True)
        mongo_uri = _mongo_uri(args)
        if mongo_uri:
            from loaders.core.mongo import MongoSource

            src = MongoSource(
                mongo_uri, args.database, args.collection,
                dealer=args.dealer, dealer_code=args.dealer_code,
                timeout_ms=int(args.mongo_timeout * 1000),
            )  # fmt: skip
            src.size = src.count()
            sources.append(src)
        if not sources and failed:
            left = "the database is unchanged" if Path(args.db).exists() else "no database was made"
            print(f"kifu ingest: nothing could be ingested; {left}", file=sys.stderr)
            return 1
        if not sources:
            print("kifu ingest: give log files, a directory, --sample or a MongoDB URI "
                  "(--mongo-uri, --mongo-uri-file or KIFU_MONGO_URI)", file=sys.stderr)  # fmt: skip
            return 2
        report = None
        if not mongo_uri:  # a kifu watch writing into the database reads the files itself (docs/live.md)
            report = _hand_over(args, sources)
        if report is None:
            report = ingest_swapped(sources, args.db, progress=_progress_factory(not args.no_progress),
                                    jobs=args.jobs or _cores(), ruleset=ruleset,
                                    waiting=lambda msg: print(f"kifu ingest: {terminal(msg)}", file=sys.stderr,
                                                              flush=True))  # fmt: skip
    except _HandOverStopped as exc:
        print(f"kifu ingest: interrupted; kifu watch{f' (process {exc.pid})' if exc.pid else ''} stops reading "
              f"these files — what it stored of them ({exc.stored:,} records read) stays in the database",
              file=sys.stderr)  # fmt: skip
        return 143 if _terminated else 130
    except (SourceError, DatabaseError, SettingError) as exc:
        print(f"kifu ingest: {terminal(exc)}", file=sys.stderr)
        return 1
    report.skipped = [str(p) for p in skipped]
    print_summary(report)
    for src in sources:  # a MongoDB read ended early: what it read is ingested, the rest said in one line
        if getattr(src, "cut_short", None):
            print(f"kifu ingest: {terminal(src.cut_short)} — run again to read the rest", file=sys.stderr)
    if report.status == "empty" or report.database == "not made":
        left = {"unchanged": "; the database is unchanged",
                "not made": "; no database was made"}.get(report.database, "")  # fmt: skip
        print(f"kifu ingest: nothing could be ingested{left}", file=sys.stderr)
        return 1
    return 0


class _HandOverStopped(Exception):
    def __init__(self, stored: int, pid: int | None) -> None:
        super().__init__(stored)
        self.stored, self.pid = stored, pid


def _hand_over(args: argparse.Namespace, sources: list[Any]) -> Any:
    """The report of a ``kifu watch`` on ``args.db`` that read ``sources`` for this ingest, or None (no watcher, or
    it could not: the ingest then swaps a copy in, as without one).  Ctrl-C/SIGTERM: :class:`_HandOverStopped`."""
    from common.safe import terminal
    from loaders.live import handoff
    from queries.sharing import watcher_present

    if not watcher_present(Path(args.db).resolve()):
        return None
    bar: list[Any] = []

    def progress(done: int, total: int) -> None:
        if args.no_progress or not total:
            return
        if not bar:
            from tqdm import tqdm

            bar.append(tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc="read by kifu watch",
                            leave=False, file=sys.stderr, dynamic_ncols=True, mininterval=0.5))  # fmt: skip
        bar[0].update(max(0, min(done, total) - bar[0].n))

    def say(text: str) -> None:
        if bar:
            bar[0].clear()
        print(terminal(text if text.startswith("kifu ingest:") else f"kifu ingest: {text}"), file=sys.stderr,
              flush=True)  # fmt: skip

    try:
        report = handoff.hand_over(args.db, sources, ruleset=getattr(args, "ruleset", None), say=say,
                                   progress=progress)  # fmt: skip
    except handoff.Interrupted as exc:
        raise _HandOverStopped(exc.stored, exc.pid) from None
    finally:
        if bar:
            bar[0].close()
    if report is not None and report.status == "empty":
        report.database = "written" if report.quarantined else "unchanged"  # quarantined records are stored
    return report


def cmd_play(args: argparse.Namespace) -> int:
    """Exit 0: the match was written (and ingested); 1: a bot failed (the log so far kept) or the ingest did;
    2: a bad argument."""
    from referee.play import PlayError, play

    try:
        written = play(args)
    except PlayError as exc:
        print(f"kifu play: {exc}", file=sys.stderr)
        return exc.status
    if not args.ingest or args.out == "-":
        return 0
    ingest = argparse.Namespace(**{**vars(args), "paths": [str(written)], "sample": False, "mongo_uri": None,
                                   "mongo_uri_file": None, "database": "uno-local", "collection": "activities",
                                   "dealer": None, "dealer_code": None, "jobs": None, "files_only": True,
                                   "ruleset": None})  # fmt: skip
    return cmd_ingest(ingest)


def cmd_dealer(args: argparse.Namespace) -> int:
    from kifu.dealercmd import run

    return run(args, _port_busy)


def _dashboard_ok(url: str) -> bool:
    """An http(s) URL that goes into a Markdown link and a terminal as it is: printable ASCII, no space or
    character that would end a link."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return (parts.scheme in ("http", "https") and bool(parts.netloc) and url.isascii() and url.isprintable()
            and not any(ch in url for ch in ' <>()"\'`\\'))  # fmt: skip


def cmd_validate(args: argparse.Namespace) -> int:
    """Exit 0: report printed; 1: --fail-on findings exist (or no usable database); 2: unknown match or
    player, or a bad --dashboard-url."""
    import queries
    from kifu import report
    from common.safe import terminal
    from common.settings import SettingError, database_path
    from queries import validation

    if not _dashboard_ok(args.dashboard_url):
        print(f"kifu validate: --dashboard-url must be an http(s) URL such as http://127.0.0.1:8501 "
              f"(got '{terminal(args.dashboard_url)}')", file=sys.stderr)  # fmt: skip
        return 2
    try:
        database_path(args.db, name=_db_name(args.db))
    except SettingError as exc:
        print(f"kifu validate: {exc}", file=sys.stderr)
        return 2
    try:
        con = queries.connect(args.db, read_only=True)
        queries.check_schema(con, upgrade=True)
    except queries.DatabaseError as exc:
        print(f"kifu validate: {terminal(exc)}", file=sys.stderr)
        return 1
    try:
        if validation.known_matches(con).empty:
            print(f"kifu validate: {terminal(args.db)} holds no match yet — run `kifu ingest` first",
                  file=sys.stderr)  # fmt: skip
            return 1
        match = _resolve_match(con, args.match) if args.match else None
        if isinstance(match, list):  # the name fits several matches
            names = "".join(f"\n  {terminal(m)}" for m in match[:KNOWN_SHOWN])
            more = f"\n  … and {len(match) - KNOWN_SHOWN} more" if len(match) > KNOWN_SHOWN else ""
            print(f"kifu validate: --match '{terminal(args.match)}' names {len(match)} matches; give one of:{names}{more}",
                  file=sys.stderr)  # fmt: skip
            return 2
        if args.match and match is None:
            known = validation.match_labels(con)
            names = "".join(f"\n  {terminal(_match_label(r))}" for r in known.to_dict("records"))
            print(f"kifu validate: no match '{terminal(args.match)}' in {terminal(args.db)}; known:{names}",
                  file=sys.stderr)  # fmt: skip
            return 2
        player = args.player
        if player:
            players = validation.known_players(con, match)
            player = _resolve_player(players, player)
            if player is None:
                where = "the selected match" if args.match else "any match"
                print(f"kifu validate: no player '{terminal(args.player)}' in {where}; known:"
                      f"{_known_players(players)}", file=sys.stderr)  # fmt: skip
                return 2
            bots = _bots_of_code(players, player)
            if len(bots) > 1:
                print(f"kifu validate: {terminal(player)} is a different bot in different matches "
                      f"({', '.join(terminal(b) for b in bots)}): give --match or a name", file=sys.stderr)  # fmt: skip
        data = report.build(validation.report_matches(con, match, player),
                            validation.report_counts(con, match, player),
                            validation.report_causes(con, match, player),
                            validation.think_times(con, match, player),
                            validation.report_penalties(con, match, player),
                            validation.report_scores(con, match),
                            dashboard=args.dashboard_url, player=player)  # fmt: skip
    finally:
        con.close()
    text = {"json": report.to_json, "markdown": report.to_markdown}.get(args.format, report.to_text)(data)
    sys.stdout.write(text)
    if args.fail_on:
        worst = report.failing(data, args.fail_on)
        if worst:
            print(f"kifu validate: {worst} player-rule finding(s) of severity {args.fail_on} or worse",
                  file=sys.stderr)  # fmt: skip
            return 1
    return 0


#: Players the "known:" hint lists before it says how many more there are.
KNOWN_SHOWN = 30


def _resolve_match(con: Any, match: str) -> str | list[str] | None:
    """The --match as the database spells it (None: no such match; a list: the several it names): as given,
    else a Kakomimasu or CHaser game's id with Kifu's ``kakomimasu:``/``chaser:`` prefix put in front, its log
    file's name, or the start of its id as ``kifu watch`` prints it (``kifu.matchref``)."""
    from kifu.matchref import resolve
    from queries import validation

    for candidate in (match, f"kakomimasu:{match}", f"chaser:{match}"):
        if not validation.report_matches(con, candidate).empty:
            return candidate
    found = resolve(match, validation.match_sources(con))
    if len(found) == 1:
        return found[0]
    return found or None


def _resolve_player(players: Any, player: str) -> str | None:
    """The --player as the database spells it (None: nobody): a name exactly, else a code in any case
    (CHaser's COOL/HOT, shown as "Cool"/"Hot"; ALGORI's p-00000005)."""
    if (players["player_name"] == player).any() or (players["player_code"] == player).any():
        return player
    want = player.casefold()
    codes = sorted({str(c) for c in players["player_code"].dropna() if str(c).casefold() == want})
    return codes[0] if len(codes) == 1 else None


def _bots_of_code(players: Any, player: str) -> list[str]:
    """The different names a player code has in different matches (ALGORI numbers players per dealer, so
    P-00000005 can be two bots); [] when ``player`` is a name."""
    if (players["player_name"] == player).any():
        return []
    names = players.loc[players["player_code"] == player, "player_name"].dropna()
    return sorted({str(n) for n in names if n and n != player})


def _known_players(players: Any) -> str:
    """The "known:" hint of an unknown --player: one player a line, the first KNOWN_SHOWN of them."""
    from common.safe import terminal

    labels = [_player_label(r) for r in players.to_dict("records")]
    lines = "".join(f"\n  {terminal(x)}" for x in labels[:KNOWN_SHOWN])
    more = len(labels) - KNOWN_SHOWN
    return lines + (f"\n  … and {more} more" if more > 0 else "")


def _player_label(r: dict[str, Any]) -> str:
    """A player as the "known:" hint lists it: its name, and its code when that differs."""
    name, code = r.get("player_name"), r.get("player_code")
    if not isinstance(name, str) or not name or name == code or str(code).startswith(name + "#"):
        return str(code)
    return f"{name} ({code})"


def _match_label(r: dict[str, Any]) -> str:
    """A match as the "known:" hint lists it: game · name · board or map · id (ALGORI: dealer code too)."""
    from kifu.report import GAME_TITLES

    parts = [GAME_TITLES.get(str(r["game"]), str(r["game"]))]
    for key in ("name", "dealer_code", "board"):
        v = r.get(key)
        if isinstance(v, str) and v:
            parts.append(v if key != "board" else ("map " if r["game"] == "chaser" else "board ") + v)
    parts.append(str(r["match_id"]))
    return " · ".join(parts)


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _serve_settings(args: argparse.Namespace) -> str | None:
    """What is wrong with the dashboard's settings (environment, --db), in one line (None: nothing)."""
    from common import settings

    try:
        settings.memory_limit(default=settings.DASHBOARD_MEMORY)
        settings.switch("KIFU_UPLOAD")
        for var, what in (("KIFU_UPLOAD_JOBS", "a number of processes, e.g. 2"),
                          ("KIFU_UPLOAD_BUDGET_MB", "a size in MB, e.g. 1024")):  # fmt: skip
            if os.environ.get(var, "").strip():
                settings.positive_int(os.environ[var], what=what, name=var)
        settings.database_path(args.db, name=_db_name(args.db))
    except settings.SettingError as exc:
        return str(exc)
    return None


def cmd_watch(args: argparse.Namespace) -> int:
    from kifu import watchcmd
    from loaders.core.sources import SourceError

    try:
        uri = _mongo_uri(args)
    except SourceError as exc:
        print(f"kifu watch: {exc}", file=sys.stderr)
        return 2
    return watchcmd.run(args, uri)


def cmd_export(args: argparse.Namespace) -> int:
    from kifu import export

    return export.run(args)


def cmd_replay_log(args: argparse.Namespace) -> int:
    from kifu import replay_log

    return int(replay_log.main(list(args.rest)))


def cmd_serve(args: argparse.Namespace) -> int:
    """Exit 2 on a bad setting; 1 when the port is taken; else the server's status.  A database that does not
    exist yet is waited for: the pages say so until `kifu watch` or `kifu ingest` makes it."""
    import shlex

    from streamlit.web import cli as stcli

    from common.safe import terminal

    problem = _serve_settings(args)
    if problem is not None:
        print(f"kifu serve: {problem}", file=sys.stderr)
        return 2
    db = Path(args.db).resolve()
    if not db.exists():  # started before `kifu watch` or `kifu ingest` made it: the pages wait for it
        where = terminal(shlex.quote(str(db)))
        print(f"kifu serve: no database at {terminal(db)} yet — the dashboard starts and shows the matches once "
              f"`kifu watch … --db {where}` or `kifu ingest LOGS --db {where}` makes it (or `kifu ingest --sample "
              f"--db {where}` to try Kifu on the bundled samples)", file=sys.stderr)  # fmt: skip
    os.environ["KIFU_DB"] = str(db)
    app = REPO / "app" / "streamlit_app.py"
    sys.argv = [
        "streamlit", "run", str(app),
        f"--server.address={args.host}", f"--server.port={args.port}",
        "--server.headless=true", "--browser.gatherUsageStats=false",
        f"--server.maxUploadSize={args.max_upload_mb}", "--client.toolbarMode=viewer",
        "--server.fileWatcherType=none",
        f"--client.showErrorDetails={'full' if args.show_errors else 'none'}",
    ]  # fmt: skip
    if args.upload_token_file:
        try:
            token = Path(args.upload_token_file).read_text(encoding="utf-8").strip().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            print(f"kifu serve: --upload-token-file {args.upload_token_file}: cannot read it ({exc.__class__.__name__})",
                  file=sys.stderr)  # fmt: skip
            return 1
        if not token or len(token[0].strip()) < 8:
            print("kifu serve: the upload token must be at least 8 characters", file=sys.stderr)
            return 1
        os.environ["KIFU_UPLOAD_TOKEN"] = token[0].strip()
    public = args.host not in LOOPBACK and not args.host.startswith("127.")
    allow = args.allow_upload or os.environ.get("KIFU_UPLOAD", "").lower() in ("on", "1", "yes", "true")
    if public and not (allow or os.environ.get("KIFU_UPLOAD_TOKEN")):
        os.environ["KIFU_UPLOAD"] = "off"
    if public:
        uploads = ("uploads need the token" if os.environ.get("KIFU_UPLOAD_TOKEN") else
                   "anyone who reaches the port can upload logs" if allow else
                   "uploads are off (--allow-upload or --upload-token-file to allow them)")  # fmt: skip
        print(f"kifu serve: WARNING — binding {args.host} makes the dashboard reachable from other machines, "
              f"with no login: anyone who reaches the port can read every match; {uploads}. Put it behind "
              "a reverse proxy with authentication (docs/deploy.md), or bind 127.0.0.1.", file=sys.stderr)  # fmt: skip
    if _port_busy(args.host, args.port):
        print(f"kifu serve: port {args.port} on {terminal(args.host)} is in use — give another with --port",
              file=sys.stderr)  # fmt: skip
        return 1
    print(f"Kifu dashboard on http://{terminal(args.host)}:{args.port}  (database {terminal(db)})",
          file=sys.stderr)
    _no_address_lookups()
    return int(stcli.main() or 0)


def _no_address_lookups() -> None:
    """Nothing leaves the machine: Streamlit, bound to 0.0.0.0 or ::, asks a third-party host
    (checkip.amazonaws.com) for the machine's external address to print it, and again to judge a
    cross-origin WebSocket; it finds its "internal" address by pointing a UDP socket at 8.8.8.8.  No
    configuration option of the pinned Streamlit turns these off, so both are answered "unknown" here:
    Streamlit then prints only the local URL (Kifu prints its own line), and same-origin connections — a
    browser on the address it typed, a proxy passing the Host header — are accepted as before.
    Usage statistics are off by ``--browser.gatherUsageStats=false`` (and ``.streamlit/config.toml``)."""
    from streamlit import net_util

    net_util.get_external_ip = lambda: None  # type: ignore[assignment]
    net_util.get_internal_ip = lambda: None  # type: ignore[assignment]


def _port_busy(host: str, port: int) -> bool:
    """Whether another program listens on ``host``:``port`` (a bind there, as the server will do it with
    SO_REUSEADDR, fails with "address in use").  Any other trouble (an unknown host…) is left to the server
    to report."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError):
        return False
    for family, kind, proto, _, address in infos:
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return True
    return False


if __name__ == "__main__":
    sys.exit(main())
