"""Violations: the validator's findings by family, code and player, and the load issues."""

from __future__ import annotations

import streamlit as st

from app import charts, ui
from queries import dashboard as q
from queries import overview

st.title("Violations")
con = ui.require_data()
match, player = ui.selected_match(), ui.selected_player()
f1, f2 = st.columns(2)
family = f1.selectbox("Family", ["(all)", "player-rule", "dealer-judgement", "consistency"], key="vio.family")
severity = f2.selectbox("Severity", ["(all)", "error", "warning", "info"], key="vio.severity")
df = q.violations(con, match, player, None if family == "(all)" else family, None if severity == "(all)" else severity)
if df.empty:
    st.success("No finding in this selection.")
else:
    counts = df.groupby(["family", "code", "severity"]).size().reset_index(name="count").sort_values("count", ascending=False)
    left, right = st.columns([2, 3])
    left.dataframe(counts, hide_index=True, width="stretch", key="vio.counts")
    right.plotly_chart(charts.stacked_counts(df, "code", "player_name", "Findings by code and player"),
                       width="stretch", key="vio.chart")  # fmt: skip
    code = st.selectbox("Code", ["(all codes)", *counts["code"]], key="vio.code")
    table = df if code == "(all codes)" else df[df["code"] == code]
    st.dataframe(
        ui.with_links(table)[["open", "severity", "family", "code", "player_name", "round_no", "turn_no", "message",
                              "expected", "actual", "penalty_seq"]],
        hide_index=True, width="stretch", column_config=ui.LINK_COLUMN, key="vio.table",
    )  # fmt: skip
st.subheader("Load issues")
issues = overview.load_issues(con)
if issues.empty:
    st.caption("Every ingested record was usable.")
else:
    st.dataframe(issues, hide_index=True, width="stretch", key="vio.issues")
