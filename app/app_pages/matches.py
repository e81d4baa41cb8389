"""Matches: every ingested match, and the selected one in detail."""

from __future__ import annotations

import streamlit as st

from app import chaser, charts, ui
from app.i18n import _
from queries import dashboard as q
from queries import chaser as cq
from queries import kakomimasu as kq

st.title(_("Matches"))
con = ui.require_data()
matches = q.match_list(con)
several_games = matches["game"].nunique() > 1
uno = matches[matches["game"] == "algori-uno"]
c1, c2, c3 = st.columns(3)
c1.metric(_("Matches"), len(matches))
if several_games or uno.empty:
    c2.metric(_("Games"), matches["game"].nunique())
else:
    c2.metric(_("Rounds"), int(uno["rounds_played"].sum()))
c3.metric(_("Finished"), int((matches["status"] == "finished").sum()))
if several_games or uno.empty:
    shown = matches.assign(name=matches["label"].str.split(" · ").str[0], final_scores=matches["final_scores"].map(ui.scores_text))
    table = shown[["game", "name", "board", "players", "winner", "final_scores", "rounds_played", "status", "started_at",
                   "match_id"]]  # fmt: skip
else:
    table = matches[["dealer_name", "dealer_code", "players", "winner", "white_wild", "rounds_played", "status",
                     "started_at", "match_id"]]  # fmt: skip
st.dataframe(ui.readable(table), hide_index=True, placeholder=ui.MISSING, width="stretch", key="matches.table")

match = ui.selected_match()
row = matches[matches["match_id"] == match].iloc[0]
if row["game"] == "kakomimasu":
    game = kq.game(con, match) or {}
    st.subheader(f"{ui.md(row['label'].split(' · ')[0])} · {ui.md(row['board'] or '?')}")
    st.caption(_("Kakomimasu · {turns} of {total} turns · {status} · decided by {how}").format(
        turns=row["rounds_played"], total=game.get("total_turn") or "?", status=row["status"],
        how=_(ui.DECIDED_BY.get(game.get("decided_by"), "—"))))  # fmt: skip
    st.dataframe(ui.readable(kq.teams(con, match).drop(columns=["player_code", "player_index"])), hide_index=True,
                 placeholder=ui.MISSING, width="stretch", key="matches.teams")  # fmt: skip
    if st.button(_("Open this game on the Kakomimasu board"), icon=":material/grid_on:", key="matches.open_km"):
        st.switch_page("app_pages/kakomimasu_board.py", query_params={"match": match})
    st.stop()
if row["game"] == "chaser":
    names = {k: ui.md(v) for k, v in ui.names_of(con, match).items()}  # into Markdown: escaped
    scores = ui.scores_text(row["final_scores"])
    st.subheader(ui.md(row["label"].split(" · ")[0]))
    info = cq.game(con, match) or {}
    st.caption(chaser.end_sentence(info.get("end_kind"), info.get("winner"), info.get("loser"), info.get("end_turn"),
                                   (info.get("items_cool") or 0, info.get("items_hot") or 0), names)
               + " · " + _("items: {scores}").format(scores=ui.md(scores or "—")))  # fmt: skip
    if st.button(_("Replay this game on the map"), icon=":material/play_arrow:", key="matches.open_ch"):
        st.switch_page("app_pages/chaser_board.py", query_params={"match": match})
    st.stop()
st.subheader(f"{ui.md(row['dealer_name'])} · {ui.md(row['dealer_code'])}")
st.caption(_("match {match} · white wild {white} · {rounds} rounds · {status}").format(
    match=match, white=row["white_wild"] or _("none"), rounds=row["rounds_played"], status=row["status"]))  # fmt: skip
summary = q.match_summary(con, match).reset_index(drop=True)
st.caption(_("Click a player to see their rounds, worst first."))
event = st.dataframe(
    ui.readable(summary), hide_index=True, placeholder=ui.MISSING, width="stretch", key="matches.players", on_select="rerun",
    selection_mode="single-row",
    column_config={_("Rank"): st.column_config.NumberColumn(_("Rank"), help=_("final rank; ties go to whoever reached the score first"))},
)  # fmt: skip
picked = ui.selected_row(event)
if picked is not None:
    st.switch_page("app_pages/player_rounds.py",
                   query_params={"match": match, "player": str(summary["player_code"].iloc[picked])})  # fmt: skip
race = q.score_race(con, match)
if not race.empty:
    st.plotly_chart(charts.score_race(race, _("Cumulative score by round"), ui.chart_labels(), ui.name_colors(con, match)),
                    width="stretch", key="matches.race")  # fmt: skip
st.page_link("app_pages/round_browser.py", label=_("Open the rounds of this match in the replayer"), icon=":material/style:")
