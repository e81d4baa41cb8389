"""Penalties: causes by player, over rounds; a click on a row opens its event in the replayer."""

from __future__ import annotations

import streamlit as st

from app import charts, reasons, rulesets, ui
from app.describe import cause_words
from app.i18n import N_, _
from queries import dashboard as q

st.title(_("Penalties"))
con = ui.require_data()
match, player = ui.selected_match(), ui.selected_player()
df = q.penalties(con, match, player)
if ui.match_family(con, match) == rulesets.JUA:
    st.caption(_("JUA competition rules (2016): the rules name no penalty for a refused action; Kifu's referee follows "
                 "the ALGORI convention (the action is refused, the player draws 2 and loses the turn). A missed UNO "
                 "call pointed out in time costs 2 cards, as the rules say."))  # fmt: skip
if df.empty:
    ui.where_faults(con, "app_pages/penalties.py", _("No penalty in this selection"), column="penalties")
    st.stop()
colors = ui.name_colors(con, match)
c1, c2, c3 = st.columns(3)
c1.metric(_("Penalties"), len(df))
c2.metric(_("Cards received"), int(df["cards_received"].fillna(0).sum()))
c3.metric(_("Explained by a finding"), f"{int(df['explained_by'].notna().sum())} / {len(df)}",
          help=_("Penalties for which the rules check also found the bot's own mistake in the same move."))
if (unjust := int((df["explained_by"].isna() & df["dealer_fault"].notna()).sum())):
    st.warning(_("Penalties the log contradicts (the dealer's fault, not the bot's): {n}").format(n=unjust))


def _explained(own: object, dealer: object) -> str | None:
    if isinstance(own, str):
        return reasons.check_title(own)
    if isinstance(dealer, str):
        return _("Not the bot's fault: {title}").format(title=reasons.check_title(dealer))
    return None


df = df.assign(cause_text=[cause_words(c) for c in df["cause"]],
               explained_by=[_explained(c, d) for c, d in zip(df["explained_by"], df["dealer_fault"], strict=True)])
labels = ui.chart_labels()
left, right = st.columns(2)
short = df.assign(cause_text=[reasons.cause_title(c) for c in df["cause"]])  # the chart: plain titles only
left.plotly_chart(charts.ranked_bars(short, "cause_text", "player_name", _("Causes by player"), labels, colors),
                  width="stretch", config=charts.CONFIG, key="pen.causes")  # fmt: skip
right.plotly_chart(charts.per_round(df, "player_name", _("Penalties per round"), labels, colors),
                   width="stretch", config=charts.CONFIG, key="pen.rounds")  # fmt: skip
causes = df["cause"].value_counts()
# a select box keeps its choice by label: a match being played gets no counts in them (they grow between two runs)
playing = match in ui.live_ids(con)
cause_labels = {c: cause_words(c) if playing else f"{cause_words(c)} ({n})" for c, n in causes.items()}
cause = st.selectbox(_("Cause"), ["*", *causes.index], key=ui.lkey("pen.cause"),
                     format_func=ui.choices({"*": N_("(all causes)")}, cause_labels))
if cause != "*" and reasons.cause_explanation(cause):
    st.caption(reasons.cause_explanation(cause))
table = (df if cause == "*" else df[df["cause"] == cause]).reset_index(drop=True)
st.caption(_("Click a row to open that penalty in the replayer."))
event = st.dataframe(
    ui.readable(table[["round_no", "turn_no", "seq", "player_name", "cause_text", "cards_received", "explained_by"]]),
    hide_index=True, placeholder=ui.MISSING, width="stretch", key="pen.table", on_select="rerun", selection_mode="single-row",
    column_config=ui.wide_columns(["cause_text"]),
)  # fmt: skip
ui.this_is_my_bot(con, ui.table_bots(con, match, codes=table["player"]), "pen.mine")
picked = ui.selected_row(event)
if picked is not None:
    ui.open_in_replayer(match, table["round_no"].iloc[picked], table["seq"].iloc[picked])
