"""Standings: group one game's matches into a stage and rank them — ALGORI UNO the way its contest rules do;
Kakomimasu and CHaser by wins, then draws, then points."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import charts, rulesets, ui
from app.i18n import N_, _
from queries import dashboard as q
from queries.standings import DEMO_PREFIX, final_stage, preliminary_group

STAGES = {"preliminary": N_("preliminary group (one match, top two advance)"),
          "final": N_("final (rank points 5/3/2/1)")}  # fmt: skip
OTHER = {
    "kakomimasu": N_("Kakomimasu has no contest ranking in Kifu: the players of the chosen games are ranked by wins, "
                     "then draws, then points (each game's final total, added up)."),
    "chaser": N_("CHaser has no contest ranking in Kifu: the bots of the chosen games are ranked by wins, then draws, "
                 "then items taken."),
}  # fmt: skip

st.title(_("Standings"))
con = ui.require_data()
game = ui.pick_game(con, "st.game")
uno = game in ui.SECTIONS["algori-uno"]  # ALGORI UNO and JUA UNO (a game of its own: its matches only)
matches = q.match_list(con, "algori-uno" if uno else game)
if uno:
    matches = matches[[s == game for s in ui.match_sections(matches)]]
labels = ui.match_labels(matches, ui.live_ids(con))  # a match being played: a label that does not grow
ids = list(matches["match_id"])
kind = "preliminary"
jua: set[str] = set()
if uno:
    jua = {m for m, r in q.rulesets(con).items() if rulesets.rules_family(r) == rulesets.JUA}
    if any(m not in jua for m in ids):
        st.caption(_("ALGORI UNO: the contest's own ranking, applied to ALGORI matches only."))
        kind = ui.remember("st.kind", st.radio(_("Stage"), list(STAGES), key=ui.lkey("st.kind"), format_func=ui.choices(STAGES)))
    if jua & set(ids):
        st.caption(_("A match under the JUA competition rules (2016) is ranked on its own, by each player's total over "
                     "its rounds: its scoreboard. The ALGORI contest ranking does not apply to it."))  # fmt: skip
    default = [ui.selected_match()] if ui.selected_match() in ids else ids[:1]
else:
    st.caption(_(OTHER.get(game, OTHER["kakomimasu"])))
    default = ids
picked = st.multiselect(_("Matches in this stage"), ids, default=default, format_func=lambda m: labels.get(m, m),
                        key=f"st.matches.{game}" if game != "algori-uno" else "st.matches")  # fmt: skip
if not picked:
    st.info(_("Pick the matches of the stage."))
    st.stop()
if not uno:
    table = q.game_results(con, game, picked)
    table.insert(0, "rank", range(1, len(table) + 1))
    rate = ui.COLUMN_NAMES["win_rate"]
    name = _(rate)
    st.dataframe(ui.readable(table.assign(win_rate=table["win_rate"] * 100)), hide_index=True, placeholder=ui.MISSING,
                 width="stretch", key="st.table", column_config={name: st.column_config.NumberColumn(name, format="%.0f%%")})  # fmt: skip
    ui.this_is_my_bot(con, ui.table_bots(con, picked, names=table["player_name"]), f"st.mine.{game}")
    st.stop()
had_jua = any(m in jua for m in picked)
for i, m in enumerate(x for x in picked if x in jua):  # JUA matches: each one's scoreboard
    st.subheader(ui.md(labels.get(m, m)))
    st.caption(_(ui.JUA_SCORING))
    board = ui.scoreboard_table(q.scoreboard(con, m))
    st.dataframe(board, hide_index=True, width="stretch", key=f"st.jua.{i}",
                 column_config={_("Player"): st.column_config.TextColumn(_("Player"), pinned=True)})
    if not board.empty:
        ui.this_is_my_bot(con, ui.table_bots(con, m, names=board[_("Player")]), f"st.jua.mine.{i}")
picked = [m for m in picked if m not in jua]
if not picked:
    st.stop()
if had_jua:
    st.subheader(_("ALGORI contest ranking"))
rows = q.standings(con, picked)
if kind == "preliminary":
    table = preliminary_group(rows)
    st.caption(_("Ranked by total score; a tie goes to whoever reached the score first. Players named "
                 "'{prefix}…' (the dealer's demo players) never advance.").format(prefix=DEMO_PREFIX))  # fmt: skip
    st.dataframe(ui.readable(table), hide_index=True, placeholder=ui.MISSING, width="stretch", key="st.table")
    ui.this_is_my_bot(con, ui.table_bots(con, picked, names=table["player_name"]), "st.mine")
    race = pd.concat([q.score_race(con, m).assign(match=labels.get(m, m)) for m in picked])
    colors = {}
    for m in picked:
        colors.update(ui.name_colors(con, m))
    st.plotly_chart(charts.score_race(race, _("Score race"), ui.chart_labels(), colors), width="stretch", config=charts.CONFIG, key="st.race")
else:
    long_match = st.selectbox(_("The 1,000-round match (tie-break)"), picked, format_func=lambda m: labels.get(m, m),
                              key="st.long")  # fmt: skip
    table = final_stage(rows, long_match)
    st.dataframe(ui.readable(table), hide_index=True, placeholder=ui.MISSING, width="stretch", key="st.table")
    ui.this_is_my_bot(con, ui.table_bots(con, picked, names=table["player_name"]), "st.mine")
