"""Pure figure builders: DataFrame in, Plotly figure out (no Streamlit calls).

Players keep one colour on every chart of a match (``colors``: name -> colour, from
``ui.player_colors``); labels come in already translated.

Every chart must stay legible in Japanese and English from a 390 px phone to a desktop: untrusted
text is HTML-escaped (Plotly renders legend, axis and hover text as HTML-lite) and only then wrapped
with ``<br>`` (:func:`wrap`), the title and the legend reserve their own room above and below the
plot, heights follow the number of bars, and Plotly's toolbar stays off (pass :data:`CONFIG`).
"""

from __future__ import annotations

import html
import math
import re
import unicodedata

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

#: ``st.plotly_chart(fig, config=charts.CONFIG)``: no Plotly toolbar over the title.
CONFIG = {"displayModeBar": False}
#: The toolbar buttons a figure drops by itself (for pages that do not pass :data:`CONFIG`).
_MODEBAR_REMOVE = ["zoom", "pan", "select", "lasso", "zoomin", "zoomout", "autoscale", "resetscale", "toimage",
                   "togglespikelines", "hoverclosestcartesian", "hovercomparecartesian"]  # fmt: skip
#: Line widths in half-width columns (a full-width character counts :data:`FULL_WIDTH`).
LABEL_WIDTH = 28
TITLE_WIDTH = 36
FULL_WIDTH = 1.75
_ENTITY = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z]+);")
#: Characters a line should not start with (Japanese line-breaking rules, simplified).
_NO_START = set("、。，．,.)）」』】〕〉》！？!?ー・：:；;ゃゅょっャュョッァィゥェォ")


def _cols(ch: str) -> float:
    return FULL_WIDTH if unicodedata.east_asian_width(ch) in "WF" else 1.0


def _tokens(text: str) -> list[tuple[str, float, str]]:
    """(text, columns, kind): kind 'space', 'cjk' (breakable either side) or 'word' (Latin, entities kept whole)."""
    out: list[tuple[str, float, str]] = []
    i = 0
    while i < len(text):
        m = _ENTITY.match(text, i)
        piece = m.group(0) if m else text[i]
        i += len(piece)
        if piece.isspace():
            kind, cols = "space", 1.0
        elif len(piece) == 1 and _cols(piece) > 1:
            kind, cols = "cjk", _cols(piece)
        else:
            kind, cols = "word", 1.0
        if kind == "word" and out and out[-1][2] == "word":
            out[-1] = (out[-1][0] + piece, out[-1][1] + cols, "word")
        else:
            out.append((piece, cols, kind))
    return out


def _split_word(word: str, width: float) -> list[tuple[str, float]]:
    """A word too long for a line, cut into pieces of at most ``width`` columns (entities kept whole)."""
    pieces: list[tuple[str, float]] = [("", 0.0)]
    for m in re.finditer(_ENTITY.pattern + "|.", word, re.S):
        text, cols = pieces[-1]
        if cols + 1 > width and text:
            pieces.append((m.group(0), 1.0))
        else:
            pieces[-1] = (text + m.group(0), cols + 1)
    return pieces


#: Lines a label keeps at most (a 3,000-character bot name must not fill the chart); "…" marks the cut.
MAX_LINES = 6


def wrap(text: str, width: float = LABEL_WIDTH, max_lines: int = MAX_LINES) -> str:
    """Break an ALREADY ESCAPED text into lines of at most ``width`` columns joined by ``<br>``.

    Latin text breaks at spaces (a word longer than a line is cut), Japanese between any two
    characters (not before 、。）…), HTML entities are never cut. The only markup in the result is
    the ``<br>`` added here, so escaped log text stays text. Past ``max_lines`` lines the text is cut,
    ending in "…".
    """
    lines: list[str] = []
    line, used, space = "", 0.0, False
    for piece, cols, kind in _tokens(str(text)):
        if kind == "space":
            space = bool(line)
            continue
        gap = 1.0 if space else 0.0
        if not line or used + gap + cols <= width or (kind == "cjk" and piece in _NO_START):
            if cols <= width or not line:
                parts = _split_word(piece, width) if cols > width else [(piece, cols)]
                line, used = line + (" " if space else "") + parts[0][0], used + gap + parts[0][1]
                for part, part_cols in parts[1:]:
                    lines.append(line)
                    line, used = part, part_cols
                space = False
                continue
        lines.append(line)
        parts = _split_word(piece, width) if cols > width else [(piece, cols)]
        for part, part_cols in parts[:-1]:
            lines.append(part)
        line, used = parts[-1]
        space = False
    if line:
        lines.append(line)
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], lines[max_lines - 1] + "…"]
    return "<br>".join(lines)


