"""Shared dashboard pieces: the database connection, shared filters, cards and board as HTML.

Every piece of text that comes from a log (player names, special-logic titles, raw
payloads) goes through :func:`esc` before it reaches HTML, and is otherwise shown only
through Streamlit elements that render text, never raw HTML.
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

import queries
from app import i18n, replayer
from common import settings
from queries import sharing as live
from app.i18n import N_, _
from app.rulesets import JUA, RULE_SHORT, rules_family
from queries import dashboard as q

UPLOAD_NOTE = {"open": N_("read-only here; logs can be added on the Upload page"),
               "token": N_("read-only here; uploads need the server's token"), "off": N_("read-only; uploads are off")}


#: Phones: page titles one size smaller, and broken between words only when they must (a Japanese title
#: otherwise wraps one character onto a line of its own: "対戦リプレイヤ／ー"). Kifu's own style, no log text.
PHONE_STYLE = ("<style>"
               # the main area starts just under Streamlit's top bar (6rem by default): the match's header and a
               # board below it stay on a laptop's first screen
               "[data-testid='stMainBlockContainer'] {padding-top: 4rem}"
               "@media (max-width: 640px) {[data-testid='stMain'] h1 {font-size: 1.6rem; word-break: keep-all;"
               " overflow-wrap: anywhere} [data-testid='stMain'] h2, [data-testid='stMain'] h3 {overflow-wrap: anywhere}"
               # the table toolbar (👁 ⬇ 🔍 ⛶) sits above a table: room for it, so it covers no text there
               " [data-testid='stElementContainer']:has([data-testid='stDataFrame']) {margin-top: 2.75rem}"
               # the header naming the match: stacked, each part the full width (the match's name on its lines, the
               # button's words and the bot picker's options whole)
               " .st-key-path-header [data-testid='stHorizontalBlock'] {flex-wrap: wrap; gap: .25rem}"
               " .st-key-path-header [data-testid='stColumn'] {min-width: 100% !important; width: 100% !important;"
               " flex: 1 1 100% !important}"
               # a picker's options (My bot: "name · dealer · game (faults in matches)") on two lines, not cut
               " [role='option'] > div {white-space: normal; line-height: 14px; font-size: .8rem; height: auto;"
               " max-height: 28px}}"
               "</style>")  # fmt: skip


def esc(text: Any) -> str:
    return html.escape("" if text is None else str(text), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~:])")


#: Where Streamlit's Markdown would turn text into a link (``https://…``, ``www.…``, ``a@b.c``), even
#: escaped or inside a code span: a word joiner (U+2060, invisible) goes in, so a URL in a bot's name
#: stays text.
_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(?=://)|(?<=www)(?=\.)|(?=@)")


def _printable(text: Any) -> str:
    """Control characters and line breaks as spaces, and no autolink."""
    s = "".join(ch if ch.isprintable() else " " for ch in ("" if text is None else str(text)))
    return _AUTOLINK.sub("\u2060", s)


def md(text: Any) -> str:
    """Untrusted text (bot, dealer, file names) inside Markdown: every character Streamlit's
    Markdown, KaTeX (``$``), colour/emoji shortcodes (``:red[…]``) or HTML would act on, escaped;
    control characters and line breaks become spaces; URLs and e-mail addresses stay text."""
    return _MD_SPECIAL.sub(r"\\\1", _printable(text))


def code(text: Any) -> str:
    """Untrusted text as a Markdown code span (literal inside; backticks and control characters replaced)."""
    return "`" + _printable(text).replace("`", "'") + "`"


def num(value: Any, default: int | None = None) -> int | None:
    """A table cell as int; ``default`` for NULL, NaN, pandas NA or anything not a number."""
    try:
        return default if value is None or pd.isna(value) else int(value)
    except (TypeError, ValueError):
        return default


def flag(value: Any) -> bool | None:
    """A table cell as bool; None for NULL/NA."""
    try:
        return None if value is None or pd.isna(value) else bool(value)
    except (TypeError, ValueError):
        return None


def db_path() -> Path:
    return Path(os.environ.get("KIFU_DB", queries.DEFAULT_DB)).resolve()


_LOCK = threading.Lock()
_HUB: duckdb.DuckDBPyConnection | None = None
#: database file -> (modification stamp, catalog name it is attached under)
_OPEN: dict[str, tuple[int, str]] = {}
#: catalog -> how many leases (page runs, fragment runs, single queries) use it right now
_USERS: dict[str, int] = {}
_GENERATION = [0]
#: Catalogs of database files without a table yet (an empty file DuckDB made): no data, like no file.
_NO_TABLES: set[str] = set()


def _hub() -> duckdb.DuckDBPyConnection:
    """The process's one in-memory DuckDB; database files are ATTACHed to it read-only."""
    global _HUB
    if _HUB is None:
        limit = _memory_limit()
        try:
            _HUB = _new_hub(limit)
        except duckdb.Error:  # a size DuckDB cannot work in (e.g. 10KB): the default, and a warning
            _MEMORY_REFUSED[0] = limit
            _HUB = _new_hub(settings.DASHBOARD_MEMORY)
    return _HUB


def _new_hub(limit: str) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB capped at ``limit`` (``duckdb.Error`` when DuckDB cannot work in it)."""
    return queries.open_hub(limit)


#: A KIFU_MEMORY_LIMIT that DuckDB refused (the hub runs with the default instead).
_MEMORY_REFUSED: list[str | None] = [None]


def _memory_limit() -> str:
    """KIFU_MEMORY_LIMIT checked (:func:`common.settings.memory_limit`), or the dashboard's default when it is
    not a size (:func:`settings_warning` says so on every page)."""
    try:
        return settings.memory_limit(default=settings.DASHBOARD_MEMORY)
    except settings.SettingError:
        return settings.DASHBOARD_MEMORY


def settings_warning() -> None:
    """A KIFU_MEMORY_LIMIT the dashboard cannot use, said on every page (it runs with its default)."""
    value = os.environ.get(settings.MEMORY_LIMIT, "")
    try:
        settings.memory_limit(default=settings.DASHBOARD_MEMORY)
        bad = _MEMORY_REFUSED[0] is not None
    except settings.SettingError:
        bad = True
    if bad:
        st.warning(_("KIFU_MEMORY_LIMIT is {value}, which the dashboard cannot use: it uses {default} "
                     "instead. Give a number and a unit, e.g. 256MB, 1.5GB or 2GiB, and restart it.").format(
            value=code(value), default=settings.DASHBOARD_MEMORY))  # fmt: skip


def _open(path: Path, broken: str | None = None) -> str:
    """The catalog name under which the current version of ``path`` is attached (attached now if need be).

    An ingest writes a copy and renames it over the file (``loaders.live.swap``).  Each version of
    the file is ATTACHed under its own name (ATTACH bypasses DuckDB's per-path instance cache,
    which would otherwise keep serving the replaced file while any session still reads it);
    the previous version is detached as soon as no page run uses it.  ``broken``: a catalog a
    caller found unusable.  A watcher's gate is the caller's business (:func:`_acquire`).
    """
    stamp = path.stat().st_mtime_ns
    key = str(path)
    with _LOCK:
        return _current_locked(path, key, stamp, broken)


def _current_locked(path: Path, key: str, stamp: int, broken: str | None) -> str:
    """:func:`_open` with ``_LOCK`` held."""
    current = _OPEN.get(key)
    if current is not None and current[0] == stamp and current[1] != broken:
        return current[1]
    hub = _hub()
    _GENERATION[0] += 1
    name = f"kifu_v{_GENERATION[0]}"
    queries.attach_read_only(hub, path, name)
    if not queries.table_count(hub, name):
        _NO_TABLES.add(name)
    _OPEN[key] = (stamp, name)
    _USERS.setdefault(name, 0)
    if current is not None and not _USERS.get(current[1]):  # in use: it goes when its last run ends
        _detach_locked(current[1])
    return name


def _detach_locked(name: str) -> None:
    """Let go of a catalog (``_LOCK`` held): the file is closed, a watcher may write it."""
    _USERS.pop(name, None)
    _NO_TABLES.discard(name)
    for key, (_stamp, current) in list(_OPEN.items()):
        if current == name:
            del _OPEN[key]
    if _HUB is not None:
        try:
            _HUB.execute(f"detach database if exists {name}")
        except duckdb.Error:  # the hub is closing: the file goes with it
            pass


def close_all() -> None:
    """Detach every database and close the hub (tests, shutdown)."""
    global _HUB
    with _LOCK:
        if _HUB is not None:
            _HUB.close()
        _HUB = None
        _OPEN.clear()
        _USERS.clear()
        _NO_TABLES.clear()
        _MEMORY_REFUSED[0] = None


# ----------------------------------------------------------------------------- reading while a watcher writes
#
# A ``kifu watch`` writes the database in place, batch by batch, and DuckDB keeps every writer out
# while any process has the file open (``queries/sharing.py``).  While a watcher is present the
# dashboard therefore holds the file only while a page run uses it: each run (and each fragment
# run) takes a *lease* on the current attachment — through the watcher's gate, so a waiting batch
# is never starved — and gives it back when it ends; the last lease of an attachment detaches it.
# Without a watcher the attachment stays (by modification stamp), as it always did.


class _Busy(OSError):
    """The file stayed locked by a writer for longer than a page waits (the page says "being updated")."""


class _Lease:
    """One run's use of one attachment (its own cursor on it)."""

    __slots__ = ("catalog", "cursor", "key", "path")

    def __init__(self, path: Path, key: str, catalog: str, cursor: duckdb.DuckDBPyConnection) -> None:
        self.path, self.key, self.catalog, self.cursor = path, key, catalog, cursor


