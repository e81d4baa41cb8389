"""Pure figure builders: DataFrame in, Plotly figure out (no Streamlit calls)."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go


def score_race(df: pd.DataFrame, title: str = "Cumulative score by round") -> go.Figure:
    fig = px.line(df, x="round_no", y="total_score", color="player_name", title=title,
                  labels={"round_no": "round", "total_score": "total score", "player_name": "player"})  # fmt: skip
    fig.update_layout(height=380, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend_title_text="")
    return fig


def stacked_counts(df: pd.DataFrame, x: str, color: str, title: str) -> go.Figure:
    counts = df.groupby([x, color]).size().reset_index(name="count")
    fig = px.bar(counts, x=x, y="count", color=color, title=title)
    fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend_title_text="")
    return fig


def histogram(df: pd.DataFrame, x: str, color: str | None, title: str) -> go.Figure:
    fig = px.histogram(df, x=x, color=color, title=title)
    fig.update_layout(height=320, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend_title_text="")
    return fig
