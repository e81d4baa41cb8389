"""Formatting of ``kifu validate`` reports: text, JSON or Markdown, one section per match and bot.

A section leads with what a contestant asks first: how the match ended (Kakomimasu and CHaser: the
winner, the points or items, how it ended, in words), then, per bot, every penalty the dealer gave —
where (round, turn, seq), the dealer's cause and the validator's finding that explains it, in plain
words, with a link to the dashboard page that shows it — then the aggregates (penalties by cause,
findings by check, think times).

Everything that came from a log (names, ids, titles, the dealer's and the validator's messages) goes
through :mod:`common.safe` on the way out: :func:`~common.safe.terminal` for text,
:func:`~common.safe.markdown` for Markdown, :func:`~common.safe.json_dumps` for JSON.
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from urllib.parse import urlencode

import pandas as pd

from app.reasons import CAUSE_REASONS, CHECK_REASONS  # plain data: app.reasons does not import streamlit
from common.safe import json_dumps, markdown, terminal
from rules.uno.transitions import TIMEOUTS

#: What ``kifu serve`` binds by default (``--dashboard-url`` or ``KIFU_DASHBOARD_URL`` say otherwise).
DEFAULT_DASHBOARD = "http://127.0.0.1:8501"
GAME_TITLES = {"algori-uno": "ALGORI UNO", "kakomimasu": "Kakomimasu", "chaser": "CHaser"}
#: The dashboard page (its url_path) that steps through a game's moves.
PAGES = {"algori-uno": "round_browser", "kakomimasu": "kakomimasu_board", "chaser": "chaser_board"}
#: How a Kakomimasu game was decided (the rules' order: total points, then wall points).
DECIDED_BY = {"total": "total points", "wall": "wall points (equal totals)"}
SIDES = {"COOL": "Cool", "HOT": "Hot"}
SEVERITY_RANK = {"error": 2, "warning": 1, "info": 0}


# ---- plain data ---------------------------------------------------------------------------------------


def _plain(v: Any) -> Any:
    """A cell as plain Python: None for NULL/NaN/NaT, numbers and strings as themselves."""
    if v is None or v is pd.NaT or (isinstance(v, float) and v != v):
        return None
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    if hasattr(v, "item"):
        return v.item()
    return v


def _records(df: pd.DataFrame | None, match_id: Any = None) -> list[dict[str, Any]]:
    if df is None or df.empty:
        return []
    if match_id is not None:
        df = df[df["match_id"] == match_id]
    return [{k: _plain(v) for k, v in r.items()} for r in df.to_dict("records")]


def _num(v: Any) -> str:
    return "?" if v is None else str(v)


def dashboard_url(base: str, page: str, **params: Any) -> str:
    """``base``/``page``?params, the parameters URL-encoded (None ones left out)."""
    query = urlencode({k: str(v) for k, v in params.items() if v is not None})
    return f"{base.rstrip('/')}/{page}" + (f"?{query}" if query else "")


def position_url(base: str, game: Any, match: Any, round_no: Any = None, turn: Any = None,
                 seq: Any = None) -> str:  # fmt: skip
    """The dashboard page that shows a match at that moment: the round replayer (ALGORI: round and
    event), the Kakomimasu board (turn) or the CHaser replay (action)."""
    if game == "kakomimasu":
        return dashboard_url(base, PAGES[game], match=match, turn=turn)
    if game == "chaser":
        return dashboard_url(base, PAGES[game], match=match, seq=seq)
    if game == "algori-uno":
        at = seq if round_no is not None else None
        return dashboard_url(base, PAGES[game], match=match, round=round_no, seq=at)
    return dashboard_url(base, "home", match=match)


def check_title(code: Any) -> str | None:
    """A check's plain-words title; several codes ("a, b") give their titles joined."""
    if not code:
        return None
    return "; ".join(CHECK_REASONS[c].title if c in CHECK_REASONS else c for c in str(code).split(", "))


def cause_title(cause: Any) -> str | None:
    """The dealer's cause in plain words (None for a cause Kifu does not know: the dealer's text says it)."""
    r = CAUSE_REASONS.get(str(cause)) if cause is not None else None
    return r.title if r is not None else None


