"""CHaser games and bots: items over time and the end of the chosen game; every bot's record across games."""

from __future__ import annotations

import streamlit as st

from app import chaser, charts, ui
from app.i18n import _
from queries import chaser as cq

st.title(_("CHaser games and bots"))
con = ui.require_data()
match, info = chaser.selected_game(con)
names = ui.names_of(con, match)
items = (int(info.get("items_cool") or 0), int(info.get("items_hot") or 0))
md_names = {k: ui.md(v) for k, v in names.items()}  # bot names into Markdown: escaped
st.subheader(chaser.end_sentence(info.get("end_kind"), info.get("winner"), info.get("loser"), info.get("end_turn"),
                                 items, md_names))  # fmt: skip
st.caption(_("How it ended: {kind} · map {map}").format(kind=_(chaser.END_KINDS.get(info.get("end_kind") or "incomplete", "—")),
                                                       map=ui.md(info.get("map_label"))))  # fmt: skip
got = cq.items(con, match)
if not got.empty:
    colors = {names.get(c, c): chaser.TEAM_COLOURS[c] for c in ("COOL", "HOT")}
    st.plotly_chart(charts.per_action_items(got, _("Items after every turn"),
                                            {"turn": _("Turn"), "seq": _("Action no."), "items": _("Items"),
                                             "player": _("Player")}, colors),
                    width="stretch", key="ch.items", config=charts.CONFIG)  # fmt: skip
if st.button(_("Replay this game on the map"), icon=":material/play_arrow:", key="ch.open"):
    st.switch_page("app_pages/chaser_board.py", query_params=ui.link_params(match=match))

st.subheader(_("Every bot across the games"))
bots = cq.bots(con)
shown = bots.assign(
    won_by=bots["won_by"].map(lambda v: chaser.kinds_text(v, "win")),
    lost_by=bots["lost_by"].map(lambda v: chaser.kinds_text(v, "loss")),
)
st.caption(_("Click a bot to make it your bot: every page then opens on its worst match."))
event = st.dataframe(ui.readable(shown), hide_index=True, placeholder=ui.MISSING, width="stretch", key="ch.bots",
                     column_config=ui.wide_columns(["won_by", "lost_by"]), on_select="rerun",
                     selection_mode="single-row")  # fmt: skip
if (picked := ui.selected_row(event)) is not None and picked < len(bots):
    ui.make_my_bot(str(bots["bot"].iloc[picked]), "chaser")

if not bots.empty:
    bot = st.selectbox(_("A bot's record over the maps"), list(bots["bot"]), key="ch.bot")
    games = cq.bot_games(con, bot)
    games = games.assign(result=games["result"].map(lambda r: _(chaser.RESULTS.get(r, r))),
                         end_kind=[chaser.kinds_text(k, r) for k, r in zip(games["end_kind"], games["result"], strict=True)])  # fmt: skip
    event = st.dataframe(ui.readable(games), hide_index=True, placeholder=ui.MISSING, width="stretch", key="ch.bot_games",
                         on_select="rerun", selection_mode="single-row")  # fmt: skip
    picked = ui.selected_row(event)
    if picked is not None:
        page = "app_pages/chaser_board.py"
        st.switch_page(page, query_params=ui.link_params(match=str(games["match_id"].iloc[picked])))
