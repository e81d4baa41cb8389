"""Queries behind validation reports (``kifu validate``) and the violations page."""

from __future__ import annotations

import duckdb
import pandas as pd

from queries import sql


def report_matches(con: duckdb.DuckDBPyConnection, match: str | None = None) -> pd.DataFrame:
    return con.execute(sql("validation_matches"), {"match": match}).df()


def report_counts(
    con: duckdb.DuckDBPyConnection, match: str | None = None, player: str | None = None
) -> pd.DataFrame:
    return con.execute(sql("validation_counts"), {"match": match, "player": player}).df()
