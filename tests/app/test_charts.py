"""The figure builders: long (Japanese) labels wrapped, room for the title and the legend, the
Kakomimasu board as the heatmap's axes, CHaser items never below 0, hostile names kept as text."""

from __future__ import annotations

import html
import inspect
import json
import re

import pandas as pd
import pytest
import streamlit as st

from app import charts
from tests.app.conftest import HOSTILE

JA_CAUSE = "リクエストデータに is_play_card プロパティがない (Param is_play_card invalid.)"
JA_LONG = "カードを出すことができない、または、手札の所持数が 2 枚のときではない (Can not say uno and play card.)"
URL_NAME = "visit https://evil.example/<b>win</b> now"


def _width(line: str) -> float:
    plain = re.sub(r"&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);", "x", line)
    return sum(charts._cols(c) for c in plain)


def _causes(*causes: str, players: tuple[str, ...] = ("Alice",)) -> pd.DataFrame:
    rows = [(c, p) for c in causes for p in players]
    return pd.DataFrame(rows, columns=["cause_text", "player_name"])


@pytest.mark.parametrize("text", [JA_CAUSE, JA_LONG, "Card play invalid with card before. " * 3, "x" * 90, HOSTILE,
                                  URL_NAME, "短い", "a & b"])  # fmt: skip
def test_wrap_keeps_lines_short_and_text_whole(text: str) -> None:
    escaped = html.escape(text)
    wrapped = charts.wrap(escaped, max_lines=len(escaped))
    lines = wrapped.split("<br>")
    assert all(_width(line) <= charts.LABEL_WIDTH + charts.FULL_WIDTH for line in lines), lines
    # nothing lost or added but the breaks (a space at a break is dropped)
    assert re.sub(r"\s", "", wrapped.replace("<br>", "")) == re.sub(r"\s", "", escaped)
    # entities are never cut, and the only markup is the <br> added here
    assert "<" not in wrapped.replace("<br>", "") and not re.search(r"&[a-z#0-9]*<br>", wrapped)


def test_a_label_keeps_at_most_max_lines() -> None:
    """A 3,000-character bot name does not fill the chart: cut after MAX_LINES lines, ending in "…"."""
    lines = charts.wrap(html.escape("L" * 3000)).split("<br>")
    assert len(lines) == charts.MAX_LINES and lines[-1].endswith("…")
    assert charts.wrap("short name") == "short name"


def test_long_japanese_labels_are_wrapped_and_the_chart_grows() -> None:
    fig = charts.ranked_bars(_causes(JA_CAUSE, JA_LONG, "timeout"), "cause_text", "player_name", "プレイヤー別の原因", {})
    labels = list(fig.data[0].y)
    assert any("<br>" in y for y in labels if "リクエスト" in y) and any(y.count("<br>") >= 2 for y in labels)
    assert "timeout" in labels
    short = charts.ranked_bars(_causes("a", "b", "c"), "cause_text", "player_name", "t", {})
    assert fig.layout.height > short.layout.height
    assert fig.layout.yaxis.automargin and fig.layout.yaxis.title.text is None


def test_legend_below_the_plot_and_title_in_its_own_room() -> None:
    builders = [
        charts.ranked_bars(_causes("a", players=("A", "B")), "cause_text", "player_name", "t", {}),
        charts.per_round(pd.DataFrame({"round_no": [1, 2], "player_name": ["A", "B"]}), "player_name", "t", {}),
        charts.score_race(pd.DataFrame({"round_no": [1], "total_score": [1], "player_name": ["A"]}), "t", {}),
    ]
    for fig in builders:
        legend, title = fig.layout.legend, fig.layout.title
        assert legend.orientation == "h" and legend.yref == "container" and legend.y == 0 and legend.yanchor == "bottom"
        assert title.automargin and title.yref == "paper" and title.yanchor == "bottom" and title.text == "t"
        assert "toimage" in fig.layout.modebar.remove  # no toolbar buttons even without the page's config


