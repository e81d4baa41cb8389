"""Violations: the validator's findings by kind, check and player, and the load issues."""

from __future__ import annotations

import streamlit as st

from app import charts, reasons, ui
from app.findings import finding_detail, finding_specifics
from app.i18n import N_, _
from queries import dashboard as q
from queries import overview

FAMILIES = {"*": N_("(all)"), **reasons.FAMILIES}
SEVERITIES = {"*": N_("(all)"), **reasons.SEVERITIES}
#: Column names of this page's own columns (the rest come from ``ui.COLUMN_NAMES``).
COLUMNS = {"check": N_("Check"), "code": N_("Check code"), "meaning": N_("What it means"),
           "severity": N_("Severity"), "family": N_("Kind"), "note": N_("Validator's note (original, English)")}  # fmt: skip

st.title(_("Violations"))
con = ui.require_data()
match, player = ui.selected_match(), ui.selected_player()
names = ui.names_of(con, match)
f1, f2 = st.columns(2)
family = ui.remember("vio.family", f1.selectbox(_("Kind"), list(FAMILIES), key=ui.lkey("vio.family"),
                                               format_func=ui.choices(FAMILIES)))  # fmt: skip
severity = ui.remember("vio.severity", f2.selectbox(_("Severity"), list(SEVERITIES), key=ui.lkey("vio.severity"),
                                                   format_func=ui.choices(SEVERITIES)))  # fmt: skip
df = q.violations(con, match, player, None if family == "*" else family, None if severity == "*" else severity)


def _named(frame):  # type: ignore[no-untyped-def]
    """Human column names: this page's own first, then the shared ones."""
    return ui.readable(frame.rename(columns={c: _(t) for c, t in COLUMNS.items() if c in frame.columns}))


if df.empty:
    st.success(_("No finding in this selection."))
else:
    df = df.assign(check=[reasons.check_title(c) for c in df["code"]],
                   severity_word=[reasons.severity_word(s) for s in df["severity"]],
                   family_word=[reasons.family_word(f) for f in df["family"]])  # fmt: skip
    counts = (df.groupby(["code", "check", "severity_word"]).size().reset_index(name="count")
              .sort_values("count", ascending=False).reset_index(drop=True))  # fmt: skip
    counts = counts.assign(meaning=[reasons.check_explanation(c) for c in counts["code"]])
    st.caption(_("Each check of the rules, in plain words; the check code is kept for reference."))
    st.dataframe(
        _named(counts[["check", "severity_word", "count", "meaning", "code"]].rename(columns={"severity_word": "severity"})),
        hide_index=True, placeholder=ui.MISSING, width="stretch", key="vio.counts",
        column_config={_("What it means"): st.column_config.TextColumn(_("What it means"), width="large")},
    )  # fmt: skip
    st.plotly_chart(charts.ranked_bars(df.assign(code=df["check"]), "code", "player_name", _("Findings by check and player"),
                                       ui.chart_labels(), ui.name_colors(con, match)), width="stretch", config=charts.CONFIG, key="vio.chart")  # fmt: skip
    titles = dict(zip(counts["code"], counts["check"], strict=True))
    code = st.selectbox(_("Check"), ["*", *dict.fromkeys(counts["code"])], key=ui.lkey("vio.code"),
                        format_func=ui.choices({"*": N_("(all checks)")}, titles))  # fmt: skip
    ui.remember("vio.code", code)
    if code != "*":
        st.caption(reasons.check_explanation(code))
    table = (df if code == "*" else df[df["code"] == code]).reset_index(drop=True)
    table = table.assign(message=[finding_specifics(f, names) or None for f in table.to_dict("records")],
                         note=[finding_detail(f, names) for f in table.to_dict("records")])  # fmt: skip
    st.caption(_("Click a row to open that event in the replayer. The last columns keep the check's code and the "
                 "validator's own note (in English, as it writes it)."))
    shown = table[["severity_word", "check", "player_name", "round_no", "turn_no", "message", "family_word", "code", "note"]]
    event = st.dataframe(
        _named(shown.rename(columns={"severity_word": "severity", "family_word": "family"})),
        hide_index=True, placeholder=ui.MISSING, width="stretch", key="vio.table", on_select="rerun",
        selection_mode="single-row", column_config=ui.wide_columns(["message"]),
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