def _side_name(game: Any, name: Any, code: Any, clash: bool) -> str:
    """How a player is named in a report: its name, with its code where the name alone is not enough."""
    if code is None:
        return "(dealer)" if game == "algori-uno" else "(server)"
    name = name if name not in (None, "") else code
    if game == "chaser":
        return f"{name} ({SIDES.get(str(code), code)})"
    if game == "algori-uno":  # the dealer's and the validator's messages name players by code
        return f"{name} ({code})" if name != code else str(name)
    if not clash or name == code:
        return str(name)
    # Kakomimasu numbers ids that repeat in a game ("id#1", "id#2")
    return str(code) if str(code).startswith(f"{name}#") else f"{name} ({code})"


def _score_words(r: dict[str, Any], names: dict[Any, str]) -> str:
    score = "no final score" if r["score"] is None else r["score"]  # a match the log does not finish
    text = f"{names.get(r['code'], r['code'])} {score}"
    if r.get("area") is not None and r.get("wall") is not None:
        text += f" (area {r['area']} + wall {r['wall']})"
    return text


def _result(m: dict[str, Any], scores: list[dict[str, Any]], names: dict[Any, str]) -> dict[str, Any]:
    """How the match ended, in words (``text``, ``scores_text``) and as data."""
    game, winner = m.get("game"), m.get("winner")
    rows = []
    for s in scores:
        row = {"player": s["player_name"], "code": s["player_code"], "score": s["final_score"],
               "rank": s["final_rank"]}  # fmt: skip
        if game == "kakomimasu":
            row |= {"area": s["area"], "wall": s["wall"]}
        rows.append(row)
    who = names.get(winner) if winner is not None else None
    out: dict[str, Any] = {"winner": m.get("winner_name"), "winner_code": winner, "draw": False,
                           "finished": m.get("status") == "finished"}  # fmt: skip
    listed = " · ".join(_score_words(r, names) for r in rows)
    if game == "kakomimasu":
        how = m.get("decided_by")
        if how == "draw":
            out |= {"draw": True, "text": "a draw: equal total and wall points"}
        elif winner is not None:
            out["text"] = f"{who} wins on {DECIDED_BY.get(how, 'points')}"
        else:
            out |= {"finished": False, "text": f"not finished: {m.get('turns_logged') or 0} of "
                    f"{_num(m.get('total_turns'))} turns logged, points so far"}  # fmt: skip
        out |= {"decided_by": how, "scores_text": listed}
    elif game == "chaser":
        kind, sentence = m.get("end_kind"), m.get("sentence")
        if kind in (None, "incomplete") or not sentence:
            out |= {"finished": False, "text": "not finished: the log stops before the end of the game"}
        elif winner is None:
            out |= {"draw": True, "text": str(sentence)}
        else:
            out["text"] = f"{who} wins: {sentence}"
        out |= {"end_kind": kind, "sentence": sentence, "end_turn": m.get("end_turn"),
                "scores_text": f"items: {listed}"}  # fmt: skip
    else:
        if winner is not None and m.get("status") == "finished":
            out["text"] = f"{who} wins"
        else:
            out |= {"finished": False, "text": f"not finished ({m.get('status') or 'unknown'})"}
        out["scores_text"] = f"scores: {listed}"
    if not rows:
        out["scores_text"] = ""
    out["scores"] = rows
    return out