#: How long a page run tries to open the file a writer holds before it says "being updated".
READ_WAIT_S = live.READ_WAIT_S
_RUN = threading.local()  # .depth: nested run scopes on this thread; .leases: path -> _Lease
_JANITOR: list[threading.Thread] = []


def _locked(exc: BaseException) -> bool:
    return "lock" in str(exc).lower()


def _take(path: Path, key: str, broken: str | None) -> _Lease:
    """A lease on the current attachment of ``path``, attaching it if need be (the gate, if any, is held)."""
    stamp = path.stat().st_mtime_ns
    with _LOCK:
        name = _current_locked(path, key, stamp, broken)
        cur = _hub().cursor()
        try:
            cur.execute(f"use {name}")
        except duckdb.Error:
            cur.close()
            raise
        _USERS[name] = _USERS.get(name, 0) + 1
        return _Lease(path, key, name, cur)


def _acquire(path: Path, broken: str | None = None) -> _Lease:
    """A lease on ``path`` for this thread: the run's own when a run scope is open (taken once per run),
    else a new one the caller gives back (:func:`_release`) after one query."""
    key = str(path)
    leases = getattr(_RUN, "leases", None) if getattr(_RUN, "depth", 0) else None
    if leases is not None:
        held = leases.get(key)
        if held is not None and held.catalog != broken:
            return held
        if held is not None:  # unusable: give it back before queueing at the gate again
            del leases[key]
            _release(held)
    _start_janitor()
    deadline = time.monotonic() + READ_WAIT_S
    while True:
        try:
            with live.read_gate(path, timeout=max(0.0, deadline - time.monotonic())):
                lease = _take(path, key, broken)
            break
        except queries.DatabaseError as exc:  # a writer got in between (a watcher that has just started)
            if not _locked(exc) or not live.watcher_present(path):
                raise  # another program holds the file for writing: said as it is ("locked")
            if time.monotonic() >= deadline:
                raise _Busy(str(exc)) from None
            broken = None
            time.sleep(live.RETRY_S)
    if leases is not None:
        leases[key] = lease
    return lease


def _release(lease: _Lease) -> None:
    """Give a lease back; the last one of an attachment detaches it when the file was replaced or a watcher
    is writing it (the watcher's next batch waits for nothing else)."""
    watched = live.watcher_present(lease.path)
    with _LOCK:
        try:
            lease.cursor.close()
        except duckdb.Error:
            pass
        left = _USERS.get(lease.catalog)
        if left is None:  # detached already (close_all)
            return
        _USERS[lease.catalog] = left = max(0, left - 1)
        current = _OPEN.get(lease.key)
        if not left and (watched or current is None or current[1] != lease.catalog):
            _detach_locked(lease.catalog)


def begin_run() -> None:
    """A script run starts (``streamlit_app.py``): what this thread still holds from an earlier run goes."""
    _end_scope()
    _RUN.depth, _RUN.leases = 1, {}


def end_run() -> None:
    """A script run ends (``finally`` in ``streamlit_app.py``): its leases are given back."""
    _RUN.depth = 0
    _end_scope()


def _end_scope() -> None:
    leases = getattr(_RUN, "leases", None) or {}
    _RUN.leases = {}
    for lease in leases.values():
        _release(lease)


@contextmanager
def reading() -> Iterator[None]:
    """A run scope: every query inside shares one lease per database file, given back at the end of the
    outermost scope (a fragment's own run, a deferred download).  Nested inside a script run it adds nothing."""
    depth = getattr(_RUN, "depth", 0)
    if not depth:
        _RUN.leases = {}
    _RUN.depth = depth + 1
    try:
        yield
    finally:
        _RUN.depth = depth
        if not depth:
            _end_scope()


def fragment(fn: Any = None, *, run_every: float | None = None, key: str | None = None) -> Any:
    """``st.fragment`` whose runs read through their own run scope (:func:`reading`): a fragment that reruns
    by itself (``run_every``) or on a widget gives the file back when it ends, like a whole script run."""

    def wrap(f: Any) -> Any:
        @functools.wraps(f)
        def inner(*args: Any, **kwargs: Any) -> Any:
            with reading():
                return f(*args, **kwargs)

        return st.fragment(inner, run_every=run_every, key=key)

    return wrap(fn) if fn is not None else wrap


def _start_janitor() -> None:
    """One daemon thread per dashboard process: while a watcher writes, an attachment no run uses is let go
    within a fifth of a second (a dashboard left idle, its file attached before the watcher started)."""
    if _JANITOR:
        return
    with _LOCK:
        if _JANITOR:
            return
        t = threading.Thread(target=_janitor, name="kifu-reader-janitor", daemon=True)
        _JANITOR.append(t)
    t.start()


def _janitor() -> None:
    while True:
        time.sleep(0.2)
        try:
            _let_go_idle()
        except Exception:  # noqa: BLE001 - never let the janitor die
            pass


def _let_go_idle() -> None:
    with _LOCK:
        idle = [(key, entry) for key, entry in _OPEN.items() if not _USERS.get(entry[1])]
    for key, entry in idle:
        if live.watcher_present(key):
            with _LOCK:
                if _OPEN.get(key) == entry and not _USERS.get(entry[1]):
                    _detach_locked(entry[1])


class _Result:
    """What ``Db.execute`` returns: the query runs when its rows are fetched (with one retry)."""

    def __init__(self, db: Db, query: str, params: Any) -> None:
        self._db, self._query, self._params = db, query, params

    def _fetch(self, how: str) -> Any:
        return self._db.run(lambda cur: getattr(cur.execute(self._query, self._params or []), how)())

    def df(self) -> Any:
        return self._fetch("df")

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._fetch("fetchall")  # type: ignore[no-any-return]

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._fetch("fetchone")  # type: ignore[no-any-return]


