"""Queries behind the dashboard pages (one function per SQL file, returning DataFrames)."""

from __future__ import annotations

from typing import Any

import duckdb
import pandas as pd

from queries import sql
from queries.rawlines import texts

Con = duckdb.DuckDBPyConnection


def _df(con: Con, name: str, **params: Any) -> pd.DataFrame:
    return con.execute(sql(name), params).df()


def match_list(con: Con, game: str | None = None) -> pd.DataFrame:
    return _df(con, "pages/match_list", game=game)


def games_present(con: Con) -> list[str]:
    """Games with at least one match, e.g. ``['algori-uno', 'kakomimasu']``."""
    return [str(g) for g, _n in con.execute(sql("games_present")).fetchall()]


def match_summary(con: Con, match: str) -> pd.DataFrame:
    return _df(con, "pages/match_summary", match=match)


def score_race(con: Con, match: str) -> pd.DataFrame:
    return _df(con, "pages/score_race", match=match)


def match_rules(con: Con, match: str | None) -> dict[str, Any] | None:
    """The rules one match was played under: ``ruleset`` (its profile id), ``white_wild``, ``n_players``, ``game``."""
    if not match:
        return None
    rows = _df(con, "pages/match_rules", match=match).to_dict("records")
    return rows[0] if rows else None


def rulesets(con: Con) -> dict[str, str | None]:
    """Every UNO match's rule profile id (None when the log named none), newest first."""
    return {str(m): (r if isinstance(r, str) else None) for m, r in con.execute(sql("pages/rulesets")).fetchall()}


def jua_moments(con: Con, match: str) -> dict[str, tuple[int, int]]:
    """A pair play, the biggest draw stack to answer and a challenge of one match: kind -> (round, seq)."""
    return {str(k): (int(r), int(s)) for k, r, s in con.execute(sql("pages/jua_moments"), {"match": match}).fetchall()}


def scoreboard(con: Con, match: str) -> pd.DataFrame:
    """Every player's round score and running total after every round of one match, with final total and rank."""
    return _df(con, "pages/scoreboard", match=match)


def round_index(con: Con, match: str) -> pd.DataFrame:
    return _df(con, "pages/round_index", match=match)


def round_info(con: Con, match: str, round_no: int) -> dict[str, Any] | None:
    rows = _df(con, "board/round_info", match=match, round=round_no).to_dict("records")
    return rows[0] if rows else None


#: Events of one round the round browser loads at most (a real round has a few hundred).
ROUND_EVENTS_LIMIT = 5000


def round_events(con: Con, match: str, round_no: int, limit: int = ROUND_EVENTS_LIMIT) -> pd.DataFrame:
    """Every event of one round with the board after it (derived from the keyframes: :mod:`queries.boards`)."""
    from queries.boards import BOARD_COLUMNS, boards

    df = _df(con, "board/round_events", match=match, round=round_no, limit=limit)
    cols = [c for c in BOARD_COLUMNS if c not in ("seq", "round_no", "turn_no", "stall", "cards_played")]
    found = boards(con, match, int(df["seq"].min()), int(df["seq"].max())) if len(df) else []
    by_seq = {b["seq"]: b for b in found}
    for c in cols:
        df[c] = [by_seq.get(int(s), {}).get(c) for s in df["seq"]]
    order = [c for c in df.columns if c not in ("errors", "findings")] + ["errors", "findings"]
    return df[order]


def event_findings(con: Con, match: str, seq: int) -> pd.DataFrame:
    return _df(con, "board/event_findings", match=match, seq=seq)


def raw_event(con: Con, match: str, seq: int) -> dict[str, Any] | None:
    """The line as read from the source (unpacked from its block), with its source and line number."""
    from queries.rawlines import lines

    rows = _df(con, "board/raw_event", match=match, seq=seq).to_dict("records")
    if not rows:
        return None
    row = rows[0]
    if row.get("raw") is None:
        row["raw"] = lines(con, match, seq, seq).get(seq)
    return row


def player_names(con: Con, match: str) -> dict[str, str]:
    df = _df(con, "board/players", match=match)
    return {
        str(r.player_code): r.player_name if isinstance(r.player_name, str) and r.player_name else str(r.player_code)
        for r in df.itertuples()
    }


def penalties(con: Con, match: str | None = None, player: str | None = None) -> pd.DataFrame:
    return _df(con, "pages/penalties", match=match, player=player)


def challenges(con: Con, match: str | None = None, player: str | None = None) -> pd.DataFrame:
    return _df(con, "pages/challenges", match=match, player=player)


