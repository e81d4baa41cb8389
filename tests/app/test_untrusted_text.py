"""Names, titles and file names from bots and dealers are shown as text: Markdown, KaTeX, colour
shortcodes, HTML in Plotly legends and terminal escape sequences have no effect."""

from __future__ import annotations

import html

import pandas as pd

from app import charts, ui
from loaders.pipeline import printable

HOSTILE = 'evil <a href="http://x">link</a> ![img](http://x/i.png) $x^2$ :red[red] **bold** `code`\x1b[31m'


def test_markdown_escape_leaves_no_active_syntax() -> None:
    out = ui.md(HOSTILE)
    for i, ch in enumerate(out):  # every character Markdown could act on is backslash-escaped
        if ch in "`*_{}[]()#+-.!|<>$~:":
            assert out[i - 1] == "\\", (ch, out[: i + 1])
    assert "\\!\\[img\\]" in out and "\\<a href" in out and "\\$x^2\\$" in out and "\\:red\\[red\\]" in out
    assert "\x1b" not in out


def test_code_span_cannot_be_closed_early() -> None:
    assert ui.code("a`b\x1bc") == "`a'b c`"


def test_chart_legends_and_hovers_escape_html() -> None:
    df = pd.DataFrame({"round_no": [1, 2], "total_score": [3, 4], "player_name": [HOSTILE, HOSTILE]})
    fig = charts.score_race(df, "t", {}, {HOSTILE: "#E69F00"})
    names = {t.name for t in fig.data}
    shown = charts.wrap(html.escape(HOSTILE))  # escaped, then wrapped: the only markup is charts' own <br>
    assert names == {shown} and "<a " not in next(iter(names)) and "<" not in shown.replace("<br>", "")
    assert fig.data[0].line.color == "#E69F00"  # the player's colour follows the escaped name
    bars = charts.ranked_bars(pd.DataFrame({"cause": ["<b>x</b>"], "player_name": [HOSTILE]}), "cause", "player_name", "t", {})
    assert "<b>" not in str(list(bars.data[0].y)) and {t.name for t in bars.data if t.name} == {shown}
    per = charts.per_round(pd.DataFrame({"round_no": [1], "player_name": [HOSTILE]}), "player_name", "t", {})
    assert {t.name for t in per.data} == {shown}


def test_terminal_output_neutralises_control_characters() -> None:
    assert printable("a\x1b[31mb\nc") == "a\\x1b[31mb\\nc"
