"""CHaser replay: a server log stepped action by action on the map, and the end of the game explained."""

from __future__ import annotations

import streamlit as st

from app import chaser, frames, links, replayer, ui
from app.i18n import _
from queries import dashboard as q
from rules.chaser.log import ChaserLogError

st.title(_("CHaser replay"))
con = ui.require_data()
match, info = chaser.selected_game(con)
names = ui.names_of(con, match)
with st.spinner(_("Replaying the game…")):
    log = ui.replayed(chaser.parse, q.match_records(con, match), (ChaserLogError, ValueError))
    payload, summary = chaser.game_payload(log, match=match, names=names)
frames.board_labels(payload)
# a link ?event=… (an action; old links: ?seq=…) or ?turn=… (its first action); one the game does not have is
# refused, and nothing else shown
at = ui.open_board_at_link(payload, match, "ch", by_turn=False)

md_names = {k: ui.md(frames.clip(v)) for k, v in names.items()}  # bot names into Markdown: escaped, shortened
st.subheader(chaser.end_sentence(summary.end_kind, summary.winner, summary.loser, summary.end_turn, summary.items, md_names))
st.caption(_("{cool} (Cool) vs {hot} (Hot) · map {map} · {turns} turns · {actions} actions").format(
    cool=md_names.get("COOL", "COOL"), hot=md_names.get("HOT", "HOT"), map=ui.md(info.get("map_label")),
    turns=info.get("turns") or "?", actions=summary.actions))  # fmt: skip
reported = replayer.show(payload, key=f"ch.replayer.{match}")
links.follow(st.session_state, st.query_params, "ch", match, "event", reported if reported is not None else at)
st.caption(_("←/→ step, Home/End jump, f/F next/previous finding, r/R refused action, Space play, ? all keys. Blocks grey, items orange; the player who acted has a thick ring and a tick in its direction; cells looked at or searched are shaded blue."))
ui.download_game(payload, "ch", match, f"Kifu · CHaser · {match}")