class Db:
    """A read-only cursor on the dashboard's database that survives the file being swapped or written.

    Queries run on the current run's lease (:func:`_acquire`: the attachment of the file, taken once
    per page run, through a watcher's gate while one writes), or on a lease of their own outside a
    run.  While viewers click, an ingest may rename a new file over the database, or a watcher may
    write it between two runs.  A query that fails then (``Connection already closed``, ``No open
    result set``, the file locked…) is retried once on a fresh lease, through the gate again; if that
    fails too the viewer sees one line asking to reload, never a traceback.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        lease = _acquire(path)
        self._catalog = lease.catalog
        self._done(lease)

    @staticmethod
    def _done(lease: _Lease) -> None:
        """A lease of one query (outside a run scope) goes back at once."""
        if getattr(_RUN, "depth", 0) and getattr(_RUN, "leases", {}).get(lease.key) is lease:
            return
        _release(lease)

    @property
    def catalog(self) -> str:
        """The catalog the current version of the file is attached under."""
        return self._catalog

    def execute(self, query: str, params: Any = None) -> _Result:
        return _Result(self, query, params)

    def cursor(self) -> Db:
        return self

    def run(self, fn: Any) -> Any:
        try:
            lease = _acquire(self.path)
        except (queries.DatabaseError, OSError):
            lease = None
        if lease is not None:
            self._catalog = lease.catalog
            try:
                return fn(lease.cursor)
            except duckdb.Error:
                pass
            finally:
                self._done(lease)
        try:
            lease = _acquire(self.path, broken=self._catalog)
        except (queries.DatabaseError, OSError):
            self._busy()
        self._catalog = lease.catalog
        try:
            return fn(lease.cursor)
        except duckdb.Error:
            self._busy()
        finally:
            self._done(lease)

    @staticmethod
    def _busy() -> Any:
        st.warning(_("The database is being updated right now — reload the page in a moment."))
        st.stop()


def connect() -> Db | None:
    """A cursor on the read-only database, or None (with a message shown) when there is none."""
    path = db_path()
    if not path.exists():
        return None
    try:
        db = Db(path)
        return None if db.catalog in _NO_TABLES else db
    except queries.DatabaseError as exc:
        st.error(str(exc))
        st.stop()
    except OSError:  # the file vanished between the check and the open (a swap in progress)
        st.warning(_("The database is being updated right now — reload the page in a moment."))
        st.stop()


#: How often a page waiting for the database (not made yet) looks for it, in seconds.
DB_WAIT_EVERY = 2.0


def _rerun_once_made() -> None:
    """Run again every ``DB_WAIT_EVERY`` s while the database does not exist; the whole page once it does."""
    if db_path().exists():
        st.rerun(scope="app")


def require_data() -> Db:
    """The connection, or an empty-state message and stop."""
    con = connect()
    if con is None and not db_path().exists():  # `kifu serve` started before `kifu watch`/`kifu ingest` made it
        st.info(_("{name} does not exist yet — the dashboard waits for it: this page shows its matches once "
                  "{watch} or {command} makes it, or upload a log on the **Upload** page.").format(
            name=code(db_path().name), watch=code(f"kifu watch LOG --db {db_path().name}"),
            command=code(f"kifu ingest LOG --db {db_path().name}")))  # fmt: skip
        st.fragment(_rerun_once_made, run_every=DB_WAIT_EVERY)()
        st.stop()
    if con is None or not q.games_present(con):
        st.info(_("No data yet in {name} — ingest a log ({command}) or upload one on the **Upload** page.").format(
            name=code(db_path().name), command=code(f"kifu ingest LOG --db {db_path().name}")))  # fmt: skip
        st.stop()
    return con


# ----------------------------------------------------------------------------- matches being played

#: The mark of a match a ``kifu watch`` is following while it is played (tables, the sidebar's picker).
LIVE = N_("● live")


def watcher_present() -> bool:
    """Whether a ``kifu watch`` is writing the dashboard's database right now (``queries.sharing``)."""
    return live.watcher_present(db_path())


def live_matches(con: Db | None) -> pd.DataFrame:
    """The matches being played right now, newest first (``queries.dashboard.live_matches``): the rows a watcher
    wrote, and only while it runs (one killed leaves rows that mean nothing)."""
    if con is None or not watcher_present():
        return pd.DataFrame(columns=q.LIVE_COLUMNS)
    return q.live_matches(con)


def live_ids(con: Db | None) -> set[str]:
    """The ids of the matches being played right now."""
    return {str(m) for m in live_matches(con)["match_id"]}


# ----------------------------------------------------------------------------- shared filters


def selected_match() -> str | None:
    return st.session_state.get(st.session_state.get("filter.match_key", "filter.match"))


ALL_PLAYERS = "*"


def selected_player() -> str | None:
    value = st.session_state.get("filter.player:last")
    return None if value in (None, ALL_PLAYERS) else value


_UNSET = object()


def lkey(key: str) -> str:
    """The key of a widget whose option labels are translated: one key per language (options whose labels
    change under a widget confuse it), the last choice carried over from the other language."""
    lang = i18n.current()
    k = key if lang == "en" else f"{key}:{lang}"
    last = st.session_state.get(f"{key}:last", _UNSET)
    if k not in st.session_state and last is not _UNSET:
        st.session_state[k] = last
    return k


def remember(key: str, value: Any) -> Any:
    """Record a widget's choice for :func:`lkey` (call right after the widget)."""
    st.session_state[f"{key}:last"] = value
    return value


def match_key(game: str | None) -> str:
    """The session key of the match picker on a game's pages (ALGORI's and the shared pages' is ``filter.match``)."""
    return "filter.match" if game in (None, "algori-uno") else f"filter.match.{game}"


#: JUA UNO, a game of its own in the sidebar (its matches are UNO matches, game ``algori-uno``, under a JUA profile).
JUA_GAME = "jua"
#: The games whose matches a page of each game lists (the UNO pages list JUA matches too: they replay them).
SECTIONS = {"algori-uno": ("algori-uno", JUA_GAME), JUA_GAME: (JUA_GAME,)}


def section_of(game: Any, ruleset: Any) -> str:
    """The game a match is listed under: JUA UNO for a UNO match under a JUA profile, else its game."""
    return JUA_GAME if game == "algori-uno" and rules_family(ruleset) == JUA else str(game)


#: The games in the order the dashboard lists them (Matches page, sidebar picker, default match: the first present).
GAME_ORDER = ("algori-uno", JUA_GAME, "kakomimasu", "chaser")
GAME_NAMES = {"algori-uno": N_("ALGORI UNO"), "kakomimasu": N_("Kakomimasu"), "chaser": N_("CHaser"), JUA_GAME: N_("JUA UNO")}
#: Each game's main page: where a click on one of its matches goes (ALGORI: the Matches page shows it).
GAME_PAGES = {"algori-uno": "app_pages/matches.py", "kakomimasu": "app_pages/kakomimasu_board.py",
              "chaser": "app_pages/chaser_board.py"}  # fmt: skip


def game_name(game: Any) -> str:
    return _(GAME_NAMES[game]) if game in GAME_NAMES else str(game)


def games_in_order(games: Any) -> list[str]:
    present = {str(g) for g in games}
    return [g for g in GAME_ORDER if g in present] + sorted(present - set(GAME_ORDER))


#: The white wild's effect in a match (the dealer's ``white_wild`` setting), in words.
WHITE_WILD = {"bind_2": N_("bind 2"), "skip_bind_2": N_("skip-bind 2")}


def match_family(con: Any, match: str | None) -> str | None:
    """The rule family of an UNO match (None: no such UNO match)."""
    info = q.match_rules(con, match)
    if info is None or info.get("game") != "algori-uno":
        return None
    return rules_family(info.get("ruleset"))


def algori_only(con: Any, match: str | None, message: str) -> None:
    """On a page about something only the ALGORI rules have (special logic, the white wild, the dealer's
    clock): for a JUA match, ``message`` (marked with N_, translated here) says so, and the page stops."""
    if match_family(con, match) != JUA:
        return
    st.info(_(message), icon=":material/info:")
    st.stop()


JUA_SCORING = N_("JUA scoring: a round's winner scores the points left in the other hands; every other player loses "
                 "the points of their own hand (numbers: face value; skip, reverse, draw 2: 20; wild, wild draw 4: 50). "
                 "Ranked by total; equal totals share a rank.")  # fmt: skip


