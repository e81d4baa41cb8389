"""One CHaser game as replayer frames (the map after every action) and its end in words.

The stored server log is parsed and replayed with the pure rules (``rules.chaser``) — a game is a
few hundred actions on a 15×17 map, a few milliseconds — and sent to the browser whole;
``replayer/chaser.js`` draws the map.
"""

from __future__ import annotations

from typing import Any

from app.findings import finding_item
from app.i18n import N_, _
from rules.chaser.engine import State
from rules.chaser.log import ChaserLog, decode, parse_log
from rules.chaser.replay import ActionFrame, Summary, judge_all

#: Team colours: Cool blue, Hot vermillion (Okabe–Ito), as the server paints them.
TEAM_COLOURS = {"COOL": "#0072B2", "HOT": "#D55E00"}

END_WORDS = {
    "put-on": N_("{winner} put a block on {loser} at turn {turn}"),
    "walked-into-block": N_("{loser} walked into a block at turn {turn}"),
    "surrounded-by-opponent": N_("{winner} walled {loser} in on all four sides at turn {turn}"),
    "self-surrounded": N_("{loser} walled itself in at turn {turn}"),
    "items": N_("Time up: {winner} has more items ({cool}:{hot})"),
    "draw": N_("Time up with equal items ({cool}:{hot}): a draw"),
    "no-response": N_("{loser} stopped answering at turn {turn} (disconnected or timed out)"),
    "invalid-method": N_("{loser} sent a method the server does not know at turn {turn}"),
    "invalid-direction": N_("{loser} sent an action without a valid direction at turn {turn}"),
    "incomplete": N_("The log stops before the end of the game"),
    "incomplete-at": N_("The log stops at turn {turn}, before the end of the game"),
}
END_KINDS = {
    "put-on": N_("block put on the player"), "walked-into-block": N_("walked into a block"),
    "surrounded-by-opponent": N_("walled in by the opponent"), "self-surrounded": N_("walled itself in"),
    "items": N_("more items at time up"), "draw": N_("draw"), "no-response": N_("no response"),
    "invalid-method": N_("invalid method"), "invalid-direction": N_("invalid direction"), "incomplete": N_("log cut off"),
}  # fmt: skip
#: How a game was won, from the winner's side (a bot's "won by" column).
WON_BY = {
    "put-on": N_("put a block on the opponent"), "walked-into-block": N_("the opponent walked into a block"),
    "surrounded-by-opponent": N_("walled the opponent in"), "self-surrounded": N_("the opponent walled itself in"),
    "items": N_("more items than the opponent at time up"), "no-response": N_("the opponent stopped answering"),
    "invalid-method": N_("the opponent sent an invalid method"),
    "invalid-direction": N_("the opponent sent an invalid direction"),
}  # fmt: skip
#: How a game was lost, from the loser's side (a bot's "lost by" column).
LOST_BY = {
    "put-on": N_("the opponent put a block on it"), "walked-into-block": N_("walked into a block"),
    "surrounded-by-opponent": N_("walled in by the opponent"), "self-surrounded": N_("walled itself in"),
    "items": N_("fewer items at time up"), "no-response": N_("stopped answering"),
    "invalid-method": N_("sent an invalid method"), "invalid-direction": N_("sent an invalid direction"),
}  # fmt: skip
RESULTS = {"win": N_("win"), "loss": N_("loss"), "draw": N_("draw")}
ACTION_WORDS = {"walk": N_("walks"), "look": N_("looks"), "search": N_("searches"), "put": N_("puts a block")}
DIRECTION_WORDS = {"up": N_("up"), "down": N_("down"), "left": N_("left"), "right": N_("right")}
ARROWS = {"up": "↑", "down": "↓", "left": "←", "right": "→"}
LABELS = {
    "first": N_("First action"), "back": N_("back"), "next": N_("next"), "last": N_("Last action"),
    "play": N_("play"), "pause": N_("pause"), "speed": N_("Autoplay speed"), "event": N_("action"),
    "round": N_("Game"), "turn": N_("turn"), "before_first_turn": N_("before the first turn"),
    "no_events": N_("This game has no action yet."), "view": N_("Whose view to show"),
    "view_all": N_("Both players"), "view_as": N_("Only"), "items": N_("items"), "map": N_("Map"),
    "block": N_("block"), "item": N_("item"), "floor": N_("floor"), "seen": N_("looked at / searched"),
    "logged": N_("logged"), "replayed": N_("replayed"), "taken": N_("item taken"),
}  # fmt: skip


