"""Special logic: firings per player and title, per round, the 10-per-round limit, what came before."""

from __future__ import annotations

import streamlit as st

from typing import Any

from app import charts, ui
from app.describe import event_label
from app.i18n import N_, _
from queries import dashboard as q

LIMIT = 10
#: A firing's outcome: accepted, or the penalty the dealer gave for its title.
OUTCOMES = {"accepted": N_("accepted"), "Param title invalid.": N_("refused: no valid title"),
            "Special logic title too long.": N_("refused: title longer than 32 characters")}  # fmt: skip


def _outcome(value: Any) -> str:
    return _(OUTCOMES[value]) if value in OUTCOMES else str(value)


def _before(value: Any) -> Any:
    """'play-card by Alice' (the event before a firing) in the viewer's words."""
    if not isinstance(value, str) or not value:
        return value
    event, by, who = value.partition(" by ")
    return _("{event} by {who}").format(event=event_label(event), who=who) if by else event_label(event)


st.title(_("Special logic"))
con = ui.require_data()
match, player = ui.selected_match(), ui.selected_player()
ui.algori_only(con, match, N_("Special logic is part of the ALGORI 2023 contest rules only: the JUA competition rules "
                              "(2016) this match was played under have none. Pick an ALGORI match in the sidebar to "
                              "see its special logic."))  # fmt: skip
df = q.special_logic(con, match, player)
if df.empty:
    st.info(_("No special logic fired in this selection."))
    st.stop()
accepted = df[df["outcome"] == "accepted"]
c1, c2, c3 = st.columns(3)
c1.metric(_("Firings"), len(df))
c2.metric(_("Accepted"), len(accepted))
per_round = accepted.groupby(["round_no", "player_name"]).size()
c3.metric(_("Most in one round (limit 10)"), int(per_round.max()) if len(per_round) else 0)
titles = df.groupby(["player_name", "title", "outcome"], dropna=False).size().reset_index(name="count")
titles = titles.assign(outcome=titles["outcome"].map(_outcome))
st.dataframe(ui.readable(titles.sort_values("count", ascending=False)), hide_index=True, placeholder=ui.MISSING, width="stretch", key="sl.titles")
st.plotly_chart(charts.per_round(df, "player_name", _("Firings per round"), ui.chart_labels(), ui.name_colors(con, match)),
                width="stretch", key="sl.rounds", config=charts.CONFIG)  # fmt: skip
over = per_round[per_round > LIMIT]
if len(over):
    st.warning(_("{n} player-round(s) over the limit of {limit} accepted special logics.").format(n=len(over), limit=LIMIT))
st.caption(_("Click a row to open that firing in the replayer."))
table = df.reset_index(drop=True)
event = st.dataframe(
    ui.readable(table[["round_no", "turn_no", "player_name", "title", "title_length", "outcome", "before_event"]].assign(
        outcome=table["outcome"].map(_outcome), before_event=table["before_event"].map(_before))),
    hide_index=True, placeholder=ui.MISSING, width="stretch", key="sl.table", on_select="rerun", selection_mode="single-row",
)  # fmt: skip
picked = ui.selected_row(event)
if picked is not None:
    ui.open_in_replayer(match, table["round_no"].iloc[picked], table["seq"].iloc[picked])