def scoreboard_table(board: pd.DataFrame) -> pd.DataFrame:
    """A match's scoreboard for people (``queries.dashboard.scoreboard``): one row per player, best total first,
    one column per round (its score), the total and the rank (equal totals share one)."""
    if board.empty:
        return pd.DataFrame()
    names = dict(zip(board["player_code"], board["player_name"], strict=True))
    rounds = sorted({int(r) for r in board["round_no"]})
    last = board[board["round_no"] == rounds[-1]].set_index("player_code")["total_score"]
    totals = {c: num(last.get(c)) for c in names}
    order = sorted(names, key=lambda c: (-(totals[c] if totals[c] is not None else -(10**9)), str(names[c])))
    table: dict[str, list[Any]] = {_("Player"): [names[c] for c in order]}
    for r in rounds:
        scores = board[board["round_no"] == r].set_index("player_code")["score"]
        table[_("Round {n}").format(n=r)] = [num(scores.get(c)) for c in order]
    shown = [totals[c] for c in order]
    table[_("Total")] = shown
    table[_("Rank")] = [None if t is None else 1 + sum(1 for u in shown if u is not None and u > t) for t in shown]
    return pd.DataFrame(table).astype({k: "Int64" for k in list(table)[1:]})


def white_wild_words(value: Any) -> str:
    """A match's white-wild setting as a person reads it ("none" when the match has none)."""
    if not isinstance(value, str) or not value:
        return _("none")
    return _(WHITE_WILD[value]) if value in WHITE_WILD else value


def match_labels(matches: Any, live: set[str] | frozenset[str] = frozenset()) -> dict[str, str]:
    """Picker labels a person can tell apart: name · board or length · date · short code (no game: the picker
    is one game's).

    A match being played (``live``) is marked "● live" and goes without its length, which grows: a select box
    keeps its choice by label, and a label that changes under it between two runs would lose it."""
    out: dict[str, str] = {}
    for r in matches.itertuples(index=False):
        when = r.started_at.strftime("%Y-%m-%d %H:%M") if pd.notna(r.started_at) else "?"
        name = r.name if isinstance(r.name, str) and r.name else None  # an unnamed game: its board and date say it
        n = num(r.rounds_played, 0)
        playing = str(r.match_id) in live
        if r.game == "algori-uno" and rules_family(getattr(r, "ruleset", None)) == JUA:
            parts = [name, _(RULE_SHORT[JUA]), _("{n} players").format(n=num(getattr(r, "n_players", None), 0)),
                     None if playing else _("{n} rounds").format(n=n), when, r.short_id]  # fmt: skip
        elif r.game == "algori-uno":
            parts = [name, None if playing else _("{n} rounds").format(n=n), when, r.short_id]
        elif r.game == "kakomimasu":
            parts = [name, r.board if isinstance(r.board, str) else "?",
                     None if playing else _("{n} turns").format(n=n), when, r.short_id]  # fmt: skip
        else:
            parts = [name, r.board if isinstance(r.board, str) else "?", when, r.short_id]
        out[str(r.match_id)] = " · ".join([_(LIVE)] * playing + [str(x) for x in parts if x is not None and x == x])
    return out


def _resolve(wanted: str | None, matches: Any) -> str | None:
    """The match a URL's ``?match=`` names: its id, or an ALGORI dealer code or name (the newest such match)."""
    if not wanted:
        return None
    if wanted in set(matches["match_id"]):
        return wanted
    hit = matches[(matches["dealer_code"] == wanted) | (matches["dealer_name"] == wanted)]
    return str(hit["match_id"].iloc[0]) if not hit.empty else None


def shown_game() -> str | None:
    """The game of the sidebar's match (what shared pages such as Players open on)."""
    return st.session_state.get("filter.game_shown")


def match_sections(matches: pd.DataFrame) -> list[str]:
    """The game each match (a row of ``queries.dashboard.match_list``) is listed under: JUA UNO for a UNO match
    under a JUA profile (:func:`section_of`)."""
    return [section_of(g, r) for g, r in zip(matches["game"], matches["ruleset"], strict=True)]


def game_counts(sections: Any) -> dict[str, str]:
    """Each game's name with its number of matches ("JUA UNO (3)"), for a picker; names alone while a watcher
    writes (a new match would change a label under the picker and lose its choice)."""
    counts = pd.Series(list(sections), dtype=object).value_counts()
    watched = watcher_present()
    return {str(g): game_name(g) if watched else f"{game_name(g)} ({int(n)})" for g, n in counts.items()}


def pick_game(con: Db, key: str) -> str:
    """A page's choice among the games present (Players, Standings), JUA UNO one of them with its own count:
    opens on the sidebar's game (the game its match is listed under); shown only when the database holds
    several games."""
    every = q.match_list(con)
    section = dict(zip(every["match_id"], match_sections(every), strict=True))
    present = games_in_order(section.values())
    k, last = lkey(key), st.session_state.get(f"{key}:last")
    if st.session_state.get(k) not in present:  # first visit (the sidebar's game), or the chosen segment clicked off
        shown = section.get(selected_match() or "", shown_game())
        st.session_state[k] = last if last in present else shown if shown in present else present[0]
    chosen = st.session_state[k]
    if len(present) > 1:
        labels = game_counts(section.values())
        chosen = st.segmented_control(_("Game"), present, key=k, format_func=lambda g: labels.get(g, g)) or chosen
    return str(remember(key, chosen))


# ----------------------------------------------------------------------------- the contestant's path
#
# A bot is chosen once (``?bot=<bot id>``, kept in the session and put back in the URL by every page run); every
# page opens on something worth seeing — the chosen bot's worst match, else the match with the most faults, newest
# first — and says so; the match is named at the top of the main area with a control to change it.  A bot's
# identity (``bot_id``): ``queries/sql/pages/bot_matches.sql`` and docs/dashboard.md "Bot identity".

_KEEP: Any = object()
NO_BOT = ""


def link_params(*, match: Any = None, round: Any = None, turn: Any = None, event: Any = None,  # noqa: A002
                bot: Any = _KEEP) -> dict[str, str]:
    """The query of a link of a page in the one link vocabulary, ``links.build``
    (``?match=<match id>&round=<n>&turn=<n>&event=<seq>&bot=<bot id>``; the old ``seq`` is read, never written),
    with the page's language; ``bot``: the chosen bot unless given (None: none)."""
    from app import links

    if bot is _KEEP:
        bot = chosen_bot_id()
    text = {"match": match, "bot": bot}
    out = links.build(None, **{k: None if v is None or v is pd.NA or v == "" else str(v) for k, v in text.items()},
                      round=num(round), turn=num(turn), event=num(event))  # fmt: skip
    lang = st.query_params.get("lang")
    if lang:
        out["lang"] = lang
    return out


_BOTS: dict[tuple[str, str], pd.DataFrame] = {}


def bot_matches(con: Any) -> pd.DataFrame:
    """Every bot of every match, its identity and its faults (``queries.dashboard.bot_matches``), read once per
    version of the database file."""
    key = (str(getattr(con, "path", "")), str(getattr(con, "catalog", id(con))))
    hit = _BOTS.get(key)
    if hit is None:
        hit = q.bot_matches(con)
        hit = hit.assign(section=[section_of(g, r) for g, r in zip(hit["game"], hit["ruleset"], strict=True)])
        _BOTS.clear()
        _BOTS[key] = hit
    return hit


def chosen_bot_id() -> str | None:
    """The bot chosen (``?bot=``), or None."""
    return st.session_state.get("filter.bot") or None


def chosen_bot(bots: pd.DataFrame) -> tuple[str | None, bool]:
    """The chosen bot and whether it was chosen just now (a link, a typed URL, the picker): a page then moves to
    its worst match.  A ``?bot=`` that names no bot says so."""
    state = st.session_state
    fresh = bool(state.pop("path.bot_fresh", False))
    asked = st.query_params.get("bot")
    known = set(bots["bot_id"])
    if asked and asked != state.get("filter.bot_url"):
        if asked in known:
            state["filter.bot"], fresh = asked, True
        else:
            st.warning(_("There is no bot {asked} in this database — choose yours in “My bot” above the page.").format(
                asked=code(asked)), icon=":material/search_off:")  # fmt: skip
            state["filter.bot_url"] = asked
    bot = state.get("filter.bot")
    if bot and bot not in known:  # another database: a bot it does not have
        state["filter.bot"] = bot = None
    return bot or None, fresh and bool(bot)


