"""Queries behind the CHaser pages (one function per SQL file under ``queries/sql/chaser``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from queries.dashboard import Con, _df


def game(con: Con, match: str) -> dict[str, Any] | None:
    df = _df(con, "chaser/game", match=match)
    return None if df.empty else df.iloc[0].to_dict()



def items(con: Con, match: str) -> pd.DataFrame:
    return _df(con, "chaser/items", match=match)


def bots(con: Con) -> pd.DataFrame:
    return _df(con, "chaser/bots")


def bot_games(con: Con, bot: str) -> pd.DataFrame:
    return _df(con, "chaser/bot_games", bot=bot)