def test_titles_are_wrapped_and_escaped() -> None:
    fig = charts.per_round(pd.DataFrame({"round_no": [1]}), None, "行動がぶつかった場所（マスごとの競合と取り消し）<b>", {})
    assert "<br>" in fig.layout.title.text and "&lt;b&gt;" in fig.layout.title.text


def test_modebar_config_reaches_streamlit() -> None:
    assert charts.CONFIG == {"displayModeBar": False}
    assert "config" in inspect.signature(st.plotly_chart).parameters


@pytest.mark.parametrize(("width", "height"), [(20, 20), (10, 12), (24, 18)])
def test_heatmap_axes_are_the_board(width: int, height: int) -> None:
    grid = [[(x + y) % 3 for x in range(width)] for y in range(height)]
    fig = charts.field_heatmap(grid, "t", "actions")
    assert list(fig.layout.xaxis.range) == [-0.5, width - 0.5]
    assert list(fig.layout.yaxis.range) == [height - 0.5, -0.5]  # row 0 at the top
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.scaleratio == 1  # square cells
    assert fig.layout.xaxis.constrain == "domain" and fig.layout.yaxis.constrain == "domain"  # the board, not a wider range
    assert list(fig.data[0].x) == list(range(width)) and list(fig.data[0].y) == list(range(height))


def test_items_never_below_zero_and_per_turn() -> None:
    df = pd.DataFrame({"seq": [1, 1, 2, 2, 3, 3, 4, 4], "turn": [1, 1, 1, 1, 2, 2, 2, 2],
                       "team": ["COOL", "HOT"] * 4, "player": ["c", "h"] * 4, "items": [0, 0, 0, 0, 0, 0, 0, 1]})  # fmt: skip
    fig = charts.per_action_items(df, "t", {"turn": "ターン"}, {"c": "#0072B2", "h": "#D55E00"})
    assert fig.layout.yaxis.range[0] == 0 and fig.layout.yaxis.rangemode == "nonnegative"
    assert {tuple(t.x) for t in fig.data} == {(1, 2)}  # one point per turn: the turn, not the action number
    zero = charts.per_action_items(df.assign(items=0), "t", {})
    assert zero.layout.yaxis.range[0] == 0 and zero.layout.yaxis.range[1] > 0


@pytest.mark.parametrize("name", [HOSTILE, URL_NAME, "a" * 40 + HOSTILE])
def test_hostile_names_stay_text_after_wrapping(name: str) -> None:
    df = _causes(f"cause {name}", players=(name, "B"))
    figs = [
        charts.ranked_bars(df, "cause_text", "player_name", "t", {}, {name: "#E69F00"}),
        charts.per_round(df.assign(round_no=1), "player_name", "t", {}, {name: "#E69F00"}),
        charts.score_race(pd.DataFrame({"round_no": [1], "total_score": [1], "player_name": [name]}), "t", {},
                          {name: "#E69F00"}),
        charts.per_action_items(pd.DataFrame({"seq": [1], "turn": [1], "player": [name], "items": [0]}), "t", {}),
        charts.outcome_bars(pd.DataFrame({"who": [name], "result": [name], "actions": [3]}), "t", {}),
        charts.team_points(pd.DataFrame({"turn": [1], "player": [name], "area": [0], "wall": [1], "total": [1]}), "t",
                           {"total": name}),
    ]  # fmt: skip
    for fig in figs:
        text = json.dumps(json.loads(fig.to_json())["data"], ensure_ascii=False)  # to_json writes < as \u003c
        assert "&lt;" in text or "<" not in name
        for bad in ("<img", "<b>", "<a ", "onerror=alert(1)>"):
            assert bad not in text, (bad, text[:300])
        for trace in fig.data:
            if trace.name:
                assert "<" not in trace.name.replace("<br>", "")
    coloured = [t for t in figs[0].data if t.name and t.name.startswith(charts.wrap(html.escape(name))[:10])]
    assert coloured and coloured[0].marker.color == "#E69F00"  # the colour follows the escaped, wrapped name
