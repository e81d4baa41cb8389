"""Where did my bot go wrong? Per player and round: penalties, rule breaks, findings, score."""

from __future__ import annotations

import streamlit as st

from app import ui
from app.i18n import _
from queries import dashboard as q

st.title(_("Where did my bot go wrong?"))
con = ui.require_data()
match = ui.selected_match()
player = ui.selected_player()
names = ui.names_of(con, match)
rows = q.player_rounds(con, match, player)
if rows.empty:
    st.info(_("This match has no round yet."))
    st.stop()
who = names.get(player, player) if player else _("every player")
st.caption(_("Rounds of {who}, worst first (most penalties, then rule breaks). Click a row to open that round in the "
             "replayer at its first flagged event. Choose a player in the sidebar to see only their rounds.").format(who=who))
only = st.toggle(_("Only rounds with a penalty or a rule break"), value=True, key="pr.only")
if only:
    rows = rows[(rows["penalties"] > 0) | (rows["player_rule"] > 0)]
rows = rows.sort_values(["penalties", "player_rule", "findings", "round_no"], ascending=[False, False, False, True])
rows = rows.reset_index(drop=True)
if rows.empty:
    st.success(_("No penalty and no rule break in this match for {who}.").format(who=who))
    st.stop()
table = rows.assign(player_name=[names.get(c, c) for c in rows["player"]])[
    ["round_no", "player_name", "penalties", "penalty_cards", "player_rule", "errors", "findings", "score", "total_score"]
]
event = st.dataframe(
    ui.readable(table), hide_index=True, placeholder=ui.MISSING, width="stretch", key="pr.table", on_select="rerun",
    selection_mode="single-row",
)  # fmt: skip
picked = ui.selected_row(event)
if picked is not None:
    r = rows.iloc[picked]
    ui.open_in_replayer(match, r["round_no"], r["first_flag_seq"])
