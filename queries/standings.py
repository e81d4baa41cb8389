"""Contest ranking rules (大会ルール 予選大会の進行 / 決勝大会), applied to query results."""

from __future__ import annotations

import pandas as pd

#: The dealer names its built-in demo players "Alternative N"; they never advance.
DEMO_PREFIX = "Alternative"
RANK_POINTS = {1: 5, 2: 3, 3: 2, 4: 1}


def preliminary_group(rows: pd.DataFrame) -> pd.DataFrame:
    """Rank by total score, ties to whoever reached the score first; the top two non-demo players advance."""
    df = rows.groupby(["player_name"], as_index=False).agg(
        total_score=("final_score", "sum"), reached_round=("reached_round", "min"), matches=("match_id", "nunique")
    )
    df = df.sort_values(["total_score", "reached_round", "player_name"], ascending=[False, True, True]).reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    advancing = [n for n in df["player_name"] if not str(n).startswith(DEMO_PREFIX)][:2]
    df["advances"] = df["player_name"].isin(advancing)
    return df


def final_stage(rows: pd.DataFrame, long_match: str) -> pd.DataFrame:
    """Rank points 5/3/2/1 per match; ties on the sum go to the better rank in the 1,000-round match."""
    r = rows.copy()
    r["rank_points"] = r["final_rank"].map(RANK_POINTS).fillna(0).astype(int)
    long_rank = r[r["match_id"] == long_match].set_index("player_name")["final_rank"]
    df = r.groupby("player_name", as_index=False).agg(rank_points=("rank_points", "sum"), matches=("match_id", "nunique"),
                                                      total_score=("final_score", "sum"))  # fmt: skip
    df["long_match_rank"] = df["player_name"].map(long_rank)
    df = df.sort_values(["rank_points", "long_match_rank"], ascending=[False, True], na_position="last").reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    return df
