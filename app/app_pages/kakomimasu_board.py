"""Kakomimasu board: a game stepped turn by turn in the browser — walls, areas, agents, every action."""

from __future__ import annotations

import streamlit as st

from app import frames, kakomimasu, links, replayer, ui
from app.i18n import _
from queries import dashboard as q
from rules.kakomimasu.game import GameLogError

st.title(_("Kakomimasu board"))
con = ui.require_data()
match, info = kakomimasu.selected_game(con)
if info.get("width") is None or info.get("width") != info.get("width"):
    st.info(_("This game has no field yet (server status: {status}).").format(status=info.get("status") or "—"))
    st.stop()
names = ui.names_of(con, match)
with st.spinner(_("Replaying the game…")):
    game = ui.replayed(kakomimasu.parse, q.match_records(con, match), (GameLogError, ValueError))
    payload = frames.board_labels(kakomimasu.game_payload(game, match=match, names=names))
# a link ?turn=… (or ?event=…): that turn; a turn the game does not have is refused, and nothing else shown
turn = ui.open_board_at_link(payload, match, "km", by_turn=True)

size = f"{info['width']}×{info['height']}"
board = info.get("board_name") if isinstance(info.get("board_name"), str) else None
st.caption(_("{board} · {agents} agents per team · {turns} of {total} turns · areas filled like {fill}").format(
    board=f"{ui.md(board)} · {size}" if board else size, agents=info["n_agent"], turns=info["turns_logged"],
    total=info.get("total_turn") or "?", fill=_(kakomimasu.FILLS.get(info.get("area_fill"), "—"))))  # fmt: skip
board = board or size
reported = replayer.show(payload, key=f"km.replayer.{match}")
links.follow(st.session_state, st.query_params, "km", match, "turn", reported if reported is not None else turn)
st.caption(_("←/→ step, Home/End jump, f/F next/previous finding, Space play, ? all keys; tap or click a cell to see it in words under the field. Failed actions are drawn in red and dashed, with the reason."))
ui.download_game(payload, "km", match, f"Kifu · {board} · {match}")
