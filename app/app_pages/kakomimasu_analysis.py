"""Kakomimasu points and actions: points per turn, how every team's actions turned out, where they collided."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import charts, kakomimasu, reasons, ui
from app.frames import clip
from app.findings import finding_sentence
from app.i18n import _
from queries import kakomimasu as kq

#: Characters of a team's name the charts show (a long name would crowd out the bars; the table shows it whole).
CHART_NAME = 24

st.title(_("Kakomimasu points and actions"))
con = ui.require_data()
match, info = kakomimasu.selected_game(con)
names = ui.names_of(con, match)
colors = {clip(k, CHART_NAME): v for k, v in ui.name_colors(con, match).items()}  # the charts show names cut short
teams = kq.teams(con, match).sort_values(["rank", "player_index"], na_position="last")
winners = [names.get(c, c) for c in teams.sort_values("rank")["player_code"].head(1)] if info.get("decided_by") else []
if info.get("decided_by") == "draw":
    st.subheader(_("A draw: equal total and wall points"))
elif winners:
    st.subheader(_("{winner} wins on {how}").format(winner=ui.md(winners[0]),
                                                     how=_(ui.DECIDED_BY.get(info["decided_by"], "—"))))  # fmt: skip
else:
    st.subheader(_("Not finished: {turns} of {total} turns logged").format(
        turns=info.get("turns_logged") or 0, total=info.get("total_turn") or "?"))  # fmt: skip
st.caption(_("Click a bot to make it your bot: every page then opens on its worst match."))
event = st.dataframe(ui.readable(teams.drop(columns=["player_code", "player_index"])), hide_index=True,
                     placeholder=ui.MISSING, width="stretch", key="km.teams", on_select="rerun",
                     selection_mode="single-row")  # fmt: skip
if (picked := ui.selected_row(event)) is not None and picked < len(teams):
    ui.make_my_bot(str(teams["player"].iloc[picked]), "kakomimasu")

points = kq.points(con, match)
if points.empty:
    st.info(_("No turn has been played in this game yet."))
    st.stop()
words = {"area": _("area"), "wall": _("wall"), "total": _("total"), "turn": _("Turn"), "points": _("Points")}
st.plotly_chart(charts.team_points(points.assign(player=points["player"].map(lambda n: clip(n, CHART_NAME))),
                                   _("Points after every turn"), words, colors), width="stretch", key="km.points",
                config=charts.CONFIG)

outcomes = kq.outcomes(con, match)
if not outcomes.empty:
    shown = outcomes.assign(
        who=outcomes["player"].map(lambda n: clip(n, CHART_NAME)) + " · " + _("agent") + " " + outcomes["agent_id"].astype(str),
        result=outcomes["res"].map(lambda r: _(kakomimasu.RESULT_LABELS.get(int(r), str(r)))),
    ).groupby(["player_index", "agent_id", "who", "result"], as_index=False, sort=True)["actions"].sum()
    result_colors = {_(kakomimasu.RESULT_LABELS[k]): c for k, c in kakomimasu.RESULT_COLOURS.items()}
    st.plotly_chart(charts.outcome_bars(shown, _("How every agent's actions turned out"),
                                        {"who": _("Agent"), "actions": _("Actions"), "result": _("Result")},
                                        result_colors), width="stretch", key="km.outcomes", config=charts.CONFIG)  # fmt: skip

cells = kq.conflict_cells(con, match)
if cells.empty:
    st.caption(_("No action collided with another in this game."))
else:
    grid = [[0] * int(info["width"]) for _row in range(int(info["height"]))]
    for x, y, c, r in cells[["x", "y", "conflicts", "reverts"]].itertuples(index=False):
        if 0 <= y < len(grid) and 0 <= x < len(grid[0]):
            grid[int(y)][int(x)] = int(c) + int(r)
    st.plotly_chart(charts.field_heatmap(grid, _("Where actions collided"), _("Conflicts and reverts per cell")),
                    width="stretch", key="km.heat", config=charts.CONFIG)  # fmt: skip

found = kq.findings(con, match)
st.subheader(_("Findings"))
if found.empty:
    st.caption(_("No finding: every action, point and tile agrees with the rules."))
else:
    rows = found.to_dict("records")
    table = pd.DataFrame({
        "turn": found["turn"], "player_name": found["player_name"], "severity": found["severity"].map(reasons.severity_word),
        "message": [finding_sentence(r, names) for r in rows], "code": found["code"],
    })  # fmt: skip
    st.dataframe(ui.readable(table), hide_index=True, placeholder=ui.MISSING, width="stretch", key="km.findings",
                 column_config=ui.wide_columns(["message"]))  # fmt: skip
