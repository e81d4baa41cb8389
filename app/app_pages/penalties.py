"""Penalties: causes by player, over rounds, each row opening its turn."""

from __future__ import annotations

import streamlit as st

from app import charts, ui
from queries import dashboard as q

st.title("Penalties")
con = ui.require_data()
match, player = ui.selected_match(), ui.selected_player()
df = q.penalties(con, match, player)
if df.empty:
    st.success("No penalty in this selection.")
    st.stop()
c1, c2, c3 = st.columns(3)
c1.metric("Penalties", len(df))
c2.metric("Cards received", int(df["cards_received"].fillna(0).sum()))
c3.metric("Explained by a finding", f"{int(df['explained_by'].notna().sum())} / {len(df)}")
causes = df.groupby(["cause", "player_name"]).size().reset_index(name="count").sort_values("count", ascending=False)
left, right = st.columns(2)
left.plotly_chart(charts.stacked_counts(df, "cause", "player_name", "Causes by player"), width="stretch", key="pen.causes")
right.plotly_chart(charts.histogram(df, "round_no", "player_name", "Penalties over rounds"), width="stretch", key="pen.rounds")
cause = st.selectbox("Cause", ["(all causes)", *causes["cause"].unique()], key="pen.cause")
table = df if cause == "(all causes)" else df[df["cause"] == cause]
st.dataframe(
    ui.with_links(table)[["open", "round_no", "turn_no", "seq", "player_name", "cause", "cards_received", "explained_by"]],
    hide_index=True, width="stretch", column_config=ui.LINK_COLUMN, key="pen.table",
)  # fmt: skip