def bot_game(bots: pd.DataFrame, bot: str | None) -> str | None:
    """The game a bot plays (JUA UNO's bots: ``jua``)."""
    rows = bots[bots["bot_id"] == bot] if bot else bots.iloc[0:0]
    return None if rows.empty else str(rows["section"].iloc[0])


def plays_on(bot_section: str | None, game: str | None) -> bool:
    """Whether a bot of that game has its matches on a page of ``game`` (a JUA bot's are on the UNO pages too)."""
    return bot_section is not None and bot_section in SECTIONS.get(str(game), (game,))


def bot_seat(bots: pd.DataFrame, bot: str | None, match: str | None) -> str | None:
    """The bot's player code in that match (None: it did not play there)."""
    if not bot or not match:
        return None
    rows = bots[(bots["bot_id"] == bot) & (bots["match_id"] == match)]
    return None if rows.empty else str(rows["player_code"].iloc[0])


def worth_seeing(bots: pd.DataFrame, ids: list[str], bot: str | None) -> tuple[str, tuple[Any, ...]]:
    """The match a page opens on among ``ids`` (newest first), and why: the bot's worst match (most faults, newest
    first), else the match with the most faults, else the newest."""
    rows = bots[bots["match_id"].isin(ids)]
    order = {m: i for i, m in enumerate(ids)}
    if bot:
        mine = rows[rows["bot_id"] == bot]
        if not mine.empty:
            mine = mine.assign(_o=mine["match_id"].map(order)).sort_values(["faults", "_o"], ascending=[False, True])
            best = mine.iloc[0]
            return str(best["match_id"]), ("bot", int(best["faults"]))
    totals = rows.groupby("match_id")["faults"].sum()
    if not totals.empty and int(totals.max()) > 0:
        ranked = sorted(totals.items(), key=lambda kv: (-int(kv[1]), order.get(kv[0], 0)))
        return str(ranked[0][0]), ("most", int(ranked[0][1]))
    return ids[0], ("newest", 0)


#: English singular and plural of a count (Japanese has one form): chosen by the number, each translated.
COUNTED = {"fault": (N_("{n} fault"), N_("{n} faults")), "match": (N_("{n} match"), N_("{n} matches"))}


def counted(what: str, n: int) -> str:
    """"1 fault", "3 faults" (``what``: a key of :data:`COUNTED`), in the viewer's language."""
    one, many = COUNTED[what]
    return _(one if n == 1 else many).format(n=n)


def bot_label(bots: pd.DataFrame, counts: bool = True, games: bool = False) -> Any:
    """A ``format_func`` for bot ids: "name · dealer (N faults in M matches)" (the dealer only for UNO bots; the
    faults of all its matches); ``games``: the bot's game too, "name · Kakomimasu (…)"."""
    per = bots.groupby("bot_id", sort=False).agg(name=("player_name", "first"), dealer=("dealer_name", "first"),
                                                 game=("game", "first"), section=("section", "first"),
                                                 faults=("faults", "sum"), matches=("match_id", "nunique"))  # fmt: skip
    shown: dict[str, str] = {NO_BOT: _("(choose your bot)")}
    for bot_id, r in per.iterrows():
        text = str(r["name"]) + (f" · {r['dealer']}" if r["game"] == "algori-uno" and isinstance(r["dealer"], str) else "")
        text += f" · {game_name(r['section'])}" if games else ""
        shown[str(bot_id)] = _("{bot} ({faults} in {matches})").format(
            bot=text, faults=counted("fault", int(r["faults"])), matches=counted("match", int(r["matches"]))
        ) if counts else text  # fmt: skip
    return lambda b: shown.get(b, str(b))


def _bot_picked() -> None:
    state = st.session_state
    state["filter.bot"] = state.get("path.bot") or None
    state["path.bot_fresh"] = bool(state["filter.bot"])
    if not state["filter.bot"]:
        state.pop("path.applied", None)


def _match_picked(key: str) -> None:
    st.session_state[key] = st.session_state.get("path.match")


#: The page that replays each game's moments, and the parameter its position takes (CHaser: an action, ``event``;
#: its turn is Cool's action then Hot's, two actions).
REPLAYERS = {"algori-uno": ("app_pages/round_browser.py", "event"), "kakomimasu": ("app_pages/kakomimasu_board.py", "turn"),
             "chaser": ("app_pages/chaser_board.py", "event")}  # fmt: skip


def first_fault(bots: pd.DataFrame, bot: str | None, match: str | None) -> dict[str, Any] | None:
    """Where the bot's first fault in ``match`` is: its replayer page, the link's position parameters and the words
    naming it — the numbers the replayer shows first (UNO: round and turn; Kakomimasu and CHaser: the turn, as the
    findings count it).  None: no fault there."""
    rows = bots[(bots["bot_id"] == bot) & (bots["match_id"] == match)] if bot and match else bots.iloc[0:0]
    if rows.empty or num(rows["first_seq"].iloc[0]) is None:
        return None
    r = rows.iloc[0]
    game = str(r["game"])
    page, param = REPLAYERS.get(game, REPLAYERS["algori-uno"])
    at = num(r["first_seq"])
    turn = num(r.get("first_turn"), at if game == "kakomimasu" else None)
    position: dict[str, Any] = {param: at}
    if game not in REPLAYERS or game == "algori-uno":
        position["round"] = num(r["first_round"])
        words = (_("round {round}, turn {turn}").format(round=position["round"], turn=turn) if turn is not None
                 else _("round {round}").format(round=position["round"]))  # fmt: skip
    else:
        words = _("turn {n}").format(n=turn if turn is not None else at)
    return {"page": page, "position": position, "words": words}


def fault_link(bots: pd.DataFrame, bot: str | None, match: str, where: Any = st) -> bool:
    """A link to the bot's first fault in ``match`` on its game's replayer (False: none to link)."""
    got = first_fault(bots, bot, match)
    if got is None:
        return False
    query = link_params(match=match, bot=bot, **got["position"])
    where.page_link(got["page"], label=_("Replay its first fault: {where}").format(where=got["words"]),
                    icon=":material/play_circle:", query_params=query)  # fmt: skip
    return True


