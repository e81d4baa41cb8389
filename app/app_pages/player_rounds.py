"""Where did my bot go wrong? Per player and round: what went wrong (in words), penalties, rule breaks, score."""

from __future__ import annotations

from collections import Counter
from typing import Any

import streamlit as st

from app import reasons, ui
from app.i18n import N_, _
from queries import dashboard as q

#: The count columns: their names here and what each counts (a tooltip on the column header).
COUNTS = {
    "penalties": (N_("Penalties"), N_("How many times the dealer penalised this player in the round (each penalty "
                                      "is usually 2 cards).")),
    "penalty_cards": (N_("Penalty cards"), N_("Cards this player had to take as penalties in the round.")),
    "rule_breaks": (N_("Rule breaks"), N_("Moves of this bot that break a game rule (errors and warnings about the "
                                          "player), whether the dealer penalised them or not.")),
    "errors": (N_("Serious findings"), N_("Findings of severity “error” about this player: rule breaks the dealer "
                                          "must refuse, or dealer decisions and log lines that contradict the rules.")),
    "findings": (N_("All findings"), N_("Every finding of the rules check about this player in the round, notes "
                                        "included (for example a wild draw 4 bluff, which is allowed).")),
}  # fmt: skip


def _list(value: Any) -> list[str]:
    try:
        return [str(v) for v in value if v is not None]
    except TypeError:
        return []


def what_went_wrong(causes: Any, codes: Any) -> str:
    """'2× Card does not match the top card; UNO not yelled': the round's penalty causes and the rule
    breaks no penalty answered, in plain words, most frequent first."""
    counts = Counter([reasons.cause_title(c) for c in _list(causes)] + [reasons.check_title(c) for c in _list(codes)])
    parts = [title if n == 1 else _("{n}× {what}").format(n=n, what=title) for title, n in counts.most_common()]
    return _("; ").join(parts)


st.title(_("Where did my bot go wrong?"))
con = ui.require_data()
match = ui.selected_match()
player = ui.selected_player()
names = ui.names_of(con, match)
rows = q.player_rounds(con, match, player)
if rows.empty:
    st.info(_("This match has no round yet."))
    st.stop()
who = names.get(player, player) if player else _("every player")
st.caption(_("Rounds of {who}, worst first (most penalties, then rule breaks). Click a row to open that round in the "
             "replayer at its first flagged event. Choose a player in the sidebar to see only their rounds.").format(who=who))
only = st.toggle(_("Only rounds with a penalty or a rule break"), value=True, key="pr.only")
if only:
    rows = rows[(rows["penalties"] > 0) | (rows["rule_breaks"] > 0)]
rows = rows.sort_values(["penalties", "rule_breaks", "findings", "round_no"], ascending=[False, False, False, True])
rows = rows.reset_index(drop=True)
if rows.empty:
    ui.where_faults(con, "app_pages/player_rounds.py",
                    _("No penalty and no rule break in this match for {who}").format(who=ui.md(who)))
    st.stop()
table = rows.assign(
    player_name=[names.get(c, c) for c in rows["player"]],
    what_went_wrong=[what_went_wrong(c, k) for c, k in zip(rows["causes"], rows["unpenalised_codes"], strict=True)],
)[["round_no", "player_name", "what_went_wrong", "penalties", "penalty_cards", "rule_breaks", "errors", "findings",
   "score", "total_score"]]  # fmt: skip
table = ui.readable(table.rename(columns={c: _(label) for c, (label, _help) in COUNTS.items()}))
table = table.rename(columns={"what_went_wrong": _("What went wrong")})
config: dict[str, Any] = {
    _(label): st.column_config.NumberColumn(_(label), help=_(text), format="%d") for label, text in COUNTS.values()
}
config[_("What went wrong")] = st.column_config.TextColumn(
    _("What went wrong"), width="large",
    help=_("The dealer's penalties in the round, then rule breaks no penalty answered, in plain words."))  # fmt: skip
event = st.dataframe(
    table, hide_index=True, placeholder=ui.MISSING, width="stretch", key="pr.table", on_select="rerun",
    selection_mode="single-row", column_config=config,
)  # fmt: skip
ui.this_is_my_bot(con, ui.table_bots(con, match, codes=rows["player"]), "pr.mine")
worst = [(r, t) for r, t in zip(rows.itertuples(index=False), table[_("What went wrong")], strict=True) if t][:5]
if worst:  # the worst rounds once more as full sentences: a table cell cuts long text, above all on a phone
    heading = _("The worst rounds in words")
    st.markdown(f"**{heading}**")
    st.markdown("\n".join("- " + ui.md(_("Round {round} · {player}: {what}").format(
        round=int(r.round_no), player=names.get(r.player, r.player), what=t)) for r, t in worst))  # fmt: skip
picked = ui.selected_row(event)
if picked is not None:
    r = rows.iloc[picked]
    ui.open_in_replayer(match, r["round_no"], r["first_flag_seq"])