def end_sentence(kind: str | None, winner: str | None, loser: str | None, turn: Any, items: tuple[Any, Any],
                 names: dict[str, str]) -> str:  # fmt: skip
    kind = kind or "incomplete"
    if kind == "incomplete" and turn is not None and turn == turn:  # a cut log says where it stops
        kind = "incomplete-at"
    template = END_WORDS.get(kind, END_WORDS["incomplete"])
    return _(template).format(winner=names.get(winner or "", winner or "—"), loser=names.get(loser or "", loser or "—"),
                              turn=turn if turn is not None else "—", cool=items[0], hot=items[1])  # fmt: skip


def kinds_text(value: Any, side: str | None = None) -> str | None:
    """'items, put-on' (end kinds from SQL) in the viewer's words: from the winner's side
    (``side="win"``: "the opponent walled itself in"), the loser's (``"loss"``) or neutral."""
    if not isinstance(value, str) or not value:
        return None
    words = {"win": WON_BY, "loss": LOST_BY}.get(side or "", {})
    return ", ".join(_(words.get(k.strip()) or END_KINDS.get(k.strip(), k.strip())) for k in value.split(","))


def parse(records: list[tuple[int, str]]) -> ChaserLog:
    if not records:
        raise ValueError("no records")
    return parse_log(decode(records[0][1].encode("utf-8")))


def _cells(s: State) -> str:
    return "".join(str(c) for c in s.cells)


def game_payload(log: ChaserLog, *, match: str, names: dict[str, str], jump: int | None = None,
                 token: int = 0) -> tuple[dict[str, Any], Summary]:  # fmt: skip
    frames, summary = judge_all(log, match_id=match)
    players = [{"code": c, "name": names.get(c, c), "color": TEAM_COLOURS[c]} for c in ("COOL", "HOT")]
    start = State.start(log.map)
    out: list[dict[str, Any]] = [{
        "seq": 0, "turn": None, "event": "start", "label": _("Game starts"), "who": "", "refused": False,
        "sentence": _("The map as the game starts."), "findings": [],
        "board": {"cells": _cells(start), "pos": [list(p) for p in start.pos], "items": [0, 0], "team": None,
                  "action": None, "dir": None, "seen": [], "taken": False, "picked": False},
    }]  # fmt: skip
    for f in frames:
        out.append(_frame(f, names))
    if summary.end_violations:
        out[-1]["findings"] = out[-1]["findings"] + [finding_item(v, names) for v in summary.end_violations]
    out[-1]["sentence"] += " — " + end_sentence(summary.end_kind, summary.winner, summary.loser, summary.end_turn,
                                                summary.items, names)  # fmt: skip
    payload = {
        "id": match, "game": "chaser", "round": None, "seats": ["COOL", "HOT"], "players": players,
        "labels": {k: _(v) for k, v in LABELS.items()}, "frames": out, "visible": list(range(len(out))),
        "jump": {"seq": jump if jump is not None else 0, "token": token},
        "map": {"w": log.map.width, "h": log.map.height},
    }  # fmt: skip
    return payload, summary


def _frame(f: ActionFrame, names: dict[str, str]) -> dict[str, Any]:
    who = names.get(f.team, f.team)
    if f.action is None or (f.direction is None and f.action != "look"):
        what = _("{who} sends {raw} — not a valid action").format(who=who, raw=f.raw or "—")
    else:
        what = _("{who} {action} {direction}").format(who=who, action=_(ACTION_WORDS[f.action]),
                                                      direction=_(DIRECTION_WORDS.get(f.direction or "", "—")))  # fmt: skip
    if f.picked:
        what += " · " + _("takes an item")
    elif f.taken:
        what += " · " + _("destroys an item")
    label = f"{f.team} {f.raw or '?'}" + (f" {ARROWS[f.direction]}" if f.direction in ARROWS else "")
    return {
        "seq": f.seq, "turn": f.turn, "event": f.action or "invalid", "label": label, "who": "",
        "refused": f.action is None or f.direction is None, "sentence": what,
        "findings": [finding_item(v, names) for v in f.violations],
        "board": {"cells": _cells(f.after), "pos": [list(p) for p in f.after.pos], "items": list(f.after.items),
                  "team": 0 if f.team == "COOL" else 1, "action": f.action, "dir": f.direction,
                  "seen": [list(c) for c in f.seen], "taken": f.taken, "picked": f.picked,
                  "digits": f.digits, "replayed": f.replayed},
    }  # fmt: skip


def selected_game(con: Any) -> tuple[str, dict[str, Any]]:
    """The sidebar's CHaser game and its game row (or a hint, and stop)."""
    from app import ui
    from queries import chaser

    return ui.selected_game(con, chaser.game, N_("Pick a CHaser game in the sidebar."))
