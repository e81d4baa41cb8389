"""Queries behind the Kakomimasu pages (one function per SQL file under ``queries/sql/kakomimasu``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from queries.dashboard import Con, _df


def game(con: Con, match: str) -> dict[str, Any] | None:
    df = _df(con, "kakomimasu/game", match=match)
    return None if df.empty else df.iloc[0].to_dict()



def points(con: Con, match: str) -> pd.DataFrame:
    return _df(con, "kakomimasu/points", match=match)


def outcomes(con: Con, match: str) -> pd.DataFrame:
    return _df(con, "kakomimasu/outcomes", match=match)


def conflict_cells(con: Con, match: str) -> pd.DataFrame:
    return _df(con, "kakomimasu/conflict_cells", match=match)


def findings(con: Con, match: str) -> pd.DataFrame:
    return _df(con, "kakomimasu/findings", match=match)


def teams(con: Con, match: str) -> pd.DataFrame:
    return _df(con, "kakomimasu/teams", match=match)


def players(con: Con) -> pd.DataFrame:
    """Every Kakomimasu player across the games: record, points, actions."""
    return _df(con, "kakomimasu/players")