def path_header(con: Any, game: str, matches: pd.DataFrame, labels: dict[str, str], bots: pd.DataFrame,
                bot: str | None, *, board: bool = False, every_game: bool = False) -> None:  # fmt: skip
    """The top of the main area: the match shown (game, name, date) with a control to change it, the bot chosen
    (a picker of this game's bots), why this match, and a link to the bot's first fault in it.  ``board``: one
    row only (the board below is what the page is for: it stays in view on a laptop and a phone), and under it,
    once a bot's worst match is opened, that line and its first fault's link.  ``every_game`` (a page shared by
    every game): the picker offers the bots of every game, each named with its game."""
    state = st.session_state
    match = selected_match()
    ids = list(matches["match_id"])
    key = match_key(game)
    mine = bots if every_game else bots[bots["section"].isin(SECTIONS.get(game, (game,)))]
    order = {g: i for i, g in enumerate((*GAME_ORDER[:1], JUA_GAME, *GAME_ORDER[1:]))}
    per = mine.drop_duplicates("bot_id")
    options = [NO_BOT, *sorted(per["bot_id"], key=lambda b, sec=dict(zip(per["bot_id"], per["section"], strict=True)):
                               (order.get(sec[b], 9) if every_game else 0, str(b).lower()))]  # fmt: skip
    with st.container(key="path-header"):
        left, mid, right = st.columns([5, 2, 4], vertical_alignment="bottom")
        left.markdown(f"**{game_name(game)}** · {md(labels.get(str(match), match))}")
        with mid.popover(_("Change match"), icon=":material/swap_horiz:", width="stretch"):
            state["path.match"] = match
            st.selectbox(_("Match"), ids, key="path.match", format_func=lambda m: labels.get(m, m),
                         on_change=_match_picked, args=(key,))  # fmt: skip
        state["path.bot"] = bot if bot in options else NO_BOT
        right.selectbox(_("My bot"), options, key="path.bot", format_func=bot_label(mine, not watcher_present(), every_game),
                        on_change=_bot_picked, label_visibility="collapsed" if board else "visible", help=_("Your bot, chosen once: every page and link keeps it (?bot= in "
                                                      "the URL) and opens on its worst match."))  # fmt: skip
    why = state.get(f"path.why.{game}")
    said = why[1] if why and why[0] == match else None
    if board:  # the board opened on the bot's worst match (at its first fault): said, one line
        if bot and said and said[0] == "bot" and said[1] and bot_seat(bots, bot, match) is not None:
            with st.container(horizontal=True, vertical_alignment="center", gap="small", key="path-why"):
                st.caption(worst_words(bots, bot, said[1]), width="content")
                fault_link(bots, bot, str(match))
        return
    with st.container(key="path-why-full"):
        if bot and not plays_on(bot_game(bots, bot), game):
            st.caption(_("Your bot plays {game}: choose a bot of this game here, or go back to its pages.").format(
                game=game_name(bot_game(bots, bot))))  # fmt: skip
        elif bot and bot_seat(bots, bot, match) is None:
            st.caption(_("Your bot did not play in this match."))
        elif said and said[0] == "bot":
            st.caption(worst_words(bots, bot, said[1]) if said[1]
                       else _("Your bot has no fault in any match: opened on its newest match."))  # fmt: skip
        elif said and said[0] == "most":
            st.caption(_("Opened on the match with the most faults: {n} (penalties, errors and warnings). Choose your "
                         "bot to open on its worst match.").format(n=said[1]))  # fmt: skip
        elif not bot:
            st.caption(_("Choose your bot: every page then opens on its worst match."))
        if bot:
            fault_link(bots, bot, str(match))


def worst_words(bots: pd.DataFrame, bot: str | None, n: int) -> str:
    """"Opened on your bot's worst match: 209 of its 211 faults" — the faults the picker counts (all its matches)
    and this match's share of them, one definition (penalties, errors and warnings)."""
    total = int(bots[bots["bot_id"] == bot]["faults"].sum()) if bot else n
    return _("Opened on your bot's worst match: {n} of its {total} (penalties, errors and warnings).").format(
        n=n, total=counted("fault", total))  # fmt: skip


def make_my_bot(bot: str, game: str) -> None:
    """"This is my bot" (a click in a table that names bots): the bot chosen, and its worst rounds (UNO) or its
    game's board open on its worst match."""
    st.session_state["filter.bot"], st.session_state["path.bot_fresh"] = bot, True
    uno = game in SECTIONS["algori-uno"]
    page = "app_pages/player_rounds.py" if uno else GAME_PAGES.get(game, "app_pages/matches.py")
    st.switch_page(page, query_params=link_params(bot=bot))


def table_bots(con: Any, matches: Any, *, codes: Any = None, names: Any = None) -> list[str]:
    """The bots a table names, in its rows' order (each once): by player code in one match (``codes``), or by
    name over ``matches`` (``names``: a table that adds matches up by player name; one name at two dealers is
    two bots)."""
    bots = bot_matches(con)
    ids = [matches] if isinstance(matches, str) else list(matches or [])
    rows = bots[bots["match_id"].isin(ids)]
    out: list[str] = []
    if codes is not None:
        by_code = dict(zip(rows["player_code"], rows["bot_id"], strict=True))
        out = [str(by_code[c]) for c in codes if c in by_code]
    elif names is not None:
        by_name = rows.groupby("player_name", sort=False)["bot_id"].agg(list).to_dict()
        out = [str(b) for n in names for b in by_name.get(n, [])]
    return list(dict.fromkeys(out))


def _table_bot_picked(key: str) -> None:
    """A bot chosen under a table: the same as the header's *My bot* (kept in the session and the URL)."""
    state = st.session_state
    if state.get(key):
        state["filter.bot"], state["path.bot_fresh"] = state[key], True


def this_is_my_bot(con: Any, bots: list[str], key: str, where: Any = st) -> None:
    """"This is my bot" under a table that names bots (``bots``: :func:`table_bots`): choosing one of its bots
    makes it the chosen bot, as *My bot* in the header does (``?bot=``, kept across pages; the page opens on
    its worst match)."""
    if not bots:
        return
    state = st.session_state
    chosen = chosen_bot_id()
    state[key] = chosen if chosen in bots else None
    where.selectbox(_("This is my bot"), bots, key=key, format_func=bot_label(bot_matches(con), counts=False),
                    placeholder=_("Choose your bot among this table's"), on_change=_table_bot_picked, args=(key,),
                    help=_("Your bot, chosen once: every page and link keeps it (?bot= in the URL) and opens on "
                           "its worst match."))  # fmt: skip


def where_faults(con: Any, page: str, what: str, column: str = "faults") -> None:
    """An empty state that points to where the faults are: "{what} — N in these matches: …" with links to this
    page on the matches that have them (the chosen bot's first when one is chosen)."""
    bots = bot_matches(con)
    game = shown_game() or "algori-uno"
    rows = bots[bots["section"].isin(SECTIONS.get(game, (game,)))]
    player, match = selected_player(), selected_match()
    seat = rows[(rows["match_id"] == match) & (rows["player_code"] == player)] if player else rows.iloc[0:0]
    bot = str(seat["bot_id"].iloc[0]) if not seat.empty else chosen_bot_id()  # the player chosen, else my bot
    if bot and not rows[rows["bot_id"] == bot].empty:
        rows = rows[rows["bot_id"] == bot]
    per = rows.groupby("match_id", sort=False)[column].sum()
    per = per[per > 0].sort_values(ascending=False, kind="stable")
    if per.empty:
        st.success(what)
        return
    labels = match_labels(q.match_list(con, "algori-uno" if game == JUA_GAME else game))
    st.info(_("{what} — {n} in these matches:").format(what=what, n=int(per.sum())), icon=":material/search:")
    for match, n in list(per.items())[:5]:
        st.page_link(page, label=_("{match}: {n}").format(match=md(labels.get(str(match), str(match))), n=int(n)),
                     query_params=link_params(match=match), icon=":material/arrow_forward:")  # fmt: skip


#: The boards (url paths): the board itself is what the page is for, so the header above it is one row.
BOARD_PATHS = frozenset({"round_browser", "kakomimasu_board", "chaser_board"})


