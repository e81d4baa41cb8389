"""Players: the same bot name across matches (bot versions), and two bots side by side."""

from __future__ import annotations

import streamlit as st

from app import ui
from app.i18n import _
from queries import dashboard as q

st.title(_("Players"))
con = ui.require_data()
stats = q.bot_stats(con)
st.dataframe(ui.readable(stats), hide_index=True, placeholder=ui.MISSING, width="stretch", key="pl.table")
st.caption(_(
    "Think time: milliseconds from the moment the dealer's 5-second clock started for the bot (its next-player, "
    "colour request or playable draw) to its action, from the log's timestamps. Actions over 4 s are close to "
    "the limit; a late action the dealer did not punish is a `timeout-missed` or `special-logic-timer` finding."
))  # fmt: skip
names = list(stats["player_name"])
if len(names) >= 2:
    c1, c2 = st.columns(2)
    a = c1.selectbox(_("Compare"), names, index=0, key="pl.a")
    b = c2.selectbox(_("with"), names, index=1, key="pl.b")
    side = ui.readable(stats).set_index(_("Player")).loc[[a, b]].T
    side.columns = [f"{a}", f"{b} "] if a == b else [a, b]
    st.dataframe(side.astype(object).where(side.notna(), ui.MISSING).astype(str), width="stretch", key="pl.compare")
