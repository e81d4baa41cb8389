"""Formatting of ``kifu validate`` reports: text, JSON or Markdown, one section per match and bot."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from loaders.pipeline import printable


def build(matches: pd.DataFrame, counts: pd.DataFrame, causes: pd.DataFrame | None = None,
          timing: pd.DataFrame | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """The report as plain data: matches, each with its players' findings, penalty causes and think times."""
    causes = causes if causes is not None else pd.DataFrame(columns=["match_id", "player"])
    timing = timing if timing is not None else pd.DataFrame(columns=["match_id", "player"])
    out = []
    for m in matches.to_dict("records"):
        mid = m["match_id"]
        rows = counts[counts["match_id"] == mid]
        players: dict[Any, dict[str, Any]] = {}

        def entry(code: Any, name: Any) -> dict[str, Any]:
            key = _plain(code)
            if key not in players:
                players[key] = {"player": _plain(name), "code": key, "findings": [], "penalty_causes": [],
                                "think_time": None}  # fmt: skip
            return players[key]

        for r in rows.to_dict("records"):
            entry(r["player"], r["player_name"])["findings"].append(
                {k: _plain(r[k]) for k in ("family", "severity", "code", "n", "with_penalty", "example_seq",
                                           "example_round", "example_turn", "example")}
            )  # fmt: skip
        for r in causes[causes["match_id"] == mid].to_dict("records"):
            entry(r["player"], r["player_name"])["penalty_causes"].append(
                {k: _plain(r[k]) for k in ("cause", "n", "cards", "explained_by", "example_seq")})
        for r in timing[timing["match_id"] == mid].to_dict("records"):
            entry(r["player"], r["player_name"])["think_time"] = {
                k: _plain(r[k]) for k in ("actions", "p50_ms", "p95_ms", "max_ms", "near_limit", "over_limit")}
        out.append({**{k: _plain(v) for k, v in m.items()}, "players": list(players.values())})
    return out


SEVERITY_RANK = {"error": 2, "warning": 1, "info": 0}


def failing(report: list[dict[str, Any]], level: str) -> int:
    """How many player-rule findings are at ``level`` or worse (``kifu validate --fail-on``)."""
    floor = SEVERITY_RANK[level]
    return sum(f["n"] for m in report for p in m["players"] for f in p["findings"]
               if f["family"] == "player-rule" and SEVERITY_RANK.get(f["severity"], 0) >= floor)  # fmt: skip


def safe(text: Any) -> str:
    """Untrusted text (bot and dealer names) for a terminal: control characters shown escaped."""
    return printable(text)


def _think(t: dict[str, Any] | None) -> str:
    if not t:
        return "think time: no timed action"
    return (f"think time: {t['actions']} actions, p50 {t['p50_ms']} ms, p95 {t['p95_ms']} ms, max {t['max_ms']} ms, "
            f"{t['near_limit']} over 4 s, {t['over_limit']} over 5 s")  # fmt: skip


def _plain(v: Any) -> Any:
    if v is None or (isinstance(v, float) and v != v):
        return None
    if hasattr(v, "item"):
        return v.item()
    return v


def to_json(report: list[dict[str, Any]]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2)


def _steps(m: dict[str, Any]) -> str:
    """'40 rounds' (ALGORI) or '60 turns' (a game without rounds, e.g. Kakomimasu)."""
    unit = "turns" if str(m.get("ruleset") or "").startswith("kakomimasu") else "rounds"
    return f"{m['rounds_played']} {unit}"


def to_text(report: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for m in report:
        head = m["match_id"] if m["dealer_name"] is None else f"{safe(m['dealer_name'])} ({m['dealer_code']}, {m['match_id']})"
        lines.append(f"{head} · {_steps(m)} · ruleset {m['ruleset']} v{m['ruleset_version']}")
        lines.append(f"  penalties: {m['penalties']}, explained by a player-rule finding: {m['penalties_explained']}")
        if not m["players"]:
            lines.append("  no findings")
        for p in m["players"]:
            total = sum(f["n"] for f in p["findings"])
            lines.append(f"  {safe(p['player'])} ({p['code'] or 'dealer'}): {total} finding(s)")
            if p["code"]:
                lines.append(f"    {_think(p['think_time'])}")
            if p["penalty_causes"]:
                lines.append("    penalties by the dealer's cause:")
                for c in p["penalty_causes"]:
                    lines.append(f"      {c['n']:>4} × {safe(c['cause'])!s:<38} {c['cards'] or 0:>4} card(s)   "
                                 f"explained by {c['explained_by'] or '—'}   e.g. seq {c['example_seq']}")  # fmt: skip
            if p["findings"]:
                lines.append("    findings by check:")
            for f in p["findings"]:
                where = f"round {f['example_round']} turn {f['example_turn']} seq {f['example_seq']}"
                lines.append(
                    f"      {f['family']:<17}{f['severity']:<8}{f['code']:<26}{f['n']:>5}   e.g. {where}: {safe(f['example'])}"
                )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def to_markdown(report: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for m in report:
        lines.append(f"## {m['match_id']}" if m["dealer_name"] is None else f"## {m['dealer_name']} ({m['dealer_code']})")
        lines.append("")
        lines.append(f"Match `{m['match_id']}`, {_steps(m)}, ruleset `{m['ruleset']}` "
                     f"v{m['ruleset_version']}. Penalties: {m['penalties']} "
                     f"({m['penalties_explained']} explained).")  # fmt: skip
        lines.append("")
        for p in m["players"]:
            lines.append(f"### {_md(p['player'])}")
            lines.append("")
            if p["code"]:
                lines.append(_md(_think(p["think_time"])))
                lines.append("")
            if p["penalty_causes"]:
                lines.append("| dealer's penalty cause | count | cards | explained by |")
                lines.append("|---|---:|---:|---|")
                for c in p["penalty_causes"]:
                    lines.append(f"| {_md(c['cause'])} | {c['n']} | {c['cards'] or 0} | {_md(c['explained_by'] or '—')} |")
                lines.append("")
            if not p["findings"]:
                continue
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
