"""Shared dashboard pieces: the database connection, shared filters, cards and board as HTML.

Every piece of text that comes from a log (player names, special-logic titles, raw
payloads) goes through :func:`esc` before it reaches HTML, and is otherwise shown only
through Streamlit elements that render text, never raw HTML.
"""

from __future__ import annotations

import html
import os
import re
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import duckdb
import pandas as pd
import streamlit as st

import queries
from queries import dashboard as q

UPLOAD_NOTE = {"open": "read-only here; logs can be added on the Upload page",
               "token": "read-only here; uploads need the server's token", "off": "read-only; uploads are off"}
SEVERITY_ICON = {"error": "🔴", "warning": "🟠", "info": "🔵"}
EVENT_TYPES = [
    "first-player", "next-player", "play-card", "draw-card", "play-draw-card", "challenge", "public-card",
    "pointed-not-say-uno", "special-logic", "color-change-request", "color-of-wild", "shuffle-wild",
    "penalty", "finish-turn",
]  # fmt: skip


def esc(text: Any) -> str:
    return html.escape("" if text is None else str(text), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~:])")


def md(text: Any) -> str:
    """Untrusted text (bot, dealer, file names) inside Markdown: every character Streamlit's
    Markdown, KaTeX (``$``), colour/emoji shortcodes (``:red[…]``) or HTML would act on, escaped;
    control characters and line breaks become spaces."""
    s = "" if text is None else str(text)
    s = "".join(ch if ch.isprintable() else " " for ch in s)
    return _MD_SPECIAL.sub(r"\\\1", s)


def code(text: Any) -> str:
    """Untrusted text as a Markdown code span (literal inside; backticks and control characters replaced)."""
    s = "".join(ch if ch.isprintable() else " " for ch in ("" if text is None else str(text)))
    return "`" + s.replace("`", "'") + "`"


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
_GENERATION = [0]


def _hub() -> duckdb.DuckDBPyConnection:
    """The process's one in-memory DuckDB; database files are ATTACHed to it read-only."""
    global _HUB
    if _HUB is None:
        _HUB = duckdb.connect(":memory:")
        _HUB.execute(f"set memory_limit = '{os.environ.get('KIFU_MEMORY_LIMIT', '512MB')}'")
        _HUB.execute("set enable_progress_bar = false")
    return _HUB


def _open(path: Path, broken: str | None = None) -> str:
    """The catalog name under which the current version of ``path`` is attached.

    An ingest writes a copy and renames it over the file (``loaders.swap``).  Each version of
    the file is ATTACHed under its own name (ATTACH bypasses DuckDB's per-path instance cache,
    which would otherwise keep serving the replaced file while any session still reads it);
    the previous version is detached.  ``broken``: a catalog a caller found unusable.
    """
    stamp = path.stat().st_mtime_ns
    key = str(path)
    with _LOCK:
        current = _OPEN.get(key)
        if current is not None and current[0] == stamp and current[1] != broken:
            return current[1]
        hub = _hub()
        _GENERATION[0] += 1
        name = f"kifu_v{_GENERATION[0]}"
        queries.attach_read_only(hub, path, name)
        _OPEN[key] = (stamp, name)
        if current is not None:
            try:
                hub.execute(f"detach database if exists {current[1]}")
            except duckdb.Error:  # still in use by a running query: it goes when that ends
                pass
        return name


