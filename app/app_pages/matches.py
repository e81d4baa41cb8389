"""Matches: every ingested match, and the selected one in detail."""

from __future__ import annotations

import streamlit as st

from app import charts, ui
from queries import dashboard as q

st.title("Matches")
con = ui.require_data()
matches = q.match_list(con)
c1, c2, c3 = st.columns(3)
c1.metric("Matches", len(matches))
c2.metric("Rounds", int(matches["rounds_played"].sum()))
c3.metric("Finished", int((matches["status"] == "finished").sum()))
st.dataframe(
    matches[["dealer_name", "dealer_code", "players", "winner", "white_wild", "rounds_played", "status", "started_at",
             "match_id"]],
    hide_index=True, width="stretch", key="matches.table",
)  # fmt: skip

match = ui.selected_match()
row = matches[matches["match_id"] == match].iloc[0]
st.subheader(f"{ui.md(row['dealer_name'])} · {ui.md(row['dealer_code'])}")
st.caption(f"match {match} · white wild {row['white_wild'] or 'none'} · {row['rounds_played']} rounds · {row['status']}")
summary = q.match_summary(con, match)
st.dataframe(
    summary, hide_index=True, width="stretch", key="matches.players",
    column_config={"rank": st.column_config.NumberColumn("rank", help="final rank; ties go to whoever reached the score first")},
)  # fmt: skip
race = q.score_race(con, match)
if not race.empty:
    st.plotly_chart(charts.score_race(race), width="stretch", key="matches.race")
st.page_link("app_pages/round_browser.py", label="Open the rounds of this match", icon=":material/style:")
