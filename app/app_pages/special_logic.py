"""Special logic: firings per player and title, per round, the 10-per-round limit, what came before."""

from __future__ import annotations

import streamlit as st

from app import charts, ui
from queries import dashboard as q

LIMIT = 10

st.title("Special logic")
con = ui.require_data()
match, player = ui.selected_match(), ui.selected_player()
df = q.special_logic(con, match, player)
if df.empty:
    st.info("No special logic fired in this selection.")
    st.stop()
accepted = df[df["outcome"] == "accepted"]
c1, c2, c3 = st.columns(3)
c1.metric("Firings", len(df))
c2.metric("Accepted", len(accepted))
per_round = accepted.groupby(["round_no", "player_name"]).size()
c3.metric("Most in one round (limit 10)", int(per_round.max()) if len(per_round) else 0)
titles = df.groupby(["player_name", "title", "outcome"], dropna=False).size().reset_index(name="count")
st.dataframe(titles.sort_values("count", ascending=False), hide_index=True, width="stretch", key="sl.titles")
st.plotly_chart(charts.histogram(df, "round_no", "player_name", "Firings per round"), width="stretch", key="sl.rounds")
over = per_round[per_round > LIMIT]
if len(over):
    st.warning(f"{len(over)} player-round(s) over the limit of {LIMIT} accepted special logics.")
st.dataframe(
    ui.with_links(df)[["open", "round_no", "turn_no", "player_name", "title", "title_length", "outcome", "before_event"]],
    hide_index=True, width="stretch", column_config=ui.LINK_COLUMN, key="sl.table",
)  # fmt: skip
