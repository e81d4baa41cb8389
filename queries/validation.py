"""Queries behind validation reports (``kifu validate``) and the violations page."""

from __future__ import annotations

import duckdb
import pandas as pd

from queries import sql


def report_matches(
    con: duckdb.DuckDBPyConnection, match: str | None = None, player: str | None = None
) -> pd.DataFrame:
    return con.execute(sql("validation_matches"), {"match": match, "player": player}).df()


def report_counts(
    con: duckdb.DuckDBPyConnection, match: str | None = None, player: str | None = None
) -> pd.DataFrame:
    return con.execute(sql("validation_counts"), {"match": match, "player": player}).df()


def report_causes(
    con: duckdb.DuckDBPyConnection, match: str | None = None, player: str | None = None
) -> pd.DataFrame:
    return con.execute(sql("validation_causes"), {"match": match, "player": player}).df()


def report_penalties(
    con: duckdb.DuckDBPyConnection, match: str | None = None, player: str | None = None
) -> pd.DataFrame:
    return con.execute(sql("validation_penalties"), {"match": match, "player": player}).df()


def report_scores(con: duckdb.DuckDBPyConnection, match: str | None = None) -> pd.DataFrame:
    return con.execute(sql("validation_scores"), {"match": match}).df()


def think_times(
    con: duckdb.DuckDBPyConnection, match: str | None = None, player: str | None = None
) -> pd.DataFrame:
    return con.execute(sql("think_time_stats"), {"match": match, "player": player}).df()


def known_players(con: duckdb.DuckDBPyConnection, match: str | None = None) -> pd.DataFrame:
    return con.execute(sql("known_players"), {"match": match}).df()


def known_matches(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    return con.execute(sql("known_matches")).df()


def match_labels(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every match with its game, name and board or map (what tells matches apart in the "known:" hint)."""
    return con.execute(sql("validation_known_matches")).df()


def match_sources(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str | None]]:
    """Every match id with each log file its lines came from (None: no raw line), for naming a match by its
    file (``kifu validate --match greedy-vs-greedy.txt``)."""
    return [(str(m), s) for m, s in con.execute(
        "select m.match_id, r.source from (select distinct match_id from matches) m left join "
        "(select distinct match_id, source from raw_activities) r using (match_id) order by 1, 2").fetchall()]  # fmt: skip