def _label(value: object, width: float = LABEL_WIDTH) -> str:
    return wrap(html.escape(str(value)), width)


def _lines(text: str) -> int:
    return str(text).count("<br>") + 1


def _text(df: pd.DataFrame, *columns: str | None, width: float = LABEL_WIDTH) -> pd.DataFrame:
    """Plotly renders legend, axis and hover text as HTML-lite (links, <b>…): escape untrusted values, then wrap."""
    cols = [c for c in columns if c is not None and c in df.columns and not pd.api.types.is_numeric_dtype(df[c])]
    return df.assign(**{c: df[c].map(lambda v: v if v is None else _label(v, width)) for c in cols}) if cols else df


def _colors(colors: dict[str, str] | None, width: float = LABEL_WIDTH) -> dict[str, str]:
    return {_label(k, width): v for k, v in (colors or {}).items()}


def _layout(fig: go.Figure, height: int, title: str | None = None, legend: bool = True) -> go.Figure:
    """Title in its own room at the top left, the legend in its own room below the plot (horizontal),
    small margins that grow with the labels (automargin), no toolbar buttons.

    The title sits on the plot area (``yref="paper"``, anchored at its bottom) and pushes the top
    margin: a title anchored at the container's top with ``yanchor="top"`` runs out of the chart
    once it is wrapped (Plotly 3.8 stacks the further lines above the anchor)."""
    text = wrap(html.escape(title, quote=False), TITLE_WIDTH) if title is not None else fig.layout.title.text
    fig.update_layout(
        height=height, margin={"l": 8, "r": 8, "t": 12, "b": 8, "autoexpand": True},
        title={"text": text, "automargin": True, "x": 0, "xanchor": "left", "xref": "container",
               "y": 1, "yanchor": "bottom", "yref": "paper", "pad": {"l": 8, "b": 10}},
        legend={"title_text": "", "orientation": "h", "x": 0, "xanchor": "left", "xref": "container",
                "y": 0, "yanchor": "bottom", "yref": "container", "entrywidthmode": "pixels"},
        modebar={"remove": _MODEBAR_REMOVE},
    )  # fmt: skip
    if not legend:
        fig.update_layout(showlegend=False)
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return fig


def _legend_rows(names: list[str]) -> int:
    """Rows a horizontal legend takes on a phone (about 320 px: some 40 columns)."""
    rows, used = 1, 0.0
    for name in names:
        cols = max(sum(c for _p, c, _k in _tokens(line)) for line in str(name).split("<br>")) + 5
        if used and used + cols > 40:
            rows, used = rows + 1, 0.0
        used += cols
    return rows + sum(_lines(n) - 1 for n in names)