def build(matches: pd.DataFrame, counts: pd.DataFrame, causes: pd.DataFrame | None = None,
          timing: pd.DataFrame | None = None, penalties: pd.DataFrame | None = None,
          scores: pd.DataFrame | None = None, *, dashboard: str = DEFAULT_DASHBOARD,
          player: str | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """The report as plain data: matches (with how they ended), each with its players' penalties one by
    one, findings by check, penalty causes and think times; every position with its dashboard URL.

    ``player``: the ``--player`` asked for — that player gets an entry in every match, even with nothing
    to report (a clean game reads "no findings", not a missing player)."""
    out = []
    for m in _records(matches):
        mid, game = m["match_id"], m.get("game")
        sc = _records(scores, mid)
        clash = {n for n, k in Counter(s["player_name"] for s in sc).items() if k > 1}
        names = {s["player_code"]: _side_name(game, s["player_name"], s["player_code"],
                                              s["player_name"] in clash) for s in sc}  # fmt: skip
        players: dict[Any, dict[str, Any]] = {}

        def entry(code: Any, name: Any) -> dict[str, Any]:
            if code not in players:
                url = None
                if game == "algori-uno" and code is not None:  # "Where did my bot go wrong?": its rounds
                    url = dashboard_url(dashboard, "player_rounds", match=mid, player=code)
                kind = "bot" if code is not None else ("dealer" if game == "algori-uno" else "server")
                players[code] = {
                    "player": name if code is not None else _side_name(game, None, None, False), "code": code,
                    "kind": kind, "shown": names.get(code) or _side_name(game, name, code, False), "url": url,
                    "penalties": [], "findings": [], "penalty_causes": [], "think_time": None,
                }  # fmt: skip
            return players[code]

        # every player of the match gets an entry, with nothing to report or not (a clean game reads
        # "no findings", not a missing player); with --player, only that player
        for s in sc:
            if player is None or player in (s["player_name"], s["player_code"]):
                entry(s["player_code"], s["player_name"])
        for r in _records(penalties, mid):
            entry(r["player"], r["player_name"])["penalties"].append({
                "round": r["round_no"], "turn": r["turn_no"], "seq": r["seq"], "cause": r["cause"],
                "cause_title": cause_title(r["cause"]), "cards": r["cards"],
                "explained_by": r["explained_by"], "explained_by_title": check_title(r["explained_by"]),
                "finding": r["finding"], "finding_seq": r["finding_seq"],
                "dealer_fault": r["dealer_fault"], "dealer_fault_title": check_title(r["dealer_fault"]),
                "dealer_finding": r["dealer_finding"],
                "url": position_url(dashboard, game, mid, r["round_no"], seq=r["seq"]),
            })  # fmt: skip
        for r in _records(counts, mid):
            f = {k: r[k] for k in ("family", "severity", "code", "n", "with_penalty", "example_seq",
                                   "example_round", "example_turn", "example")}  # fmt: skip
            f["title"] = check_title(r["code"])
            f["url"] = position_url(dashboard, game, mid, r["example_round"], r["example_turn"],
                                    r["example_seq"])  # fmt: skip
            entry(r["player"], r["player_name"])["findings"].append(f)
        for r in _records(causes, mid):
            c = {k: r[k] for k in ("cause", "n", "dealer_fault", "cards", "explained_by", "example_seq")}
            c["cause_title"] = cause_title(r["cause"])
            c["explained_by_title"] = check_title(r["explained_by"])
            entry(r["player"], r["player_name"])["penalty_causes"].append(c)
        for r in _records(timing, mid):
            entry(r["player"], r["player_name"])["think_time"] = {
                k: r[k] for k in ("actions", "p50_ms", "p95_ms", "max_ms", "near_limit", "over_limit")}
        for p in players.values():
            if game == "algori-uno" and p["code"] is not None:
                timeouts = sum(c["n"] - (c["dealer_fault"] or 0) for c in p["penalty_causes"] if c["cause"] in TIMEOUTS)
                if p["think_time"] is None and timeouts:
                    p["think_time"] = {"actions": 0}
                if p["think_time"] is not None:
                    p["think_time"]["timeouts"] = timeouts
        m["game_title"] = GAME_TITLES.get(str(game), str(game))
        m["url"] = position_url(dashboard, game, mid)
        m["result"] = _result(m, sc, names)
        # whose the match's penalty figures are: every player's, or the --player's alone
        m["penalties_of"] = next((p["shown"] for p in players.values() if p["kind"] == "bot"
                                  and player in (p["player"], p["code"])), player) if player else None  # fmt: skip
        out.append({**m, "players": list(players.values())})
    return out


def failing(report: list[dict[str, Any]], level: str) -> int:
    """How many player-rule findings are at ``level`` or worse (``kifu validate --fail-on``)."""
    floor = SEVERITY_RANK[level]
    return sum(f["n"] for m in report for p in m["players"] for f in p["findings"]
               if f["family"] == "player-rule" and SEVERITY_RANK.get(f["severity"], 0) >= floor)  # fmt: skip


# ---- words shared by text and Markdown (plain, unescaped: each format escapes them) --------------------


def _plural(n: Any, word: str, plural: str | None = None) -> str:
    return f"{_num(n)} {word if n == 1 else plural or word + 's'}"


def think_line(t: dict[str, Any] | None) -> str:
    """The think-time summary of a bot, saying why its timed-out turns are not in it: think time is
    measured on the actions that reached the dealer, and a turn that timed out has none."""
    if not t:
        return "think time: no timed action"
    n = t.get("timeouts") or 0
    why = ""
    if n:
        counted = "is counted as a penalty" if n == 1 else "are counted as penalties"
        why = (f" — the {_plural(n, 'timeout')} (no action within 5 s) {counted}, not here: "
               "a turn that timed out has no action to time")  # fmt: skip
    if not t.get("actions"):
        return "think time: no timed action" + why
    return (f"think time: {t['actions']} actions, p50 {t['p50_ms']} ms, p95 {t['p95_ms']} ms, "
            f"max {t['max_ms']} ms, {t['near_limit']} over 4 s, {t['over_limit']} over 5 s{why}")  # fmt: skip


def _steps(m: dict[str, Any]) -> str:
    """'40 rounds' (ALGORI), '60 of 60 turns' (Kakomimasu), 'ended at turn 47 of 100' (CHaser; a log cut
    off before the end: 'log stops at turn 57 of 120')."""
    game, n = m.get("game"), m.get("rounds_played")
    if game == "kakomimasu":
        logged = m.get("turns_logged") if m.get("turns_logged") is not None else n
        if m.get("log_format") == "kakomimasu-2020":  # snapshots, not actions: turns are inferred between them
            if not logged:
                return f"{_num(m.get('total_turns'))} turns (the log keeps the final board only)"
            return f"{_num(logged)} of {_num(m.get('total_turns'))} turns (inferred from the log's snapshots)"
        return f"{_num(logged)} of {_num(m.get('total_turns'))} turns"
    if game == "chaser":
        finished = (m.get("result") or {}).get("finished", True)
        return f"{'ended' if finished else 'log stops'} at turn {_num(n)} of {_num(m.get('total_turns'))}"
    return _plural(n, "round")


def _where(game: Any, round_no: Any, turn: Any, seq: Any) -> str:
    """Where a finding is, in its game's terms: ALGORI round, turn and seq; Kakomimasu turn; CHaser turn
    and action. A part the log does not give is left out (never a "?")."""
    if game == "kakomimasu":
        return f"turn {turn}" if turn is not None else "the whole game"
    if game == "chaser":
        where = f"turn {turn}" if turn is not None else ""
        if seq is not None:
            where += f" (action {seq})" if where else f"action {seq}"
        return where or "the whole game"
    if round_no is None and seq is None:
        return "the whole match"
    parts = [("round", round_no), ("turn", turn), ("seq", seq)]
    return " ".join(f"{word} {v}" for word, v in parts if v is not None)


def readable(msg: Any) -> str:
    """A validator message for a person ("" for none). The validator writes a value the bot left
    out as the log does (``null``, "no card"), so the message is shown as stored: rewriting words
    in it could change a bot's name inside it."""
    return "" if msg is None else str(msg)


def _message(f: dict[str, Any], game: Any) -> str:
    """A finding's example message, without the 'turn N: ' Kakomimasu and CHaser messages start with."""
    msg = "" if f.get("example") is None else str(f["example"])
    prefix = f"turn {f.get('example_turn')}: "
    return readable(msg[len(prefix):] if game != "algori-uno" and msg.startswith(prefix) else msg)


def _finding_words(p: dict[str, Any]) -> str:
    """The finding behind a penalty: its title, code and message (without the dealer's cause it repeats)."""
    if not p.get("explained_by"):
        if p.get("dealer_fault"):
            return (f"not the bot's fault — the dealer's: {p['dealer_fault_title']} [{p['dealer_fault']}]: "
                    f"{readable(p.get('dealer_finding'))}")
        return "no finding explains it"
    msg = readable(p.get("finding"))
    tail = f": {p['cause']}"
    if msg.endswith(tail):
        msg = msg[: -len(tail)]
    return f"{p['explained_by_title']} [{p['explained_by']}]" + (f": {msg}" if msg else "")


def _cause_words(p: dict[str, Any]) -> str:
    """The dealer's cause in plain words, with the dealer's own text."""
    cause = "" if p.get("cause") is None else str(p["cause"])
    title = p.get("cause_title")
    return f'{title} ("{cause}")' if title else f'"{cause}"'


def _header(m: dict[str, Any]) -> str:
    """One line naming the match the way a person tells it apart: game, name, board or map, length, id."""
    game = m.get("game")
    parts = [m["game_title"]]
    if game == "algori-uno":
        who = m.get("dealer_name")
        parts.append(f"{who} ({m.get('dealer_code') or '?'}, {m['match_id']})" if who is not None
                     else str(m["match_id"]))  # fmt: skip
        parts.append(_steps(m))
    else:
        if game == "kakomimasu":
            if m.get("game_name"):
                parts.append(str(m["game_name"]))
            known = m.get("width") is not None and m.get("height") is not None
            size = f"{m['width']}×{m['height']}" if known else ""
            board = m.get("board") or ""
            parts.append("board " + (f"{board} ({size})" if board and size else board or size or "?"))
        elif game == "chaser":
            if m["result"]["scores"]:
                parts.append(" vs ".join(str(r["player"]) for r in m["result"]["scores"]))
            parts.append(f"map {m.get('board') or '?'}")
        parts += [_steps(m), str(m["match_id"])]
    parts.append(f"ruleset {m.get('ruleset') or '?'} v{m.get('ruleset_version') or '?'}")
    return " · ".join(parts)


def _player_summary(m: dict[str, Any], p: dict[str, Any]) -> str:
    total = sum(f["n"] for f in p["findings"])
    bits = []
    if m.get("game") == "algori-uno" and p["code"] is not None:
        bits.append(_plural(len(p["penalties"]), "penalty", "penalties"))
    bits.append(_plural(total, "finding") if total else "no findings")
    return ", ".join(bits)


def _result_words(res: dict[str, Any]) -> str:
    return res["text"] + (f" — {res['scores_text']}" if res.get("scores_text") else "")


# ---- text -----------------------------------------------------------------------------------------------


def to_text(report: list[dict[str, Any]]) -> str:
    t = terminal
    lines: list[str] = []
    for m in report:
        game = m.get("game")
        lines += [t(_header(m)), f"  result: {t(_result_words(m['result']))}"]
        if game == "algori-uno":
            whose = f" of {t(m['penalties_of'])}" if m.get("penalties_of") else ""
            lines.append(f"  penalties{whose}: {m['penalties']}, explained by a player-rule finding: "
                         f"{m['penalties_explained']}")  # fmt: skip
        lines.append(f"  dashboard: {t(m['url'])}")
        if not m["players"]:
            lines.append("  no findings")
        for p in m["players"]:
            link = f" · {t(p['url'])}" if p.get("url") else ""
            lines.append(f"  {t(p['shown'])}: {_player_summary(m, p)}{link}")
            lines += _text_penalties(p["penalties"])
            if game == "algori-uno" and p["code"] is not None:
                lines.append(f"    {think_line(p['think_time'])}")
            if p["penalty_causes"]:
                lines.append("    penalties by the dealer's cause:")
            for c in p["penalty_causes"]:
                expl = "no finding"
                if c["explained_by"]:
                    expl = f"{t(c['explained_by_title'])} [{t(c['explained_by'])}]"
                fault = f" ({c['dealer_fault']} the dealer's fault: the log contradicts them)" if c["dealer_fault"] else ""
                lines.append(f"      {c['n']:>4} × {t(_cause_words(c))}{fault}, {_plural(c['cards'] or 0, 'card')} "
                             f"→ {expl}, first at seq {_num(c['example_seq'])}")  # fmt: skip
            if p["findings"]:
                lines.append("    findings by check:")
            wc = max((len(t(f["code"])) for f in p["findings"]), default=0)
            for f in p["findings"]:
                where = _where(game, f["example_round"], f["example_turn"], f["example_seq"])
                kind = f"{t(f['family']):<17}{t(f['severity']):<8}{t(f['code']):<{wc}}{f['n']:>6}"
                lines.append(f"      {kind}  {t(f['title'])} · e.g. {where}: {t(_message(f, game))} "
                             f"· {t(f['url'])}")  # fmt: skip
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _text_penalties(penalties: list[dict[str, Any]]) -> list[str]:
    """Every penalty, one line each, in the order the dealer gave them."""
    if not penalties:
        return []
    t = terminal
    lines = ["    penalties (round, turn, seq: the dealer's cause → the finding that explains it "
             "· dashboard link):"]  # fmt: skip
    w = [max(len(_num(x[k])) for x in penalties) for k in ("round", "turn", "seq")]
    for x in penalties:
        cards = f", {_plural(x['cards'], 'card')}" if x.get("cards") is not None else ""
        where = (f"round {_num(x['round']):>{w[0]}} turn {_num(x['turn']):>{w[1]}} "
                 f"seq {_num(x['seq']):>{w[2]}}")  # fmt: skip
        lines.append(f"      {where}: {t(_cause_words(x))}{cards} → {t(_finding_words(x))} · {t(x['url'])}")
    return lines


# ---- Markdown ---------------------------------------------------------------------------------------------


def _link(label: str, url: Any) -> str:
    """A Markdown link: ``label`` is Kifu's own words, ``url`` a dashboard URL (its parameters URL-encoded,
    its base checked by ``kifu validate --dashboard-url``)."""
    return f"[{label}]({url})" if url else ""


def to_markdown(report: list[dict[str, Any]]) -> str:
    md = markdown
    lines: list[str] = []
    for m in report:
        game = m.get("game")
        lines += [f"## {md(_header(m))}", ""]
        head = f"**Result**: {md(_result_words(m['result']))}."
        if game == "algori-uno":
            whose = f" of {md(m['penalties_of'])}" if m.get("penalties_of") else ""
            head += (f" Penalties{whose}: {m['penalties']} ({m['penalties_explained']} explained by a "
                     "player-rule finding).")  # fmt: skip
        lines += [f"{head} {_link('Open in the dashboard', m['url'])}", ""]
        if not m["players"]:
            lines += ["No findings.", ""]
        for p in m["players"]:
            link = f" · {_link('its rounds, worst first', p['url'])}" if p.get("url") else ""
            lines += [f"### {md(p['shown'])}", "", md(_player_summary(m, p)) + link, ""]
            lines += _markdown_penalties(p["penalties"])
            if game == "algori-uno" and p["code"] is not None:
                lines += [md(think_line(p["think_time"])), ""]
            if p["penalty_causes"]:
                lines += ["| dealer's penalty cause | count | the dealer's fault | cards | explained by |",
                          "|---|---:|---:|---:|---|"]  # fmt: skip
                for c in p["penalty_causes"]:
                    expl = "—"
                    if c["explained_by"]:
                        expl = f"{md(c['explained_by_title'])} ({md(c['explained_by'])})"
                    lines.append(f"| {md(_cause_words(c))} | {c['n']} | {c['dealer_fault'] or 0} | {c['cards'] or 0} "
                                 f"| {expl} |")  # fmt: skip
                lines.append("")
            if p["findings"]:
                lines += ["| family | severity | check | count | with penalty | first example | |",
                          "|---|---|---|---:|---:|---|---|"]  # fmt: skip
            for f in p["findings"]:
                where = _where(game, f["example_round"], f["example_turn"], f["example_seq"])
                lines.append(f"| {md(f['family'])} | {md(f['severity'])} "
                             f"| {md(f['title'])} ({md(f['code'])}) "
                             f"| {f['n']} | {f['with_penalty']} | {md(where + ': ' + _message(f, game))} "
                             f"| {_link('open', f['url'])} |")  # fmt: skip
            if p["findings"]:
                lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _markdown_penalties(penalties: list[dict[str, Any]]) -> list[str]:
    """Every penalty as a table row, in the order the dealer gave them."""
    if not penalties:
        return []
    md = markdown
    lines = ["| round | turn | seq | the dealer's cause | cards | explained by | finding | |",
             "|---:|---:|---:|---|---:|---|---|---|"]  # fmt: skip
    for x in penalties:
        expl = f"{md(x['explained_by_title'])} ({md(x['explained_by'])})" if x.get("explained_by") else "none"
        finding = readable(x["finding"])
        if not x.get("explained_by") and x.get("dealer_fault"):
            expl = f"not the bot's fault: {md(x['dealer_fault_title'])} ({md(x['dealer_fault'])})"
            finding = readable(x["dealer_finding"])
        lines.append(f"| {_num(x['round'])} | {_num(x['turn'])} | {_num(x['seq'])} | {md(_cause_words(x))} "
                     f"| {_num(x['cards'])} | {expl} | {md(finding)} "
                     f"| {_link('open', x['url'])} |")  # fmt: skip
    return [*lines, ""]


def to_json(report: list[dict[str, Any]]) -> str:
    return json_dumps(report) + "\n"
