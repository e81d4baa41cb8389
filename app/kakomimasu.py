"""One Kakomimasu game as replayer frames: the field after every turn, each action drawn, findings.

The stored records (the v1 Game JSON or the 2020 snapshots) are parsed and replayed with the
pure rules (``rules.kakomimasu``) — a game is at most a few hundred turns on a small field, a
few milliseconds — and sent to the browser whole; ``replayer/kakomimasu.js`` draws the field.
Everything here is plain data so it serialises to JSON as is.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.findings import finding_item
from app.i18n import N_, _
from app.ui import PLAYER_COLOURS
from rules.kakomimasu.engine import ACTION_TYPES, NOBODY, WALL, Board
from rules.kakomimasu.game import GameLog, GameLogError, classify, from_snapshots, from_v1
from rules.kakomimasu.replay import TurnFrame, judge_all, player_codes

RESULT_LABELS = {
    0: N_("success"), 1: N_("conflict"), 2: N_("reverted"), 3: N_("several actions for one agent"),
    4: N_("no such agent"), 5: N_("illegal action"),
}  # fmt: skip
#: Bar colours of the result codes (Okabe–Ito: success green, conflicts orange, refusals vermillion/purple).
RESULT_COLOURS = {0: "#009E73", 1: "#E69F00", 2: "#56B4E9", 3: "#CC79A7", 4: "#D55E00", 5: "#B3261E"}
#: How the areas of a game were filled.
FILLS = {"server-2.0.1": N_("the official server (engine v2.0.1)"), "as-written": N_("the written rules")}
TYPE_LABELS = {1: N_("put"), 2: N_("stay (NONE)"), 3: N_("move"), 4: N_("remove")}

#: The rules' reasons for a refused action, in words the viewer reads.
WHY = [
    (r"PUT for an agent already on the field", N_("the agent is already on the field")),
    (r"(PUT|MOVE|REMOVE) outside the field", N_("outside the field")),
    (r"(MOVE|REMOVE) for an agent not yet on the field", N_("the agent is not on the field yet")),
    (r"(MOVE|REMOVE) to a cell that is not one of the 8 neighbours", N_("not one of the 8 neighbouring cells")),
    (r"REMOVE of a cell that is not a wall", N_("the cell is not a wall")),
    (r"NONE is not an action", N_("NONE: the agent stays (the server logs it as illegal)")),
    (r"unknown action type", N_("unknown action type")),
    (r"player has no agent", N_("the player has no such agent")),
    (r"agent \d+ was given several actions", N_("the agent was given several actions")),
    (r"onto another player's wall", N_("onto another team's wall")),
    (r"PUT onto another player's wall", N_("onto another team's wall: the agent stays off the field")),
    (r"(\d+) actions aimed at this cell", N_("{n} actions aimed at this cell")),
    (r"another agent ends its turn on this cell", N_("another agent stays on or ends at this cell")),
    (r"an agent stands on the wall to remove", N_("an agent stands on the wall to remove")),
    (r"stayed: what it was told", N_("stayed: the 2020 log does not say what it was told to do")),
    (r"removed by one of (\d+) agents", N_("removed by one of {n} agents next to it")),
    (r"not placed", N_("not on the field")),
]

LABELS = {
    "first": N_("First turn"), "back": N_("back"), "next": N_("next"), "last": N_("Last turn"),
    "play": N_("play"), "pause": N_("pause"), "speed": N_("Autoplay speed"), "event": N_("step"),
    "round": N_("Game"), "turn": N_("turn"), "before_first_turn": N_("before the first turn"),
    "no_events": N_("This game has no turn yet."), "view": N_("Whose actions to draw"),
    "view_all": N_("All teams"), "view_as": N_("Only"), "area": N_("area"), "wall": N_("wall"),
    "total": N_("total"), "logged": N_("logged"), "agent": N_("agent"), "neutral": N_("neutral"),
    "negative": N_("negative cell"), "field": N_("Field"), "actions": N_("Actions this turn"),
    "result": N_("result"), "team": N_("team"), "no_actions": N_("no action this turn"),
}  # fmt: skip


def selected_game(con: Any) -> tuple[str, dict[str, Any]]:
    """The sidebar's Kakomimasu game and its game row (or a hint, and stop)."""
    from app import ui
    from queries import kakomimasu

    return ui.selected_game(con, kakomimasu.game, N_("Pick a Kakomimasu game in the sidebar."))


def why_text(why: str) -> str:
    for pattern, message in WHY:
        m = re.match(pattern, why)
        if m:
            n = next((g for g in m.groups() if g and g.isdigit()), None)
            return _(message).format(n=n) if n else _(message)
    return why


def parse(records: list[tuple[int, str]]) -> GameLog:
    """The game a match's stored records hold (raises GameLogError)."""
    docs = [json.loads(raw) for _seq, raw in records]
    if not docs:
        raise GameLogError("no records")
    if classify(docs[0]) == "v1-game":
        return from_v1(docs[0])
    return from_snapshots(docs)