def sidebar_filters(con: Db | None, game: str | None = None, *, board: bool = False) -> None:
    """Match and player pickers shared by every page; both live in the URL (``?match=…&player=…``).

    ``game``: the current page's game (its matches only); None on pages shared by every game, where a
    "Game" picker comes first when the database holds several games.  A ``?match=`` that names no
    match, or another game's match on a game's page, is never silently replaced: a message says what
    was asked for and what is shown instead.
    """
    if con is None:
        return
    every = q.match_list(con)
    if every.empty:
        return
    state = st.session_state
    bots = bot_matches(con)
    bot, bot_fresh = chosen_bot(bots)
    game_of = dict(zip(every["match_id"], every["game"], strict=True))
    section = dict(zip(every["match_id"], match_sections(every), strict=True))  # JUA UNO: a game of its own
    present = games_in_order(section.values())
    asked = st.query_params.get("match")
    fresh = bool(asked) and asked != state.get("filter.match_url")  # a link or a typed URL
    wanted = _resolve(asked, every) if fresh else None
    if game is None:
        gkey = lkey("filter.game")
        if wanted is not None:
            state[gkey] = section[wanted]
        mine = bot_game(bots, bot)
        if bot_fresh and wanted is None and mine in present:
            state[gkey] = mine  # a bot just chosen: its game
        if state.get(gkey) not in present:
            last = state.get("filter.match_url")
            state[gkey] = section[last] if last in section else mine if mine in present else present[0]
        if len(present) > 1:
            remember("filter.game", st.sidebar.selectbox(_("Game"), present, key=gkey,
                                                         format_func=game_counts(section.values()).get))  # fmt: skip
        chosen = state[gkey]
    else:
        chosen = game
    if chosen == JUA_GAME:  # JUA UNO's pages: the UNO matches under a JUA profile
        matches = every[[section_of(g, r) == JUA_GAME for g, r in zip(every["game"], every["ruleset"], strict=True)]]
        if matches.empty:
            return
    else:
        matches = every[every["game"] == chosen]
    key = match_key(chosen)
    state["filter.match_key"] = key
    ids = list(matches["match_id"])
    playing = live_ids(con)
    labels = match_labels(matches, playing)
    if wanted in ids:
        state[key] = wanted
    if bot_fresh and wanted is None and plays_on(bot_game(bots, bot), chosen):
        state.pop(key, None)  # a bot just chosen: its worst match (below), not the match shown before
    if state.get(key) not in ids:  # first visit of this game's matches: the one last shown, else one worth seeing
        last, mine = state.get("filter.match_url"), state.get(f"filter.last.{chosen}")
        state[key] = last if last in ids and not bot_fresh else mine if mine in ids and not bot_fresh else None
        if state[key] is None:
            state[key], why = worth_seeing(bots, ids, bot)
            state[f"path.why.{chosen}"] = (state[key], why)
    if fresh and wanted is None:  # a link naming no match: said, and nothing else shown (not another match)
        from app import links

        state["filter.match_url"] = asked  # said once: the next run (a click in the sidebar) shows a match
        st.error(links.missing("match", code(links.clip(asked)), []), icon=":material/search_off:")
        st.page_link("app_pages/matches.py", label=_("Matches"), icon=":material/list:")
        st.stop()
    if fresh and wanted not in ids:
        label = labels.get(state[key], state[key])
        if wanted is not None:
            st.warning(_("{asked} is a match of {its}, and this page shows {page} matches — showing {shown} instead.").format(
                asked=code(asked), its=game_name(game_of[wanted]), page=game_name(chosen), shown=md(label)),
                icon=":material/swap_horiz:")  # fmt: skip
            st.page_link(GAME_PAGES.get(game_of[wanted], "app_pages/matches.py"),
                         query_params=link_params(match=wanted),
                         label=_("Open {asked} on its own page").format(asked=game_name(game_of[wanted])),
                         icon=":material/open_in_new:")  # fmt: skip
    st.sidebar.selectbox(_("Match"), ids, key=key, format_func=lambda m: labels.get(m, m))
    match = state[key]
    if match in playing:
        st.sidebar.caption(_("Being played: a page shows what was stored when it ran (Matches and the replayer's "
                             "Follow live update themselves)."))  # fmt: skip
    state["filter.game_shown"] = chosen
    state[f"filter.last.{chosen}"] = match
    names = q.player_names(con, match)
    seat = bot_seat(bots, bot, match)
    applied, state["path.applied"] = state.get("path.applied"), (bot, match)
    if seat is not None and applied != (bot, match):  # the bot's own rows, once per bot and match shown
        if not st.query_params.get("player") or bot_fresh:
            state[lkey("filter.player")] = state["filter.player:last"] = seat
            st.query_params["player"] = state["filter.player_url"] = seat
    options = [ALL_PLAYERS, *names]
    url_player = st.query_params.get("player")
    key = lkey("filter.player")
    if url_player and url_player not in names:  # a player's name in the URL, not its code
        url_player = next((c for c, n in names.items() if n == url_player), url_player)
    if url_player != state.get("filter.player_url") and url_player in names:
        state[key] = url_player
    elif url_player and url_player != state.get("filter.player_url") and url_player not in names:
        st.warning(_("There is no player {asked} in this match — showing every player.").format(asked=code(url_player)),
                   icon=":material/search_off:")  # fmt: skip
    if state.get(key) not in options:
        state[key] = ALL_PLAYERS
    remember("filter.player", st.sidebar.selectbox(_("Player"), options, key=key,
                         format_func=choices({ALL_PLAYERS: N_("(all players)")}, names)))  # fmt: skip
    st.query_params["match"] = state["filter.match_url"] = match
    player = selected_player()
    if player:
        st.query_params["player"] = player
    else:
        st.query_params.pop("player", None)
    state["filter.player_url"] = player
    if bot:
        st.query_params["bot"] = state["filter.bot_url"] = bot
    else:
        st.query_params.pop("bot", None)
    if board and bot_fresh and wanted is None and seat is not None:  # a bot just chosen on a board: its first fault
        got = first_fault(bots, bot, match)
        if got is not None:
            from app import links

            links.write(st.query_params, **got["position"])
    path_header(con, chosen, matches, labels, bots, bot, board=board, every_game=game is None)


#: How a Kakomimasu game was decided (the rules' order: total points, then wall points).
DECIDED_BY = {"total": N_("total points"), "wall": N_("wall points (equal totals)"), "draw": N_("a draw")}


def scores_text(value: Any) -> str | None:
    """``{"a": 3, "b": 1}`` (a match's final scores) as ``a 3 · b 1``."""
    if not isinstance(value, str) or not value:
        return None
    try:
        scores = json.loads(value)
    except ValueError:
        return None
    return " · ".join(f"{k} {v}" for k, v in scores.items()) if isinstance(scores, dict) else None


def selected_game(con: Any, fetch: Any, hint: str) -> tuple[str, dict[str, Any]]:
    """The sidebar's match and its game row (``fetch(con, match)``), or ``hint`` and stop (a game's pages)."""
    match = selected_match()
    info = fetch(con, match) if match else None
    if info is None:
        st.info(_(hint))
        st.stop()
    return str(match), info


def replayed(parse: Any, records: Any, errors: tuple[type[Exception], ...]) -> Any:
    """A game's log parsed from its stored records, or why it cannot be replayed, and stop."""
    try:
        return parse(records)
    except errors as exc:
        st.error(_("The stored game cannot be replayed: {reason}").format(reason=str(exc)))
        st.stop()


def url_position(prefix: str, match: str, param: str) -> tuple[int | None, int]:
    """The position the URL's ``param`` names, and the replayer's jump token: a new token when
    that position is not the one the replayer showed last (a link or a typed URL moves the board)."""
    state = st.session_state
    at = num(st.query_params.get(param))
    token = state.setdefault(f"{prefix}.token", 0)
    if at is not None and at != state.get(f"{prefix}.{param}.{match}"):
        state[f"{prefix}.token"] = token = token + 1
    return at, token


def position_or_nearest(payload: dict[str, Any], prefix: str, match: str, param: str, at: int | None,
                        message: str) -> None:  # fmt: skip
    """A link to a position the game does not have (``?turn=999``): ``message`` (translated, with ``{asked}``,
    ``{have}``, ``{shown}``) says so, and the replayer shows the nearest one."""
    from app import frames

    steps = [f["seq"] for f in payload["frames"]]
    asked = st.query_params.get(param)
    if asked is None or not steps or (at is not None and at in steps):
        return
    shown = frames.nearest(steps, at) if at is not None else steps[0]
    st.warning(message.format(asked=md(frames.clip(asked, 24)), have=frames.span(steps), shown=shown),
               icon=":material/link_off:")  # fmt: skip
    payload["jump"]["seq"] = shown
    follow_replayer(prefix, match, param, shown)


def follow_replayer(prefix: str, match: str, param: str, at: int | None) -> None:
    """The position the replayer shows, kept and put in the URL (a link to this moment)."""
    if at is not None:
        st.session_state[f"{prefix}.{param}.{match}"] = at
        st.query_params[param] = str(at)


def download_game(payload: dict[str, Any], prefix: str, match: str, title: str) -> None:
    """The game's replayer as one HTML file to download."""
    st.download_button(
        _("Download this game as one HTML file"), key=f"{prefix}.download", icon=":material/download:",
        data=replayer.standalone_html(payload, title=title, lang=i18n.current()),
        file_name=f"kifu-{match.replace(':', '-')}.html", mime="text/html",
    )  # fmt: skip


