"""Pure figure builders: DataFrame in, Plotly figure out (no Streamlit calls).

Players keep one colour on every chart of a match (``colors``: name -> colour, from
``ui.player_colors``); labels come in already translated.
"""

from __future__ import annotations

import html

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go


def _text(df: pd.DataFrame, *columns: str | None) -> pd.DataFrame:
    """Plotly renders legend, axis and hover text as HTML-lite (links, <b>…): escape untrusted values."""
    cols = [c for c in columns if c is not None and c in df.columns and not pd.api.types.is_numeric_dtype(df[c])]
    return df.assign(**{c: df[c].map(lambda v: v if v is None else html.escape(str(v))) for c in cols}) if cols else df


def _colors(colors: dict[str, str] | None) -> dict[str, str]:
    return {html.escape(str(k)): v for k, v in (colors or {}).items()}


def _layout(fig: go.Figure, height: int) -> go.Figure:
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend_title_text="")
    return fig


def score_race(df: pd.DataFrame, title: str = "Cumulative score by round", labels: dict[str, str] | None = None,
               colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    df = _text(df, "player_name")
    fig = px.line(df, x="round_no", y="total_score", color="player_name", title=title, labels=labels or {},
                  color_discrete_map=_colors(colors))  # fmt: skip
    return _layout(fig, 380)


def ranked_bars(df: pd.DataFrame, category: str, color: str, title: str, labels: dict[str, str] | None = None,
                colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    """Horizontal bars, most frequent on top, stacked by ``color``, each bar's total printed."""
    counts = _text(df.groupby([category, color]).size().reset_index(name="count"), category, color)
    totals = counts.groupby(category)["count"].sum().sort_values()
    fig = px.bar(counts, y=category, x="count", color=color, orientation="h", title=title, labels=labels or {},
                 color_discrete_map=_colors(colors), category_orders={category: list(totals.index[::-1])})  # fmt: skip
    fig.add_trace(go.Scatter(y=list(totals.index), x=list(totals.values), mode="text", text=[str(v) for v in totals.values],
                             textposition="middle right", showlegend=False, hoverinfo="skip"))  # fmt: skip
    fig.update_yaxes(automargin=True, dtick=1)
    fig.update_xaxes(range=[0, float(totals.max()) * 1.15 + 1])
    return _layout(fig, max(260, 28 * len(totals) + 90))


def per_round(df: pd.DataFrame, color: str | None, title: str, labels: dict[str, str] | None = None,
              colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    """Counts per round — one bar per round (no bins), stacked by ``color``."""
    keys = ["round_no", color] if color else ["round_no"]
    counts = _text(df.groupby(keys).size().reset_index(name="count"), color)
    fig = px.bar(counts, x="round_no", y="count", color=color, title=title, labels=labels or {},
                 color_discrete_map=_colors(colors))  # fmt: skip
    fig.update_layout(bargap=0.1)
    return _layout(fig, 320)


def team_points(df: pd.DataFrame, title: str, names: dict[str, str], colors: dict[str, str] | None = None) -> go.Figure:
    """Kakomimasu points per turn: one colour per team, total solid, wall dashed, area dotted.

    ``df``: turn, player, area, wall, total; ``names``: 'area'/'wall'/'total'/'turn'/'points' → label.
    """
    df = _text(df, "player")
    cmap = _colors(colors)
    fig = go.Figure()
    for kind, dash in (("total", "solid"), ("wall", "dash"), ("area", "dot")):
        for team, rows in df.groupby("player", sort=False):
            fig.add_trace(go.Scatter(
                x=rows["turn"], y=rows[kind], mode="lines", name=f"{team} · {names.get(kind, kind)}",
                line={"dash": dash, "color": cmap.get(str(team)), "width": 3 if kind == "total" else 1.6},
                legendgroup=str(team),
            ))  # fmt: skip
    fig.update_layout(title=title, xaxis_title=names.get("turn", "turn"), yaxis_title=names.get("points", "points"))
    return _layout(fig, 400)


def outcome_bars(df: pd.DataFrame, title: str, labels: dict[str, str] | None = None,
                 colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    """Action outcomes per team and agent: stacked bars (``df``: who, result, actions)."""
    df = _text(df, "who", "result")
    fig = px.bar(df, x="who", y="actions", color="result", title=title, labels=labels or {},
                 color_discrete_map=colors or {}, text="actions")  # fmt: skip
    fig.update_layout(barmode="stack", xaxis={"type": "category"})
    return _layout(fig, 380)


def field_heatmap(values: list[list[int]], title: str, label: str) -> go.Figure:
    """A count per cell of the field, row 0 at the top (``values[y][x]``)."""
    fig = go.Figure(go.Heatmap(z=values, colorscale="Reds", colorbar={"title": label}, xgap=1, ygap=1,
                               hovertemplate="(%{x}, %{y}): %{z}<extra></extra>"))  # fmt: skip
    fig.update_layout(title=title, yaxis={"autorange": "reversed", "scaleanchor": "x", "dtick": 1},
                      xaxis={"dtick": 1, "side": "top"})  # fmt: skip
    return _layout(fig, 460)


def per_action_items(df: pd.DataFrame, title: str, labels: dict[str, str] | None = None,
                     colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    """CHaser items per team after every action (``df``: seq, player, items)."""
    df = _text(df, "player")
    fig = px.line(df, x="seq", y="items", color="player", title=title, labels=labels or {}, line_shape="hv",
                  color_discrete_map=_colors(colors))  # fmt: skip
    return _layout(fig, 360)