def score_race(df: pd.DataFrame, title: str = "Cumulative score by round", labels: dict[str, str] | None = None,
               colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    df = _text(df, "player_name")
    fig = px.line(df, x="round_no", y="total_score", color="player_name", labels=labels or {},
                  color_discrete_map=_colors(colors))  # fmt: skip
    fig.update_xaxes(tickformat="d")  # round numbers: whole
    if 0 < df["round_no"].nunique() <= 12:  # a short match (JUA: 5 rounds): every round a tick, no 1.5
        fig.update_xaxes(tickmode="array", tickvals=sorted(df["round_no"].unique().tolist()))
    return _layout(fig, 380 + 20 * _legend_rows(list(dict.fromkeys(df["player_name"]))), title)


def ranked_bars(df: pd.DataFrame, category: str, color: str, title: str, labels: dict[str, str] | None = None,
                colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    """Horizontal bars, most frequent on top, stacked by ``color``, each bar's total printed.

    Long category labels (penalty causes, check titles) are wrapped onto several lines and the
    chart grows with them, so the bars keep their room on a phone and in Japanese.
    """
    counts = _text(df.groupby([category, color]).size().reset_index(name="count"), category, color)
    totals = counts.groupby(category)["count"].sum().sort_values()
    fig = px.bar(counts, y=category, x="count", color=color, orientation="h", labels=labels or {},
                 color_discrete_map=_colors(colors), category_orders={category: list(totals.index[::-1])})  # fmt: skip
    fig.add_trace(go.Scatter(y=list(totals.index), x=list(totals.values), mode="text", text=[str(v) for v in totals.values],
                             textposition="middle right", showlegend=False, hoverinfo="skip", cliponaxis=False))  # fmt: skip
    fig.update_yaxes(dtick=1, title_text=None, tickfont={"size": 11})
    fig.update_xaxes(range=[0, float(totals.max()) * 1.2 + 1])
    bars = sum(max(26, 15 * _lines(c) + 8) for c in totals.index)
    legend = 22 * _legend_rows(list(dict.fromkeys(counts[color])))
    return _layout(fig, max(220, bars + legend + 110), title)


def per_round(df: pd.DataFrame, color: str | None, title: str, labels: dict[str, str] | None = None,
              colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    """Counts per round — one bar per round (no bins), stacked by ``color``."""
    keys = ["round_no", color] if color else ["round_no"]
    counts = _text(df.groupby(keys).size().reset_index(name="count"), color)
    fig = px.bar(counts, x="round_no", y="count", color=color, labels=labels or {},
                 color_discrete_map=_colors(colors))  # fmt: skip
    fig.update_layout(bargap=0.1)
    fig.update_yaxes(rangemode="nonnegative", tickformat="d")  # counts: whole numbers only
    fig.update_xaxes(tickformat="d")  # round numbers
    if counts.groupby("round_no")["count"].sum().max() <= 8:
        fig.update_yaxes(dtick=1)
    if counts["round_no"].nunique() <= 12:
        fig.update_xaxes(tickmode="array", tickvals=sorted(counts["round_no"].unique().tolist()))
    legend = 22 * _legend_rows(list(dict.fromkeys(counts[color]))) if color else 0
    return _layout(fig, 320 + legend, title)


def team_points(df: pd.DataFrame, title: str, names: dict[str, str], colors: dict[str, str] | None = None) -> go.Figure:
    """Kakomimasu points per turn: one colour per team, total solid, wall dashed, area dotted.

    ``df``: turn, player, area, wall, total; ``names``: 'area'/'wall'/'total'/'turn'/'points' → label.
    """
    df = _text(df, "player")
    cmap = _colors(colors)
    words = {k: html.escape(str(v)) for k, v in names.items()}
    fig = go.Figure()
    legend: list[str] = []
    for kind, dash in (("total", "solid"), ("wall", "dash"), ("area", "dot")):
        for team, rows in df.groupby("player", sort=False):
            name = f"{team} · {words.get(kind, kind)}"
            legend.append(name)
            fig.add_trace(go.Scatter(
                x=rows["turn"], y=rows[kind], mode="lines", name=name,
                line={"dash": dash, "color": cmap.get(str(team)), "width": 3 if kind == "total" else 1.6},
                legendgroup=str(team),
                hovertemplate=f"{words.get('turn', 'turn')} %{{x}}: %{{y}}<extra>{name}</extra>",
            ))  # fmt: skip
    fig.update_layout(xaxis_title=words.get("turn", "turn"), yaxis_title=words.get("points", "points"))
    fig.update_yaxes(rangemode="nonnegative")
    return _layout(fig, 380 + 22 * _legend_rows(legend), title)


def outcome_bars(df: pd.DataFrame, title: str, labels: dict[str, str] | None = None,
                 colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    """Action outcomes per team and agent: horizontal stacked bars, one per agent (``df``: who, result, actions)."""
    df = _text(df, "who", "result")
    order = list(dict.fromkeys(df["who"]))
    cmap = _colors(colors)  # also the order of the results (success first)
    results = [r for r in cmap if r in set(df["result"])] + [r for r in dict.fromkeys(df["result"]) if r not in cmap]
    fig = px.bar(df, y="who", x="actions", color="result", orientation="h", labels=labels or {},
                 color_discrete_map=cmap, text="actions", category_orders={"who": order, "result": results})  # fmt: skip
    fig.update_traces(textposition="inside", insidetextanchor="middle", textangle=0)
    fig.update_layout(barmode="stack", uniformtext={"minsize": 9, "mode": "hide"})
    fig.update_yaxes(type="category", dtick=1, title_text=None)
    fig.update_xaxes(rangemode="nonnegative")
    bars = sum(max(24, 15 * _lines(w) + 8) for w in order)
    return _layout(fig, max(240, bars + 22 * _legend_rows(list(dict.fromkeys(df["result"]))) + 110), title)


def field_heatmap(values: list[list[int]], title: str, label: str) -> go.Figure:
    """A count per cell of the field, row 0 at the top (``values[y][x]``): the axes are the board
    (0…width-1, 0…height-1) and the cells square."""
    height, width = len(values), len(values[0]) if values else 0
    name = html.escape(str(label))
    top = max([1, *(max(row) for row in values if row)])
    fig = go.Figure(go.Heatmap(
        z=values, x=list(range(width)), y=list(range(height)), colorscale="Reds", xgap=1, ygap=1,
        zmin=0, zmax=top,
        colorbar={"title": {"text": name, "side": "top"}, "orientation": "h", "thickness": 12, "len": 0.6, "ypad": 4,
                  "x": 0.5, "xanchor": "center", "y": 0.02, "yanchor": "bottom", "yref": "container",
                  "dtick": 1 if top <= 8 else None},
        hovertemplate=f"(%{{x}}, %{{y}}): %{{z}} {name}<extra></extra>",
    ))  # fmt: skip
    step = 1 if max(width, height) <= 20 else 2 if max(width, height) <= 40 else 5
    fig.update_xaxes(range=[-0.5, width - 0.5], constrain="domain", dtick=step, side="bottom", showgrid=False,
                     zeroline=False, fixedrange=True)  # fmt: skip
    fig.update_yaxes(range=[height - 0.5, -0.5], constrain="domain", scaleanchor="x", scaleratio=1, dtick=step,
                     showgrid=False, zeroline=False, fixedrange=True)  # fmt: skip
    _layout(fig, 520, title, legend=False)
    fig.update_layout(margin={"b": 76})  # the colour bar's room, below the board
    return fig


def per_action_items(df: pd.DataFrame, title: str, labels: dict[str, str] | None = None,
                     colors: dict[str, str] | None = None) -> go.Figure:  # fmt: skip
    """CHaser items per team after every turn (``df``: seq, turn, player, items — the last action of
    each turn counts); the y axis never goes below 0 and shows whole items."""
    df = _text(df, "player")
    x = "turn" if "turn" in df.columns and df["turn"].notna().all() else "seq"
    if x == "turn":
        df = df.sort_values("seq").groupby(["turn", "player"], as_index=False, sort=False).last().sort_values("turn")
    fig = px.line(df, x=x, y="items", color="player", labels=labels or {}, line_shape="hv",
                  color_discrete_map=_colors(colors))  # fmt: skip
    top = max(1, int(df["items"].max()) if len(df) else 1)
    fig.update_yaxes(range=[0, top * 1.1], rangemode="nonnegative", dtick=max(1, math.ceil(top / 6)), tick0=0)
    fig.update_traces(cliponaxis=False)
    return _layout(fig, 340 + 22 * _legend_rows(list(dict.fromkeys(df["player"]))), title)
