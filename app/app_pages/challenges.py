"""Challenges: made and declined, verdicts, success rates, wild-draw-4 bluffs caught and missed."""

from __future__ import annotations

import streamlit as st

from app import ui
from queries import dashboard as q

st.title("Challenges")
con = ui.require_data()
match, player = ui.selected_match(), ui.selected_player()
df = q.challenges(con, match, player)
bluffs_missed = q.wd4_unchallenged(con, match, player)
made = df[df["is_challenge"] == True]  # noqa: E712
c1, c2, c3, c4 = st.columns(4)
c1.metric("Challenges made", len(made))
c2.metric("Declined", int((df["is_challenge"] == False).sum()))  # noqa: E712
c3.metric("Bluffs caught", int(made["success"].sum()) if not made.empty else 0)
c4.metric("Bluffs not challenged", len(bluffs_missed))
if df.empty:
    st.info("No wild draw 4 was challenged or declined in this selection.")
else:
    by = st.radio("Success rate by", ["challenger", "target"], horizontal=True, key="ch.by")
    col = "challenger_name" if by == "challenger" else "target_name"
    rates = made.groupby(col).agg(challenges=("seq", "count"), won=("success", "sum"),
                                  cards_drawn=("cards_received", "sum")).reset_index()  # fmt: skip
    rates["success_rate"] = (rates["won"] / rates["challenges"]).round(3)
    st.dataframe(rates, hide_index=True, width="stretch", key="ch.rates")
    st.dataframe(
        ui.with_links(df)[["open", "round_no", "turn_no", "challenger_name", "target_name", "is_challenge", "success",
                           "was_bluff", "receiver", "cards_received"]],
        hide_index=True, width="stretch", column_config=ui.LINK_COLUMN, key="ch.table",
    )  # fmt: skip
st.subheader("Wild draw 4 bluffs nobody challenged")
if bluffs_missed.empty:
    st.caption("None.")
else:
    st.dataframe(ui.with_links(bluffs_missed)[["open", "round_no", "turn_no", "player_name", "message"]],
                 hide_index=True, width="stretch", column_config=ui.LINK_COLUMN, key="ch.bluffs")  # fmt: skip