def names_of(con: Any, match: str) -> dict[str, str]:
    return q.player_names(con, match)


#: One colour per player, by join order: Okabe & Ito's colour-blind-safe palette (the card
#: colours of the table use its vermillion/yellow/green/blue, so players take the others first).
#: Past eight (a JUA table seats up to 10) Paul Tol's wine and olive, which none of those resembles.
PLAYER_COLOURS = ["#E69F00", "#56B4E9", "#CC79A7", "#000000", "#009E73", "#0072B2", "#D55E00", "#F0E442",
                  "#882255", "#999933"]


def player_colors(con: Any, match: str) -> dict[str, str]:
    """The fixed colour of every player of a match (the same on every page)."""
    return {code: PLAYER_COLOURS[i % len(PLAYER_COLOURS)] for i, code in enumerate(q.player_names(con, match))}


def name_colors(con: Any, match: str) -> dict[str, str]:
    """The same colours keyed by player name (what the charts show)."""
    names = q.player_names(con, match)
    return {names.get(code, code): colour for code, colour in player_colors(con, match).items()}


def chart_labels() -> dict[str, str]:
    """Axis and legend titles of the charts, translated."""
    return {"round_no": _("Round"), "count": _("Count"), "player_name": _("Player"), "cause_text": _("Cause"),
            "total_score": _("Total score"), "code": _("Check")}  # fmt: skip


def open_in_replayer(match: str, round_no: Any, seq: Any = None) -> None:
    """Go to the replayer at that event, in this tab (keeps the session: filters, language)."""
    page = "app_pages/round_browser.py"
    st.switch_page(page, query_params=link_params(match=match, round=round_no, event=seq))


def selected_row(event: Any) -> int | None:
    """The row a user clicked in a ``st.dataframe(on_select=...)`` table, if any."""
    rows = getattr(getattr(event, "selection", None), "rows", None) or []
    return int(rows[0]) if rows else None


#: Human column names for every table a page shows (translated when shown).
COLUMN_NAMES = {
    "match_id": N_("Match"), "dealer_name": N_("Dealer"), "dealer_code": N_("Dealer code"), "round_no": N_("Round"),
    "turn_no": N_("Turn"), "seq": N_("Event no."), "player": N_("Player"), "player_name": N_("Player"),
    "cause": N_("Cause"), "cards_received": N_("Cards received"), "explained_by": N_("Explained by check"),
    "severity": N_("Severity"), "family": N_("Kind"), "code": N_("Check"), "message": N_("What happened"),
    "expected": N_("Expected"), "actual": N_("Actual"), "penalty_seq": N_("Penalty event"),
    "penalties": N_("Penalties"), "penalty_cards": N_("Penalty cards"), "errors": N_("Errors"),
    "player_rule": N_("Rule breaks"), "findings": N_("Findings"), "score": N_("Round score"),
    "total_score": N_("Total"), "won": N_("Succeeded"), "first_flag_seq": N_("First flagged event"),
    "winner": N_("Winner"), "end_kind": N_("How it ended"), "n_turns": N_("Turns"), "first_card": N_("First card"),
    "challenges": N_("Challenges"), "special_logic": N_("Special logic"), "shuffles": N_("Shuffle wilds"),
    "white_wilds": N_("White wilds"), "violations": N_("Errors"), "warnings": N_("Warnings"),
    "challenger_name": N_("Challenger"), "target_name": N_("Target"), "is_challenge": N_("Challenged"),
    "success": N_("Succeeded"), "receiver": N_("Who drew"), "was_bluff": N_("Was a bluff"), "title": N_("Title"),
    "title_length": N_("Title length"), "players": N_("Who played"), "white_wild": N_("White wild"),
    "rounds_played": N_("Rounds"), "cause_text": N_("Cause"), "status": N_("Status"), "started_at": N_("Started"), "rank": N_("Rank"),
    "final_score": N_("Final score"), "cards_drawn": N_("Cards drawn"), "success_rate": N_("Success rate"),
    "outcome": N_("Outcome"), "before_event": N_("Event before"), "count": N_("Count"), "check": N_("Check"),
    "actions_over_4s": N_("Actions over 4 s"), "avg_round_score": N_("Average round score"),
    "challenge_accuracy": N_("Challenge accuracy"), "challenges_won": N_("Challenges won"), "matches": N_("Matches played"),
    "matches_won": N_("Matches won"), "penalties_per_round": N_("Penalties per round"), "rounds": N_("Rounds"),
    "think_max_ms": N_("Think time max (ms)"), "think_p50_ms": N_("Think time median (ms)"),
    "think_p95_ms": N_("Think time p95 (ms)"), "violations_per_round": N_("Errors per round"),
    "wd4_bluffs": N_("Wild draw 4 bluffs"), "win_rate": N_("Win rate"), "player_code": N_("Player code"),
    "label": N_("Match"), "team": N_("Team"), "points": N_("Points"), "source": N_("File"), "line": N_("Line"),
    "reason": N_("Reason"), "run_id": N_("Run"), "reached_round": N_("Reached in round"),
    "advances": N_("Advances"), "rank_points": N_("Rank points"), "long_match_rank": N_("Rank in the long match"),
    "total": N_("Total"), "rounds_won": N_("Rounds won"), "open": N_("Open"),
    "game": N_("Game"), "name": N_("Name"), "board": N_("Board"), "final_scores": N_("Final scores"),
    "area": N_("Area points"), "wall": N_("Wall points"), "actions": N_("Actions"), "failed": N_("Failed actions"),
    "turn": N_("Turn"), "agent": N_("Agent"), "result": N_("Result"),
    "bot": N_("Bot"), "games": N_("Games"), "wins": N_("Wins"), "losses": N_("Losses"), "draws": N_("Draws"),
    "items": N_("Items"), "items_per_game": N_("Items per game"), "won_by": N_("Won by"), "lost_by": N_("Lost by"),
    "walks": N_("Walks"), "looks": N_("Looks"), "searches": N_("Searches"), "puts": N_("Puts"),
    "invalid": N_("Invalid actions"), "map": N_("Map"), "side": N_("Side"),
    "opponent": N_("Opponent"), "unfinished": N_("Not finished"), "points_per_game": N_("Points per game"),
    "failed_rate": N_("Failed share"), "rules": N_("Rules"),
}  # fmt: skip
MISSING = "—"


def choices(labels: dict[Any, str], raw: dict[Any, str] | None = None) -> Any:
    """A ``format_func`` for options: ``labels`` (messages) translated now, not when a widget or a test asks
    later outside the page run; ``raw`` texts (names from a log) shown as they are."""
    shown = {**(raw or {}), **{k: _(v) for k, v in labels.items()}}
    return lambda k: shown.get(k, str(k))


def with_names(text: Any, names: dict[str, str]) -> str:
    from app.findings import with_names as _with_names

    return _with_names(text, names)


def readable(df: Any) -> Any:
    """A table for people: human column names, "—" for missing text."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].astype(object).where(out[col].notna(), MISSING)
    return out.rename(columns={c: _(COLUMN_NAMES[c]) for c in out.columns if c in COLUMN_NAMES})


def wide_columns(columns: list[str]) -> dict[str, Any]:
    """Column settings that give long text the widest columns, under their human names."""
    return {_(COLUMN_NAMES.get(c, c)): st.column_config.TextColumn(_(COLUMN_NAMES.get(c, c)), width="large")
            for c in columns}  # fmt: skip


def open_board_at_link(payload: dict[str, Any], match: str, key: str, *, by_turn: bool) -> int | None:
    """A Kakomimasu or CHaser board opened where its link says (``?turn=``/``?event=``, app/links.py); a step
    the game does not have is refused, and nothing else shown.  The step the link names (None: none)."""
    from app import links

    at, refused = links.locate(links.read(st.query_params), payload["frames"], by_turn=by_turn, quote=md)
    if refused:
        st.error(refused, icon=":material/link_off:")
        links.forget(st.query_params)
        st.stop()
    payload["jump"] = links.jump(st.session_state, key, match, at, payload["frames"])
    return at
