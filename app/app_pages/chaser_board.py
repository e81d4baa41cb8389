"""CHaser replay: a server log stepped action by action on the map, and the end of the game explained."""

from __future__ import annotations

import streamlit as st

from app import chaser, frames, replayer, ui
from app.i18n import _
from queries import dashboard as q
from rules.chaser.log import ChaserLogError

st.title(_("CHaser replay"))
con = ui.require_data()
match, info = chaser.selected_game(con)
names = ui.names_of(con, match)
with st.spinner(_("Replaying the game…")):
    log = ui.replayed(chaser.parse, q.match_records(con, match), (ChaserLogError, ValueError))
    at, token = ui.url_position("ch", match, "seq")
    payload, summary = chaser.game_payload(log, match=match, names=names, jump=at, token=token)
frames.board_labels(payload)
ui.position_or_nearest(payload, "ch", match, "seq", at, _(
    "Action {asked} does not exist in this game (it has actions {have}); showing action {shown}."))

md_names = {k: ui.md(frames.clip(v)) for k, v in names.items()}  # bot names into Markdown: escaped, shortened
st.subheader(chaser.end_sentence(summary.end_kind, summary.winner, summary.loser, summary.end_turn, summary.items, md_names))
st.caption(_("{cool} (Cool) vs {hot} (Hot) · map {map} · {turns} turns · {actions} actions").format(
    cool=md_names.get("COOL", "COOL"), hot=md_names.get("HOT", "HOT"), map=ui.md(info.get("map_label")),
    turns=info.get("turns") or "?", actions=summary.actions))  # fmt: skip
ui.follow_replayer("ch", match, "seq", replayer.show(payload, key=f"ch.replayer.{match}"))
st.caption(_("←/→ step, Home/End jump. Blocks grey, items orange; the player who acted has a thick ring and a tick in its direction; cells looked at or searched are shaded blue."))
ui.download_game(payload, "ch", match, f"Kifu · CHaser · {match}")
