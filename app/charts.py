"""Pure figure builders: DataFrame in, Plotly figure out (no Streamlit calls)."""

from __future__ import annotations

import html

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go


def _text(df: pd.DataFrame, *columns: str | None) -> pd.DataFrame:
    """Plotly renders legend, axis and hover text as HTML-lite (links, <b>…): escape untrusted values."""
    cols = [c for c in columns if c is not None and c in df.columns and not pd.api.types.is_numeric_dtype(df[c])]
    return df.assign(**{c: df[c].map(lambda v: v if v is None else html.escape(str(v))) for c in cols}) if cols else df


def score_race(df: pd.DataFrame, title: str = "Cumulative score by round") -> go.Figure:
    df = _text(df, "player_name")
    fig = px.line(df, x="round_no", y="total_score", color="player_name", title=title,
                  labels={"round_no": "round", "total_score": "total score", "player_name": "player"})  # fmt: skip
    fig.update_layout(height=380, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend_title_text="")
    return fig


def stacked_counts(df: pd.DataFrame, x: str, color: str, title: str) -> go.Figure:
    counts = _text(df.groupby([x, color]).size().reset_index(name="count"), x, color)
    fig = px.bar(counts, x=x, y="count", color=color, title=title)
    fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend_title_text="")
    return fig


def histogram(df: pd.DataFrame, x: str, color: str | None, title: str) -> go.Figure:
    fig = px.histogram(_text(df, x, color), x=x, color=color, title=title)
    fig.update_layout(height=320, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend_title_text="")
    return fig
