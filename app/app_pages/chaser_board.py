"""CHaser replay: a server log stepped action by action on the map, and the end of the game explained."""

from __future__ import annotations

import streamlit as st

from app import chaser, i18n, replayer, ui
from app.i18n import _
from queries import dashboard as q
from rules.chaser.log import ChaserLogError

st.title(_("CHaser replay"))
con = ui.require_data()
match, info = chaser.selected_game(con)
names = ui.names_of(con, match)
with st.spinner(_("Replaying the game…")):
    try:
        log = chaser.parse(q.match_records(con, match))
    except (ChaserLogError, ValueError) as exc:
        st.error(_("The stored game cannot be replayed: {reason}").format(reason=str(exc)))
        st.stop()
    state = st.session_state
    at = ui.num(st.query_params.get("seq"))
    token = state.setdefault("ch.token", 0)
    if at is not None and at != state.get(f"ch.seq.{match}"):  # a link or a typed URL moves the map
        state["ch.token"] = token = token + 1
    payload, summary = chaser.game_payload(log, match=match, names=names, jump=at, token=token)

md_names = {k: ui.md(v) for k, v in names.items()}  # bot names into Markdown: escaped
st.subheader(chaser.end_sentence(summary.end_kind, summary.winner, summary.loser, summary.end_turn, summary.items, md_names))
st.caption(_("{cool} (Cool) vs {hot} (Hot) · map {map} · {turns} turns · {actions} actions").format(
    cool=ui.md(names.get("COOL", "COOL")), hot=ui.md(names.get("HOT", "HOT")), map=ui.md(info.get("map_label")),
    turns=info.get("turns") or "?", actions=summary.actions))  # fmt: skip
seq = replayer.show(payload, key=f"ch.replayer.{match}")
if seq is not None:
    state[f"ch.seq.{match}"] = seq
    st.query_params["seq"] = str(seq)
st.caption(_("←/→ step, Home/End jump. Blocks grey, items orange; the player who acted has a thick ring and a tick in its direction; cells looked at or searched are shaded blue."))
st.download_button(
    _("Download this game as one HTML file"), key="ch.download", icon=":material/download:",
    data=replayer.standalone_html(payload, title=f"Kifu · CHaser · {match}", lang=i18n.current()),
    file_name=f"kifu-{match.replace(':', '-')}.html", mime="text/html",
)  # fmt: skip
