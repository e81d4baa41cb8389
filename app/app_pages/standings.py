"""Standings: group matches into a contest stage and rank teams the way the contest rules do."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import charts, ui
from app.i18n import N_, _
from queries import dashboard as q
from queries.standings import DEMO_PREFIX, final_stage, preliminary_group

STAGES = {"preliminary": N_("preliminary group (one match, top two advance)"),
          "final": N_("final (rank points 5/3/2/1)")}  # fmt: skip

st.title(_("Standings"))
con = ui.require_data()
matches = q.match_list(con)
labels = dict(zip(matches["match_id"], matches["label"], strict=True))
kind = ui.remember("st.kind", st.radio(_("Stage"), list(STAGES), key=ui.lkey("st.kind"), format_func=ui.choices(STAGES)))
picked = st.multiselect(_("Matches in this stage"), list(matches["match_id"]), default=[ui.selected_match()],
                        format_func=lambda m: labels.get(m, m), key="st.matches")  # fmt: skip
if not picked:
    st.info(_("Pick the matches of the stage."))
    st.stop()
rows = q.standings(con, picked)
if kind == "preliminary":
    table = preliminary_group(rows)
    st.caption(_("Ranked by total score; a tie goes to whoever reached the score first. Players named "
                 "'{prefix}…' (the dealer's demo players) never advance.").format(prefix=DEMO_PREFIX))  # fmt: skip
    st.dataframe(ui.readable(table), hide_index=True, placeholder=ui.MISSING, width="stretch", key="st.table")
    race = pd.concat([q.score_race(con, m).assign(match=labels.get(m, m)) for m in picked])
    colors = {}
    for m in picked:
        colors.update(ui.name_colors(con, m))
    st.plotly_chart(charts.score_race(race, _("Score race"), ui.chart_labels(), colors), width="stretch", key="st.race")
else:
    long_match = st.selectbox(_("The 1,000-round match (tie-break)"), picked, format_func=lambda m: labels.get(m, m),
                              key="st.long")  # fmt: skip
    st.dataframe(ui.readable(final_stage(rows, long_match)), hide_index=True, placeholder=ui.MISSING, width="stretch", key="st.table")
