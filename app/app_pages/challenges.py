"""Challenges: made and declined, verdicts, success rates, wild-draw-4 bluffs caught and missed."""

from __future__ import annotations

import streamlit as st

from app import rulesets, ui
from app.findings import what_happened
from app.i18n import N_, _
from queries import dashboard as q

st.title(_("Challenges"))
con = ui.require_data()
match, player = ui.selected_match(), ui.selected_player()
names = ui.names_of(con, match)
df = q.challenges(con, match, None)
if ui.match_family(con, match) == rulesets.JUA:
    st.caption(_("JUA competition rules (2016): only the player facing a wild draw 4 may challenge, and not a wild "
                 "draw 4 laid on a wild draw 4. A successful challenge sends the card back to its player, who draws 4 "
                 "and plays again; a failed one costs the challenger the draw stack's total plus 2."))  # fmt: skip
bluffs_missed = q.wd4_unchallenged(con, match, player)


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else ui.MISSING


def _figures(rows: object, title: str, key: str) -> None:
    made = rows[rows["is_challenge"] == True]  # type: ignore[index]  # noqa: E712
    won = int(made["success"].fillna(False).sum())
    st.markdown(f"**{title}**")
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(_("Challenges"), len(made))
    c2.metric(_("Declined"), int((rows["is_challenge"] == False).sum()))  # type: ignore[index]  # noqa: E712
    c3.metric(_("Succeeded (bluff caught)"), won)
    c4.metric(_("Success rate"), _pct(won, len(made)))


if player:
    who = names.get(player, player)
    _figures(df[df["challenger"] == player], _("Challenges made by {who}").format(who=who), "ch.by")
    _figures(df[df["target"] == player], _("Challenges against {who}'s wild draw 4").format(who=who), "ch.against")
else:
    _figures(df, _("All challenges of this match"), "ch.all")
st.metric(_("Bluffs nobody challenged"), len(bluffs_missed))
shown = df if not player else df[(df["challenger"] == player) | (df["target"] == player)]
if shown.empty:
    st.info(_("No wild draw 4 was challenged or declined in this selection."))
else:
    by = st.radio(_("Success rate by"), ["challenger", "target"], horizontal=True, key=ui.lkey("ch.by"),
                  format_func=ui.choices({"challenger": N_("challenger"), "target": N_("target")}))  # fmt: skip
    col = "challenger_name" if by == "challenger" else "target_name"
    made = df[df["is_challenge"] == True]  # noqa: E712
    rates = made.groupby(col).agg(challenges=("seq", "count"), won=("success", "sum"),
                                  cards_drawn=("cards_received", "sum")).reset_index()  # fmt: skip
    rates["success_rate"] = [_pct(int(w), int(n)) for w, n in zip(rates["won"], rates["challenges"], strict=True)]
    st.dataframe(
        ui.readable(rates.rename(columns={col: "player_name"})), hide_index=True, placeholder=ui.MISSING, width="stretch", key="ch.rates",
        column_config={_("Succeeded"): st.column_config.NumberColumn(_("Succeeded"))},
    )  # fmt: skip
    st.caption(_("Click a row to open that challenge in the replayer."))
    table = shown.reset_index(drop=True)
    event = st.dataframe(
        ui.readable(table[["round_no", "turn_no", "challenger_name", "target_name", "is_challenge", "success",
                           "was_bluff", "cards_received"]]),
        hide_index=True, placeholder=ui.MISSING, width="stretch", key="ch.table", on_select="rerun", selection_mode="single-row",
    )  # fmt: skip
    picked = ui.selected_row(event)
    if picked is not None:
        ui.open_in_replayer(match, table["round_no"].iloc[picked], table["seq"].iloc[picked])
st.subheader(_("Wild draw 4 bluffs nobody challenged"))
if bluffs_missed.empty:
    st.caption(_("None."))
else:
    bl = bluffs_missed.reset_index(drop=True)
    ev = st.dataframe(ui.readable(bl[["round_no", "turn_no", "player_name", "message"]].assign(
                          message=[what_happened({"message": m, "code": "wd4-bluff"}, names) or ui.with_names(m, names)
                                   for m in bl["message"]])),
                      hide_index=True, placeholder=ui.MISSING, width="stretch", key="ch.bluffs", on_select="rerun", selection_mode="single-row",
                      column_config=ui.wide_columns(["message"]))  # fmt: skip
    picked = ui.selected_row(ev)
    if picked is not None:
        ui.open_in_replayer(match, bl["round_no"].iloc[picked], bl["seq"].iloc[picked])
