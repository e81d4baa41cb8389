"""Standings: group matches into a contest stage and rank teams the way the contest rules do."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import charts, ui
from queries import dashboard as q
from queries.standings import DEMO_PREFIX, final_stage, preliminary_group

st.title("Standings")
con = ui.require_data()
matches = q.match_list(con)
labels = dict(zip(matches["match_id"], matches["label"], strict=True))
kind = st.radio("Stage", ["preliminary group (one match, top two advance)", "final (rank points 5/3/2/1)"],
                key="st.kind")  # fmt: skip
picked = st.multiselect("Matches in this stage", list(matches["match_id"]), default=[ui.selected_match()],
                        format_func=lambda m: labels.get(m, m), key="st.matches")  # fmt: skip
if not picked:
    st.info("Pick the matches of the stage.")
    st.stop()
rows = q.standings(con, picked)
if kind.startswith("preliminary"):
    table = preliminary_group(rows)
    st.caption(f"Ranked by total score; a tie goes to whoever reached the score first. Players named "
               f"'{DEMO_PREFIX}…' (the dealer's demo players) never advance.")  # fmt: skip
    st.dataframe(table, hide_index=True, width="stretch", key="st.table")
    race = pd.concat([q.score_race(con, m).assign(match=labels.get(m, m)) for m in picked])
    st.plotly_chart(charts.score_race(race, "Score race"), width="stretch", key="st.race")
else:
    long_match = st.selectbox("The 1,000-round match (tie-break)", picked, format_func=lambda m: labels.get(m, m),
                              key="st.long")  # fmt: skip
    st.dataframe(final_stage(rows, long_match), hide_index=True, width="stretch", key="st.table")
