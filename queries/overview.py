"""Queries behind the overview page: matches, players, ingest runs and load issues."""

from __future__ import annotations

import duckdb
import pandas as pd

from queries import sql


def matches(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    return con.execute(sql("matches")).df()


def match_players(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    return con.execute(sql("match_players")).df()


def load_runs(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    return con.execute(sql("load_runs")).df()


def load_issues(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    return con.execute(sql("load_issues")).df()


def has_data(con: duckdb.DuckDBPyConnection) -> bool:
    tables = {r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()}
    if "matches" not in tables:
        return False
    return bool(con.execute("select count(*) from matches").fetchall()[0][0])
