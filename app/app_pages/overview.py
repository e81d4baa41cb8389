"""Matches overview: what is in the database."""

from __future__ import annotations

import streamlit as st

from app import db
from queries import DatabaseError, overview

st.title("Kifu — matches")
try:
    con = db.connect()
except DatabaseError as exc:
    st.error(str(exc))
    st.stop()

if con is None or not overview.has_data(con):
    st.info(
        f"No data yet in `{db.db_path()}` — ingest a log first: "
        "`kifu ingest LOG --db FILE` (or `kifu ingest --sample`)."
    )
    st.stop()

matches = overview.matches(con)
c1, c2, c3 = st.columns(3)
c1.metric("Matches", len(matches))
c2.metric("Rounds", int(matches["rounds_played"].sum()))
c3.metric("Events", int(matches["n_events"].sum()))
st.dataframe(matches, hide_index=True, width="stretch")

st.subheader("Players")
st.dataframe(overview.match_players(con), hide_index=True, width="stretch")

with st.expander("Ingest runs and load issues"):
    st.dataframe(overview.load_runs(con), hide_index=True, width="stretch")
    issues = overview.load_issues(con)
    if issues.empty:
        st.caption("No load issues.")
    else:
        st.dataframe(issues, hide_index=True, width="stretch")
con.close()