def wd4_unchallenged(con: Con, match: str | None = None, player: str | None = None) -> pd.DataFrame:
    return _df(con, "pages/wd4_unchallenged", match=match, player=player)


def special_logic(con: Con, match: str | None = None, player: str | None = None) -> pd.DataFrame:
    return _df(con, "pages/special_logic", match=match, player=player)


def violations(con: Con, match: str | None = None, player: str | None = None,
               family: str | None = None, severity: str | None = None) -> pd.DataFrame:  # fmt: skip
    return _df(con, "pages/violations", match=match, player=player, family=family, severity=severity)


def bot_stats(con: Con, matches: list[str] | None = None) -> pd.DataFrame:
    """Every UNO bot's numbers over the UNO matches (all, or ``matches``: e.g. one rule family's)."""
    return _df(con, "pages/bot_stats", matches=matches)


def standings(con: Con, matches: list[str]) -> pd.DataFrame:
    return _df(con, "pages/standings", matches=matches)


def game_results(con: Con, game: str, matches: list[str] | None = None) -> pd.DataFrame:
    """Every player's wins, draws, losses and points over a Kakomimasu or CHaser game's matches (all, or ``matches``)."""
    return _df(con, "pages/game_results", game=game, matches=matches)


def round_findings(con: Con, match: str, round_no: int) -> pd.DataFrame:
    return _df(con, "board/round_findings", match=match, round=round_no)


def round_scores(con: Con, match: str, round_no: int) -> pd.DataFrame:
    return _df(con, "board/round_scores", match=match, round=round_no)


def player_rounds(con: Con, match: str, player: str | None = None) -> pd.DataFrame:
    return _df(con, "pages/player_rounds", match=match, player=player)


def match_records(con: Con, match: str) -> list[tuple[int, str]]:
    """A match's stored records in order (what the Kakomimasu and CHaser pages replay)."""
    rows = con.execute(sql("match_records"), {"match": match}).fetchall()
    text = texts(con, match, [s for s, _ in rows], [r for _, r in rows])
    return [(int(s), str(r)) for (s, _), r in zip(rows, text, strict=True)]


def live_matches(con: Con) -> pd.DataFrame:
    """The matches a ``kifu watch`` wrote as being played (``live_matches``, schema 7), each with its newest round
    and its events count; empty on a database without the table (schema 6).  The rows count only while the
    watcher runs: ask ``queries.sharing.watcher_present`` (the dashboard: ``app.ui.live_now``)."""
    rows = con.execute(sql("pages/live_table")).fetchall()
    if not rows or not rows[0][0]:
        return pd.DataFrame(columns=LIVE_COLUMNS)
    return _df(con, "pages/live_matches")


#: The columns of :func:`live_matches`.
LIVE_COLUMNS = ["match_id", "game", "source", "last_seq", "last_event_at", "updated_at", "name", "dealer_code",
                "round_no", "events"]  # fmt: skip


def bot_matches(con: Con) -> pd.DataFrame:
    """Every bot of every match with its identity (``bot_id``), its faults there and the first of them, newest match first."""
    return _df(con, "pages/bot_matches")


def jua_moves(con: Con, match: str) -> pd.DataFrame:
    """The JUA rules' moments of one match (pair plays, cards added to draw stacks, stacks paid, challenges by colour)."""
    return _df(con, "pages/jua_moves", match=match)


def jua_counts(moves: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """:func:`jua_moves` counted per bot (every player of the match, in join order): pair plays, cards added to
    draw stacks, stacks of two or more paid and the cards drawn for every stack, challenges made and won, and the
    challenges by colour ({colour: count})."""
    rows = []
    for code, name in names.items():
        mine = moves[moves["player"] == code]
        stacks = mine[mine["kind"] == "stack"]
        ch = mine[mine["kind"] == "challenge"]
        rows.append({"player_code": code, "player_name": name, "pairs": int((mine["kind"] == "pair").sum()),
                     "stack_adds": int((mine["kind"] == "stack_add").sum()),
                     "stacks_paid": int((stacks["length"].fillna(0) >= 2).sum()),
                     "stack_cards": int(stacks["cards"].fillna(0).sum()),
                     "challenges": len(ch), "challenges_won": int(ch["success"].fillna(False).astype(bool).sum()),
                     "by_colour": ch["colour"].fillna("?").value_counts().to_dict()})  # fmt: skip
    return pd.DataFrame(rows)
