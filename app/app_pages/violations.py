"""Violations: the validator's findings by family, code and player, and the load issues."""

from __future__ import annotations

import streamlit as st

from app import charts, ui
from app.findings import check_title, finding_sentence
from app.i18n import N_, _
from queries import dashboard as q
from queries import overview

FAMILIES = {"*": N_("(all)"), "player-rule": N_("player-rule: the bot broke a rule"),
            "dealer-judgement": N_("dealer-judgement: the dealer's decision differs from the rules"),
            "consistency": N_("consistency: the log and the replay differ")}  # fmt: skip
SEVERITIES = {"*": N_("(all)"), "error": N_("error"), "warning": N_("warning"), "info": N_("info")}

st.title(_("Violations"))
con = ui.require_data()
match, player = ui.selected_match(), ui.selected_player()
names = ui.names_of(con, match)
f1, f2 = st.columns(2)
family = ui.remember("vio.family", f1.selectbox(_("Family"), list(FAMILIES), key=ui.lkey("vio.family"),
                                               format_func=ui.choices(FAMILIES)))  # fmt: skip
severity = ui.remember("vio.severity", f2.selectbox(_("Severity"), list(SEVERITIES), key=ui.lkey("vio.severity"),
                                                   format_func=ui.choices(SEVERITIES)))  # fmt: skip
df = q.violations(con, match, player, None if family == "*" else family, None if severity == "*" else severity)
if df.empty:
    st.success(_("No finding in this selection."))
else:
    df = df.assign(check=[f"{c} — {check_title(c)}" for c in df["code"]])
    counts = df.groupby(["check", "severity"]).size().reset_index(name="count").sort_values("count", ascending=False)
    left, right = st.columns([2, 3])
    left.dataframe(ui.readable(counts), hide_index=True, placeholder=ui.MISSING, width="stretch", key="vio.counts")
    right.plotly_chart(charts.ranked_bars(df, "code", "player_name", _("Findings by check and player"), ui.chart_labels(),
                                          ui.name_colors(con, match)), width="stretch", key="vio.chart")  # fmt: skip
    code = st.selectbox(_("Check"), ["*", *counts.drop_duplicates("check")["check"]], key=ui.lkey("vio.code"),
                        format_func=lambda c, every=_("(all checks)"): every if c == "*" else c)  # fmt: skip
    table = (df if code == "*" else df[df["check"] == code]).reset_index(drop=True)
    table = table.assign(message=[finding_sentence(f, names) for f in table.to_dict("records")])
    st.caption(_("Click a row to open that event in the replayer."))
    event = st.dataframe(
        ui.readable(table[["severity", "code", "player_name", "round_no", "turn_no", "message", "expected", "actual"]]),
        hide_index=True, placeholder=ui.MISSING, width="stretch", key="vio.table", on_select="rerun", selection_mode="single-row",
        column_config=ui.wide_columns(["message", "expected", "actual"]),
    )  # fmt: skip
    picked = ui.selected_row(event)
    if picked is not None and ui.num(table["seq"].iloc[picked]) is not None \
            and ui.num(table["round_no"].iloc[picked]) is not None:
        ui.open_in_replayer(match, table["round_no"].iloc[picked], table["seq"].iloc[picked])
st.subheader(_("Load issues"))
issues = overview.load_issues(con)
if issues.empty:
    st.caption(_("Every ingested record was usable."))
else:
    st.dataframe(ui.readable(issues), hide_index=True, placeholder=ui.MISSING, width="stretch", key="vio.issues")