def close_all() -> None:
    """Detach every database and close the hub (tests, shutdown)."""
    global _HUB
    with _LOCK:
        if _HUB is not None:
            _HUB.close()
        _HUB = None
        _OPEN.clear()


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
    """A read-only cursor on the dashboard's database that survives the file being swapped.

    While viewers click, an ingest may rename a new file over the database and another session
    may close the shared connection.  A query that fails then (``Connection already closed``,
    ``No open result set``, ``connection is busy``…) is retried once on a fresh connection; if
    that fails too the viewer sees one line asking to reload, never a traceback.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._catalog = _open(path)
        self._cur = self._cursor()

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        cur = _hub().cursor()
        cur.execute(f"use {self._catalog}")
        return cur

    def execute(self, query: str, params: Any = None) -> _Result:
        return _Result(self, query, params)

    def cursor(self) -> Db:
        return self

    def run(self, fn: Any) -> Any:
        try:
            return fn(self._cur)
        except duckdb.Error:
            pass
        try:
            self._catalog = _open(self.path, broken=self._catalog)
            self._cur = self._cursor()
            return fn(self._cur)
        except (duckdb.Error, queries.DatabaseError, OSError):
            st.warning("The database is being updated right now — reload the page in a moment.")
            st.stop()


def connect() -> Db | None:
    """A cursor on the read-only database, or None (with a message shown) when there is none."""
    path = db_path()
    if not path.exists():
        return None
    try:
        return Db(path)
    except queries.DatabaseError as exc:
        st.error(str(exc))
        st.stop()
    except OSError:  # the file vanished between the check and the open (a swap in progress)
        st.warning("The database is being updated right now — reload the page in a moment.")
        st.stop()


def require_data() -> Db:
    """The connection, or an empty-state message and stop."""
    con = connect()
    if con is None or q.match_list(con).empty:
        st.info(
            f"No data yet in `{db_path().name}` — ingest a log (`kifu ingest LOG --db {db_path().name}`) "
            "or upload one on the **Upload** page."
        )
        st.stop()
    return con


# ----------------------------------------------------------------------------- shared filters


def selected_match() -> str | None:
    return st.session_state.get("filter.match")


def selected_player() -> str | None:
    value = st.session_state.get("filter.player")
    return None if value in (None, "(all players)") else value


def sidebar_filters(con: Db | None) -> None:
    """Match and player pickers shared by every page (initialised from the URL)."""
    if con is None:
        return
    matches = q.match_list(con)
    if matches.empty:
        return
    ids = list(matches["match_id"])
    labels = dict(zip(matches["match_id"], matches["label"], strict=True))
    wanted = st.query_params.get("match")
    if wanted and wanted not in ids:  # a dealer code or name in the URL
        hit = matches[(matches["dealer_code"] == wanted) | (matches["dealer_name"] == wanted)]
        wanted = hit["match_id"].iloc[0] if not hit.empty else None
    if "filter.match" not in st.session_state or st.session_state["filter.match"] not in ids:
        st.session_state["filter.match"] = wanted if wanted in ids else ids[0]
    st.sidebar.selectbox("Match", ids, key="filter.match", format_func=lambda m: labels.get(m, m))
    names = q.player_names(con, st.session_state["filter.match"])
    options = ["(all players)", *names]
    if st.session_state.get("filter.player") not in options:
        st.session_state["filter.player"] = "(all players)"
    st.sidebar.selectbox("Player", options, key="filter.player", format_func=lambda p: names.get(p, p))
    st.query_params["match"] = st.session_state["filter.match"]


def names_of(con: Any, match: str) -> dict[str, str]:
    return q.player_names(con, match)


def browser_link(match: str, round_no: Any, seq: Any = None, turn: Any = None) -> str:
    """A URL that opens the round browser at that point."""
    params: dict[str, Any] = {"match": match, "round": int(round_no)}
    if seq is not None and seq == seq:
        params["seq"] = int(seq)
    elif turn is not None and turn == turn:
        params["turn"] = int(turn)
    return "/round_browser?" + urlencode(params)


def with_links(df: Any, match_col: str = "match_id", round_col: str = "round_no", seq_col: str = "seq") -> Any:
    """Add an 'open' column of round-browser links to a findings/penalties table."""
    df = df.copy()
    df.insert(0, "open", [browser_link(m, r, s) for m, r, s in zip(df[match_col], df[round_col], df[seq_col], strict=True)])
    return df


LINK_COLUMN = {"open": st.column_config.LinkColumn("open", display_text="▶ board", width="small")}


# ----------------------------------------------------------------------------- cards and board

CARD_CSS = """
<style>
.kb {font-family: system-ui, sans-serif; font-size: 14px; color: #222;}
.kb-seats {display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 10px;}
.kb-seat {border: 1px solid #ccc; border-radius: 8px; padding: 8px; background: #fafafa;}
.kb-seat.actor {border: 3px solid #e07a00; background: #fff7eb;}
.kb-seat.to-act {box-shadow: 0 0 0 2px #1d63c8 inset;}
.kb-name {font-weight: 600;}
.kb-meta {color: #555; font-size: 12px; margin: 2px 0 6px 0;}
.kb-badge {display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; font-weight: 700; margin-left: 4px;}
.kb-uno {background: #d62828; color: #fff;} .kb-bind {background: #6a4c93; color: #fff;} .kb-win {background: #2a9d41; color: #fff;}
.kc {display: inline-block; min-width: 26px; height: 38px; line-height: 38px; margin: 2px; border-radius: 5px;
     text-align: center; font-weight: 700; font-size: 13px; color: #fff; border: 1px solid #0003; padding: 0 3px;}
.kc-red {background: #d62828;} .kc-yellow {background: #e9b500; color: #222;} .kc-green {background: #2a9d41;}
.kc-blue {background: #1d63c8;} .kc-black {background: #222;} .kc-white {background: #fff; color: #222;}
.kc-back {background: repeating-linear-gradient(45deg, #444, #444 4px, #666 4px, #666 8px); color: transparent;}
.kb-center {display: flex; gap: 18px; align-items: center; margin: 10px 0; flex-wrap: wrap;}
.kb-top .kc {min-width: 44px; height: 62px; line-height: 62px; font-size: 18px;}
.kb-pill {background: #eee; border-radius: 10px; padding: 2px 8px;}
</style>
"""

SYMBOL = {"skip": "⊘", "reverse": "⇄", "draw_2": "+2", "wild": "W", "wild_draw_4": "W+4",
          "wild_shuffle": "SW", "white_wild": "WW"}  # fmt: skip
COLOR_NAME = {"red": "red", "yellow": "yellow", "green": "green", "blue": "blue", "black": "black", "white": "white"}


def card_parts(label: str | None) -> tuple[str, str]:
    if not label:
        return "black", "?"
    color, _, face = label.partition("-")
    return (color if color in COLOR_NAME else "black"), SYMBOL.get(face, face)


def card_html(label: str | None, title: str | None = None) -> str:
    color, face = card_parts(label)
    return f'<span class="kc kc-{color}" title="{esc(title or label)}">{esc(face)}</span>'


def card_text(label: Any) -> str:
    """A card in words: 'blue 5', 'red skip', 'wild draw 4 (black)'."""
    if not label or label != label:
        return "?"
    color, _, face = str(label).partition("-")
    face = face.replace("_", " ")
    return f"{color} {face}"


POINTS = {"skip": 20, "reverse": 20, "draw_2": 20, "wild_shuffle": 40, "white_wild": 40, "wild": 50, "wild_draw_4": 50}


def hand_points(cards: list[str]) -> int:
    total = 0
    for label in cards:
        face = label.partition("-")[2]
        total += int(face) if face.isdigit() else POINTS.get(face, 0)
    return total


def board_html(
    *, seats: list[str], names: dict[str, str], hands: dict[str, list[str]], yell: dict[str, bool],
    bind: dict[str, int], top: str | None, direction: bool | None, draw_pile: Any, discard_pile: Any,
    pending: Any, owes_draw: Any, to_act: str | None, actor: str | None, winner: str | None,
    perspective: str | None,
) -> str:  # fmt: skip
    """The table as HTML: four seats in play order, the top card, piles and pending draws."""
    parts = [CARD_CSS, '<div class="kb"><div class="kb-seats">']
    for i, p in enumerate(seats):
        cards = hands.get(p, [])
        classes = "kb-seat" + (" actor" if p == actor else "") + (" to-act" if p == to_act else "")
        badges = ""
        if yell.get(p):
            badges += '<span class="kb-badge kb-uno">UNO</span>'
        if bind.get(p):
            badges += f'<span class="kb-badge kb-bind">bound ×{int(bind[p])}</span>'
        if winner == p:
            badges += '<span class="kb-badge kb-win">winner</span>'
        hidden = perspective is not None and p != perspective
        shown = "".join('<span class="kc kc-back">?</span>' for _ in cards) if hidden else "".join(card_html(c) for c in cards)
        points = "" if hidden else f" · {hand_points(cards)} pts"
        marker = " ▶ to act" if p == to_act else ""
        parts.append(
            f'<div class="{classes}"><div class="kb-name">{i + 1}. {esc(names.get(p, p))}{badges}</div>'
            f'<div class="kb-meta">{esc(p)} · {len(cards)} card(s){points}{esc(marker)}</div>{shown}</div>'
        )
    parts.append("</div>")
    arrow = "→ right (seat order)" if direction else "← left (reverse)" if direction is not None else ""
    pend = f"must draw {int(pending)}" if pending else ("owes a draw" if owes_draw else "")
    color, _ = card_parts(top)
    parts.append(
        f'<div class="kb-center"><div class="kb-top">Top {card_html(top)}</div>'
        f'<span class="kb-pill">colour: {esc(color)}</span><span class="kb-pill">direction {esc(arrow)}</span>'
        f'<span class="kb-pill">draw pile {esc(draw_pile)}</span><span class="kb-pill">discard {esc(discard_pile)}</span>'
        + (f'<span class="kb-pill">{esc(pend)}</span>' if pend else "")
        + "</div></div>"
    )
    return "".join(parts)