def _cells(board: Board) -> str:
    """One character per cell: '.' neutral, 'A'.. wall of team 0.., 'a'.. area of team 0.."""
    out = []
    for kind, owner in zip(board.kinds, board.owners, strict=True):
        if owner == NOBODY or owner < 0:
            out.append(".")
        else:
            out.append(chr((65 if kind == WALL else 97) + owner))
    return "".join(out)


def _action_text(view: Any) -> str:
    a = view.action
    kind = _(TYPE_LABELS.get(a.type, ACTION_TYPES.get(a.type, str(a.type))))
    where = "" if a.type == 2 or a.x < 0 else f" ({a.x}, {a.y})"
    text = _("agent {agent}: {kind}{where}").format(agent=a.agent_id, kind=kind, where=where)
    if view.undetermined:
        return text + " — " + why_text(view.why)
    if view.inferred:
        return text + " — " + _("inferred from the snapshots")
    text += " — " + _(RESULT_LABELS.get(view.res_replayed, str(view.res_replayed)))
    if view.why:
        text += ": " + why_text(view.why)
    if view.res is not None and view.res != view.res_replayed:
        text += " " + _("(logged: {res})").format(res=_(RESULT_LABELS.get(view.res, str(view.res))))
    return text


def game_payload(game: GameLog, *, match: str, names: dict[str, str], jump_turn: int | None = None,
                 token: int = 0) -> dict[str, Any]:  # fmt: skip
    """The replayer's data for a whole game (one frame before the first turn, one per turn)."""
    codes = player_codes(game)
    frames, summary = judge_all(game, match_id=match)
    players = [{"code": c, "name": names.get(c, c), "color": PLAYER_COLOURS[i % len(PLAYER_COLOURS)]}
               for i, c in enumerate(codes)]  # fmt: skip
    out: list[dict[str, Any]] = []
    if frames:
        out.append(_start_frame(frames[0].before, len(codes)))
    for f in frames:
        out.append(_turn_frame(f, codes, names))
    if out and summary.end_violations:
        last = out[-1]
        last["findings"] = last["findings"] + [finding_item(v, names) for v in summary.end_violations]
    field = {"w": game.width, "h": game.height, "points": list(game.points or ())}
    jump = jump_turn if jump_turn is not None else (out[0]["seq"] if out else 0)
    return {
        "id": match, "game": "kakomimasu", "round": None, "seats": codes, "players": players,
        "labels": {k: _(v) for k, v in LABELS.items()}, "frames": out, "visible": list(range(len(out))),
        "jump": {"seq": jump, "token": token}, "field": field,
    }  # fmt: skip


def _start_frame(board: Board, n: int) -> dict[str, Any]:
    return {
        "seq": 0, "turn": None, "event": "start", "label": _("Game starts"), "who": "",
        "sentence": _("The field before the first turn."), "refused": False, "findings": [],
        "board": {"cells": _cells(board), "agents": [list(map(list, row)) for row in board.agents],
                  "actions": [], "points": [[0, 0] for _ in range(n)], "logged": [None] * n},
    }  # fmt: skip


def _turn_frame(f: TurnFrame, codes: list[str], names: dict[str, str]) -> dict[str, Any]:
    actions = []
    failed: dict[int, int] = {}
    for view in f.actions:
        a = view.action
        before = f.before.agents[view.player][a.agent_id] if view.player < len(f.before.agents) and \
            0 <= a.agent_id < len(f.before.agents[view.player]) else (-1, -1)  # fmt: skip
        ok = view.res_replayed == 0
        if not ok:
            failed[view.player] = failed.get(view.player, 0) + 1
        actions.append({
            "p": view.player, "a": a.agent_id, "t": a.type, "x": a.x, "y": a.y, "fx": before[0], "fy": before[1],
            "ok": ok and not view.undetermined, "u": view.undetermined, "text": _action_text(view),
        })  # fmt: skip
    parts = []
    for p, code in enumerate(codes):
        n = sum(1 for x in f.actions if x.player == p and not x.undetermined)
        area, wall = f.points[p] if p < len(f.points) else (0, 0)
        parts.append(_("{team}: {n} actions, {failed} failed, {total} points").format(
            team=names.get(code, code), n=n, failed=failed.get(p, 0), total=area + wall))  # fmt: skip
    found = [finding_item(v, names) for v in f.violations]
    return {
        "seq": f.turn, "turn": f.turn, "event": "turn", "label": _("Turn {turn}").format(turn=f.turn),
        "who": _("{n} failed").format(n=sum(failed.values())) if failed else "",
        "sentence": " · ".join(parts), "refused": False,
        "findings": found,
        "board": {"cells": _cells(f.after), "agents": [list(map(list, row)) for row in f.after.agents],
                  "actions": actions, "points": [list(p) for p in f.points],
                  "logged": [list(p) if p is not None else None for p in f.logged_points]},
    }  # fmt: skip
