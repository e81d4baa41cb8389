"""JUA UNO: the rules the JUA competition adds — pair plays, draw stacks, challenges by colour — counted per bot
and listed; a click on a row opens the replayer at that event."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from app import ui
from app.i18n import N_, _
from queries import dashboard as q

#: The colours as the page names them.
COLOURS = {"red": N_("red"), "yellow": N_("yellow"), "green": N_("green"), "blue": N_("blue"), "black": N_("black"),
           "?": N_("unknown")}  # fmt: skip
COUNTS = {"pairs": N_("Pair plays"), "stack_adds": N_("Cards added to a stack"), "stacks_paid": N_("Stacks paid (2+ cards)"),
          "stack_cards": N_("Cards drawn for stacks"), "challenges": N_("Challenges"),
          "challenges_won": N_("Challenges won"), "by_colour": N_("Challenges by colour")}  # fmt: skip


def colour(value: Any) -> str:
    return _(COLOURS[value]) if isinstance(value, str) and value in COLOURS else ui.MISSING


def by_colour(counts: Any) -> str:
    if not isinstance(counts, dict) or not counts:
        return ui.MISSING
    return " · ".join(f"{colour(c)} {n}" for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def listed(rows: pd.DataFrame, columns: dict[str, str], key: str, empty: str) -> None:
    """One kind of moment as a table; a click on a row opens the replayer at that event."""
    if rows.empty:
        st.caption(_(empty))
        return
    rows = rows.reset_index(drop=True)
    shown = pd.DataFrame({_(label): rows[col] for col, label in columns.items()})
    event = st.dataframe(shown, hide_index=True, placeholder=ui.MISSING, width="stretch", key=key, on_select="rerun",
                         selection_mode="single-row")  # fmt: skip
    picked = ui.selected_row(event)
    if picked is not None and picked < len(rows):
        ui.open_in_replayer(ui.selected_match() or "", rows["round_no"].iloc[picked], rows["seq"].iloc[picked])


st.title(_("JUA rules in play"))
con = ui.require_data()
match = ui.selected_match()
if not match or q.match_rules(con, match) is None:
    st.info(_("No JUA match in this database yet: referee one with {command} and ingest it.").format(
        command=ui.code("kifu play --name NAME --out match.jsonl --ingest")))  # fmt: skip
    st.stop()
names = ui.names_of(con, match)
moves = q.jua_moves(con, match)
st.caption(_("The JUA competition rules (2016) let a player lay two identical cards at once (a pair play), answer a "
             "draw 2 or a wild draw 4 with another one (the stack grows until someone pays it all), and challenge a "
             "wild draw 4 whose player held a card of the colour in play. Counted per bot, then listed: click a row "
             "to open that event in the replayer."))  # fmt: skip
counts = q.jua_counts(moves, names)
table = counts.drop(columns=["player_code"]).assign(by_colour=counts["by_colour"].map(by_colour))
table = table.rename(columns={"player_name": _("Player"), **{c: _(label) for c, label in COUNTS.items()}})
st.dataframe(table, hide_index=True, placeholder=ui.MISSING, width="stretch", key="jua.counts",
             column_config={_("Player"): st.column_config.TextColumn(_("Player"), pinned=True)})  # fmt: skip
ui.this_is_my_bot(con, ui.table_bots(con, match, codes=counts["player_code"]), "jua.mine")
named = moves.assign(player_name=moves["player"].map(lambda c: names.get(c, c)),
                     target_name=moves["target"].map(lambda c: names.get(c, c) if isinstance(c, str) else ui.MISSING),
                     colour_text=moves["colour"].map(colour),
                     outcome=moves["success"].map(lambda v: ui.MISSING if v is None or pd.isna(v)
                                                  else _("bluff caught") if v else _("failed")))  # fmt: skip
pairs, stacks, challenges = st.tabs([_("Pair plays"), _("Draw stacks"), _("Challenges")])
with pairs:
    listed(named[named["kind"] == "pair"], {"round_no": N_("Round"), "seq": N_("Event no."), "player_name": N_("Player"),
                                            "colour_text": N_("Colour")}, "jua.pairs", N_("No pair play in this match."))
with stacks:
    paid = named[named["kind"] == "stack"].sort_values(["length", "seq"], ascending=[False, True])
    listed(paid, {"round_no": N_("Round"), "seq": N_("Event no."), "length": N_("Stack length (cards played)"),
                  "cards": N_("Cards drawn"), "player_name": N_("Who paid")}, "jua.stacks",
           N_("No draw stack in this match."))  # fmt: skip
with challenges:
    listed(named[named["kind"] == "challenge"], {"round_no": N_("Round"), "seq": N_("Event no."),
                                                 "player_name": N_("Challenger"), "target_name": N_("Target"),
                                                 "colour_text": N_("Colour in question"), "outcome": N_("Outcome")},
           "jua.challenges", N_("No challenge in this match."))  # fmt: skip
