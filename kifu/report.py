"""Formatting of ``kifu validate`` reports: text, JSON or Markdown, one section per match and bot."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd


def build(matches: pd.DataFrame, counts: pd.DataFrame) -> list[dict[str, Any]]:
    """The report as plain data: matches, each with its players' findings."""
    out = []
    for m in matches.to_dict("records"):
        rows = counts[counts["match_id"] == m["match_id"]]
        players = []
        for name, group in rows.groupby("player_name", sort=False):
            findings = [
                {k: _plain(r[k]) for k in ("family", "severity", "code", "n", "with_penalty", "example_seq",
                                           "example_round", "example_turn", "example")}
                for r in group.to_dict("records")
            ]  # fmt: skip
            players.append({"player": name, "code": _plain(group["player"].iloc[0]), "findings": findings})
        out.append({**{k: _plain(v) for k, v in m.items()}, "players": players})
    return out


def _plain(v: Any) -> Any:
    if v is None or (isinstance(v, float) and v != v):
        return None
    if hasattr(v, "item"):
        return v.item()
    return v


def to_json(report: list[dict[str, Any]]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2)


def to_text(report: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for m in report:
        lines.append(
            f"{m['dealer_name']} ({m['dealer_code']}, {m['match_id']}) · {m['rounds_played']} rounds · "
            f"ruleset {m['ruleset']} v{m['ruleset_version']}"
        )
        lines.append(f"  penalties: {m['penalties']}, explained by a player-rule finding: {m['penalties_explained']}")
        if not m["players"]:
            lines.append("  no findings")
        for p in m["players"]:
            total = sum(f["n"] for f in p["findings"])
            lines.append(f"  {p['player']} ({p['code'] or 'dealer'}): {total} finding(s)")
            for f in p["findings"]:
                where = f"round {f['example_round']} turn {f['example_turn']} seq {f['example_seq']}"
                lines.append(
                    f"    {f['family']:<17}{f['severity']:<8}{f['code']:<26}{f['n']:>5}   e.g. {where}: {f['example']}"
                )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def to_markdown(report: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for m in report:
        lines.append(f"## {m['dealer_name']} ({m['dealer_code']})")
        lines.append("")
        lines.append(f"Match `{m['match_id']}`, {m['rounds_played']} rounds, ruleset `{m['ruleset']}` "
                     f"v{m['ruleset_version']}. Penalties: {m['penalties']} "
                     f"({m['penalties_explained']} explained).")  # fmt: skip
        lines.append("")
        for p in m["players"]:
            lines.append(f"### {_md(p['player'])}")
            lines.append("")
            lines.append("| family | severity | code | count | with penalty | example |")
            lines.append("|---|---|---|---:|---:|---|")
            for f in p["findings"]:
                ex = f"round {f['example_round']}, turn {f['example_turn']} (seq {f['example_seq']}): {f['example']}"
                lines.append(f"| {f['family']} | {f['severity']} | `{f['code']}` | {f['n']} | {f['with_penalty']} | {_md(ex)} |")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _md(text: Any) -> str:
    """Escape untrusted text (bot names, titles) for a Markdown table cell."""
    s = str(text)
    for ch in "\\|*_`[]<>#":
        s = s.replace(ch, "\\" + ch)
    return s.replace("\n", " ")
