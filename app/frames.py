"""One ALGORI round as replayer frames: the board after every event, the event in words, findings.

Built once per round from the stored tables (``events`` + the boards derived from ``board_keyframes`` + ``violations``) and sent
to the browser whole; the replayer steps through it there.  Everything here is plain data
(lists, dicts, str, int) so it serialises to JSON as is.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from typing import Any

import pandas as pd

from app.describe import ACTIONS, cell_int, cell_text, describe, event_label
from app.findings import finding_sentence
from app.reasons import SEVERITIES
from app.rulesets import JUA, rules_family
from app.i18n import N_, _
from queries import dashboard as q
from rules.uno.cards import Card
from rules.uno.events import penalty_text
from rules.uno.profile import Profile, get as get_profile, profile_for

#: Texts the replayer's JavaScript shows (controls and the card table), by key.
LABELS = {
    "first": N_("First event"), "back": N_("back"), "next": N_("next"), "last": N_("Last event"),
    "play": N_("play"), "pause": N_("pause"), "speed": N_("Autoplay speed"), "event": N_("event"),
    "round": N_("Round"), "turn": N_("turn"), "before_first_turn": N_("before the first turn"),
    "no_events": N_("No event of this round matches the filters."), "view": N_("Whose cards to show"),
    "view_all": N_("All hands (organizer)"), "view_as": N_("Only the hand of"), "table": N_("Card table"),
    "to_act": N_("to act"), "bound": N_("bound"), "winner": N_("winner"), "cards": N_("cards"),
    "card": N_("card"), "points": N_("pts"), "point": N_("pt"), "refused": N_("refused"), "dir_normal": N_("Play goes clockwise (seat order)"),
    "dir_reverse": N_("Play goes anticlockwise (reversed)"), "played_by": N_("played by"),
    "first_card": N_("first card of the round"), "colour": N_("colour"), "draw_pile": N_("draw pile"),
    "discard_pile": N_("discard pile"), "must_draw": N_("must draw"), "owes_draw": N_("owes a draw"),
    "colour_red": N_("red"), "colour_yellow": N_("yellow"), "colour_green": N_("green"), "colour_blue": N_("blue"),
    "colour_black": N_("black"), "colour_white": N_("white"), "card_skip": N_("skip"), "card_reverse": N_("reverse"),
    "card_draw_2": N_("draw 2"), "card_wild": N_("wild"), "card_wild_draw_4": N_("wild draw 4"),
    "card_wild_shuffle": N_("shuffle wild"), "card_white_wild": N_("white wild"),
    # the JUA rules' table: pairs, the draw stack, challenges
    "pair": N_("pair"), "pair_single": N_("one card of the pair only (no UNO call)"),
    "stack": N_("draw stack"), "stack_answer_2": N_("{who} must answer with a draw 2 or a wild draw 4, or draw {n}"),
    "stack_answer_4": N_("{who} must answer with a wild draw 4, or draw {n}"), "must_play": N_("must play again"),
    "challenge_by": N_("{who} challenges {target}'s wild draw 4"), "challenge_declined": N_("{who} does not challenge"),
    "challenge_won": N_("Success: the wild draw 4 was not allowed"),
    "challenge_lost": N_("Failure: the wild draw 4 was allowed"),
    "challenge_back": N_("{who} takes the wild draw 4 back, draws 4 and must play again"),
    "challenge_drew": N_("{who} draws {n}"), "challenge_back_only": N_("{who} takes the wild draw 4 back and draws 4"), "shown_to": N_("{who}'s hand, shown only to {to}"),
    "shown_hidden": N_("only {to} sees these cards"), "taken_back": N_("taken back by {who}"),
    "follow_on": N_("● live — following the newest event"),
    "follow_paused": N_("Paused — switch on Follow live again to go on"),
    "playable": N_("playable"), "playable_n": N_("{n} playable"),
}  # fmt: skip

#: Texts every game's replayer shows (the headline, findings), by key; the games' own labels win.
COMMON_LABELS = {
    "round_n": N_("Round {n}"), "turn_n": N_("turn {n}"), "step_n": N_("{what} {k}/{n}"), "seq_n": N_("log seq {n}"),
    "seq_help": N_("The event's sequence number in the stored log (links and the raw log use it)"),
    "severity_error": SEVERITIES["error"], "severity_warning": SEVERITIES["warning"], "severity_info": SEVERITIES["info"],
    # the analysis board: markers on the scrubber, the graph, keys and their help, think time, rounds
    "mark_finding": N_("finding"), "mark_penalty": N_("penalty"), "mark_refused": N_("refused action"),
    "markers": N_("Marks on the slider"), "graph": N_("Cards in hand over the round (click to jump)"),
    "graph_points": N_("Points in hand over the round (click to jump)"), "graph_cards": N_("cards"),
    "graph_pts": N_("points"), "think": N_("thought {s} s"),
    "think_help": N_("Time since this player was handed the turn (from the log's timestamps)"),
    "keys": N_("Keys"), "keys_title": N_("Keys of the board"), "close": N_("Close"),
    "key_step": N_("previous / next event"), "key_ends": N_("first / last event"), "key_play": N_("play / pause"),
    "key_finding": N_("next / previous finding"), "key_penalty": N_("next / previous penalty"),
    "key_refused": N_("next / previous refused action"), "key_help": N_("this help"),
    "key_rounds": N_("stepping past a round's end goes on into the next round (and back)"),
    "none_left": N_("No further {what} in this direction."),
    "graph_km": N_("Points per team over the game (click to jump)"),
    "graph_ch": N_("Items per player over the game (click to jump)"),
    "more_findings": N_("+{n} more findings"), "fewer_findings": N_("Fewer findings"),
}  # fmt: skip

#: The Kakomimasu field's legend and the tapped cell in words.
KAKOMIMASU_LABELS = {
    "legend_wall": N_("wall"), "legend_area": N_("area (enclosed)"), "legend_agent": N_("agent (its number)"),
    "legend_put": N_("put"), "legend_move": N_("move"), "legend_remove": N_("remove"),
    "legend_failed": N_("failed (red, dashed)"), "legend_negative": N_("negative cell (violet)"),
    "tap_cell": N_("Tap or click a cell to see it in words here."), "cell_points": N_("{n} points"),
    "wall_of": N_("wall of {team}"), "area_of": N_("area of {team}"), "agent_n": N_("agent {n}"),
    "acts_here": N_("Actions aimed at this cell"), "zoom": N_("Zoom"), "zoom_in": N_("Zoom in"),
    "zoom_out": N_("Zoom out"), "zoom_fit": N_("Fit"),
}  # fmt: skip

def labels() -> dict[str, str]:
    return {k: _(v) for k, v in (COMMON_LABELS | LABELS).items()}


def board_labels(payload: dict[str, Any]) -> dict[str, Any]:
    """A Kakomimasu or CHaser payload with the common labels (and the field's legend) added, translated."""
    extra = COMMON_LABELS | (KAKOMIMASU_LABELS if payload.get("game") == "kakomimasu" else {})
    payload["labels"] = {k: _(v) for k, v in extra.items()} | payload.get("labels", {})
    return payload


def clip(text: Any, n: int = 40) -> str:
    """A name shortened for a page's text (the replayer shows the whole name on a tap)."""
    s = "" if text is None else str(text)
    return s if len(s) <= n else s[: n - 1] + "…"


def span(values: list[int]) -> str:
    """'1–40' (or '3' for one value) for a message naming what exists."""
    if not values:
        return "—"
    lo, hi = min(values), max(values)
    return str(lo) if lo == hi else f"{lo}–{hi}"


def nearest(values: list[int], wanted: int) -> int:
    """The value closest to ``wanted`` (ties: the later one)."""
    return min(values, key=lambda v: (abs(v - wanted), -v))


def _j(value: Any, default: Any) -> Any:
    if not isinstance(value, str):
        return default
    try:
        return json.loads(value)
    except ValueError:
        return default


def _dict(value: Any) -> dict[str, Any]:
    got = _j(value, {})
    return got if isinstance(got, dict) else {}


def refusal(row: dict[str, Any], nxt: dict[str, Any] | None) -> str | None:
    """The dealer's error text when ``nxt`` is a penalty refusing the action ``row``."""
    if nxt is None or nxt.get("event") != "penalty" or row.get("event") not in ACTIONS:
        return None
    actor = cell_text(row.get("actor"))
    if actor is None or cell_text(nxt.get("target")) != actor:
        return None
    return penalty_text(_dict(nxt.get("contents")).get("error")) or "?"


def attempted_card(row: dict[str, Any]) -> str | None:
    colour, number, special = cell_text(row.get("card_color")), cell_int(row.get("card_number")), cell_text(row.get("card_special"))
    if colour is None or (number is None and special is None):
        return None
    return f"{colour}-{number if number is not None else special}"


def card_label(card: Any) -> str | None:
    """A card as the log writes it (``{"color": "blue", "number": 3}``) as a board label (``blue-3``)."""
    if not isinstance(card, dict):
        return None
    colour, number, special = card.get("color"), card.get("number"), card.get("special")
    face = number if isinstance(number, int) and not isinstance(number, bool) else special
    if not isinstance(colour, str) or not colour or face is None or (isinstance(face, str) and not face):
        return None
    return f"{colour}-{face}"


#: What a draw card adds to a pending draw stack.
STACKED = {"draw_2": 2, "wild_draw_4": 4}


def stack_value(label: Any) -> int:
    """+2 or +4 for a draw card's label (0 for any other card)."""
    return STACKED.get(str(label).partition("-")[2], 0) if isinstance(label, str) else 0


def _stack_of(c: dict[str, Any]) -> list[str] | None:
    """The stacked cards a line names (``draw_stack.cards``), or None when it names none."""
    ds = c.get("draw_stack")
    if not isinstance(ds, dict) or not isinstance(ds.get("cards"), list):
        return None
    labels = [card_label(x) for x in ds["cards"]]
    return [x for x in labels if x] if all(labels) else None


def uno_round(
    events: pd.DataFrame, info: dict[str, Any], names: dict[str, str], colors: dict[str, str],
    found: pd.DataFrame, *, match: str, round_no: int, think: dict[int, int] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The replayer payload of one UNO round (ALGORI or JUA rules: ``info["ruleset"]``).

    Besides the board after each event, a frame says what the table shows of the rules in play: a pair
    played (``played.pair``), the pending draw stack and who must answer it (``board.stack``), a challenge's
    outcome (``challenge``), a hand shown to the challenger only (``shown``) and the offender who must play
    again after a successful challenge (``board.must_play``).

    For the analysis board: the cards the player to act may play by the profile's rules (``board.playable``,
    indexes into their hand), the points of every hand as the profile scores them (``board.points``) and the
    think time of an action (``think_ms``, from ``think``: seq -> ms)."""
    family = rules_family(info.get("ruleset"))
    profile = profile_of(info)
    think = think or {}
    rows = events.to_dict("records")
    # the round starts with the dealer's first hand-over: after a first-card reverse (or skip) that is not the
    # first-player line's target
    first_turn = next((cell_text(r.get("target")) for r in rows if r.get("event") == "next-player"), None)
    by_seq: dict[int, list[dict[str, Any]]] = {}
    for f in found.to_dict("records"):
        for key in {cell_int(f.get("seq")), cell_int(f.get("penalty_seq"))} - {None}:
            by_seq.setdefault(key, []).append(f)  # type: ignore[arg-type]
    order = {"error": 0, "warning": 1, "info": 2}
    seats = [s for s in _j(info.get("play_order"), []) if isinstance(s, str)]
    # who is handed the next turn after each line (a stack's answerer, once the stacking play is done)
    next_turn: list[str | None] = [None] * len(rows)
    upcoming: str | None = None
    for i in range(len(rows) - 1, -1, -1):
        if rows[i].get("event") == "next-player":
            upcoming = cell_text(rows[i].get("target"))
        elif rows[i].get("event") == "finish-turn":
            upcoming = None
        next_turn[i] = upcoming
    frames: list[dict[str, Any]] = []
    prev_hands: dict[str, list[str]] = {}
    played: dict[str, Any] = {}
    prev_top: str | None = None
    stack: list[str] = []
    prev_pending = 0
    stack_by: str | None = None
    must_play: str | None = None
    for i, row in enumerate(rows):
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        refused = refusal(row, nxt)
        hands = {k: [c for c in v if isinstance(c, str)] for k, v in _dict(row.get("hands")).items() if isinstance(v, list)}
        top = cell_text(row.get("top"))
        ev = str(row.get("event"))
        c = _dict(row.get("contents"))
        actor = cell_text(row.get("actor")) or cell_text(row.get("target"))
        mover = cell_text(row.get("actor"))
        lost = Counter(prev_hands.get(mover or "", [])) - Counter(hands.get(mover or "", []))
        n_lost = sum(lost.values())
        pair = card_label(c.get("card_play_pair")) if ev == "play-card" else None
        if ev == "first-player":
            played = {"first": True}
            stack, stack_by, must_play = [], None, None
        elif ev == "challenge" and refused is None and top != prev_top:  # a wild draw 4 taken back (JUA)
            played = {"back": prev_top, "by": cell_text(row.get("target"))}
        elif refused is None and ev in ("play-card", "play-draw-card") and (top != prev_top or n_lost):
            played = {"prev": prev_top, "by": mover}
            if pair is not None:  # a pair play; only one card of it when a finishing pair lacked the UNO call
                played["pair" if n_lost >= 2 else "single_of_pair"] = pair
        gained: dict[str, list[str]] = {}
        if ev not in ("first-player", "shuffle-wild"):
            for code, cards in hands.items():
                extra = Counter(cards) - Counter(prev_hands.get(code, []))
                if extra:
                    gained[code] = list(extra.elements())
        # the draw stack: what the line names, else the replayed total followed card by card
        pending = cell_int(row.get("pending")) or 0
        named = _stack_of(c)
        if pending <= 0:
            stack, stack_by = [], None
        elif named is not None and sum(map(stack_value, named)) == pending:
            stack = named
        elif pending > prev_pending and stack_value(top) == pending - prev_pending:
            stack = [*stack, str(top)]
        elif pending < prev_pending:  # a successful challenge took the last wild draw 4 back
            while stack and sum(map(stack_value, stack)) > pending:
                stack = stack[:-1]
        if ev in ("play-card", "play-draw-card") and refused is None and pending > prev_pending:
            stack_by = mover
        known = stack if sum(map(stack_value, stack)) == pending else []
        to_act = cell_text(row.get("to_act"))
        answer = None
        if pending > 0:
            answer = to_act if to_act and to_act != stack_by and ev != "first-player" else next_turn[i]
        if ev == "next-player":
            must_play = cell_text(row.get("target")) if c.get("must_play_card") is True else None
        elif ev in ("play-card", "play-draw-card") and refused is None and mover == must_play:
            must_play = None
        challenge = None
        if ev == "challenge" and refused is None:
            result = c.get("result") if isinstance(c.get("result"), dict) else {}
            drew = result.get("player") if isinstance(result.get("player"), str) else None
            challenge = {"by": mover, "target": cell_text(row.get("target")),
                         "made": c.get("is_challenge") is True,
                         "success": result.get("is_challenge_success") is True, "drew": drew,
                         "n": cell_int(row.get("n_cards")) or 0, "replays": family == JUA}  # fmt: skip
        shown = None
        if ev == "public-card":
            to = c.get("shown_to") if isinstance(c.get("shown_to"), str) else None
            if to is None:  # an ALGORI log: the hand goes to the challenger of the next line
                to = next((cell_text(r.get("actor")) for r in rows[i + 1 : i + 3] if r.get("event") == "challenge"), None)
            cards = [card_label(x) for x in c.get("cards", [])] if isinstance(c.get("cards"), list) else []
            shown = {"player": cell_text(row.get("target")), "to": to, "cards": [x for x in cards if x]}
        described = row
        if ev == "first-player" and first_turn and first_turn != cell_text(row.get("target")):
            described = {**row, "target": first_turn}
        fs = sorted(by_seq.get(cell_int(row.get("seq")) or -1, []), key=lambda f: (order.get(f.get("severity"), 3), str(f.get("code"))))
        attempt = attempted_card(row) if refused is not None and ev in ("play-card", "play-draw-card") else None
        frames.append({
            "seq": cell_int(row.get("seq")), "turn": cell_int(row.get("turn_no")), "event": ev, "label": event_label(ev),
            "who": names.get(actor, actor) if actor else "", "actor": actor,
            "sentence": describe(described, names, refused_by=refused, played_cards=n_lost if pair else None,
                                 family=family),
            "think_ms": think.get(cell_int(row.get("seq")) or -1),
            "refused": refused is not None, "attempt": attempt,
            "attempt_pair": pair if attempt is not None else None,
            "findings": [{"severity": str(f.get("severity")), "code": str(f.get("code")),
                          "text": finding_sentence(f, names)} for f in fs],
            "winner": cell_text(info.get("winner")) if ev == "finish-turn" else None,
            "played": dict(played), "gained": gained, "challenge": challenge, "shown": shown,
            "board": {
                "hands": hands, "top": top, "direction": None if pd.isna(row.get("direction")) else bool(row.get("direction")),
                "draw_pile": cell_int(row.get("draw_pile")), "discard_pile": cell_int(row.get("discard_pile")),
                "pending": pending,
                "owes_draw": bool(row.get("owes_draw")) if not pd.isna(row.get("owes_draw")) else False,
                "bind": {k: v for k, v in _dict(row.get("bind")).items() if isinstance(v, int) and v},
                "yell": {k: True for k, v in _dict(row.get("yell")).items() if v is True},
                "to_act": to_act,
                "stack": {"cards": known, "total": pending, "answer": answer} if pending > 0 else None,
                "must_play": must_play,
                "playable": playable_cards(profile, hands.get(to_act or "", []), top, known or ([str(top)] if pending > 0 and stack_value(top) else []),
                                           pending) if to_act and ev not in ("finish-turn", "first-player") else None,
                "points": {k: hand_points(profile, v) for k, v in hands.items()},
            },
        })  # fmt: skip
        prev_hands, prev_top, prev_pending = hands, top, pending
    players = [{"code": c, "name": names.get(c, c), "color": colors.get(c, "#777777")}
               for c in (seats or list(names))]  # fmt: skip
    return {
        "id": f"{match}/{round_no}/{len(frames)}", "game": "algori-uno", "round": round_no, "seats": seats,
        "players": players, "frames": frames, "labels": labels(), "rules": family, "stacking": family == JUA,
    }


def profile_of(info: dict[str, Any]) -> Profile:
    """The rule profile a round was played under (its match's ``ruleset``, else ALGORI's by its white wild)."""
    ruleset = info.get("ruleset")
    if isinstance(ruleset, str) and ruleset:
        try:
            return get_profile(ruleset)
        except ValueError:
            pass
    return profile_for(info.get("white_wild"))


def _card(label: Any) -> Card | None:
    if not isinstance(label, str) or "-" not in label:
        return None
    return _parsed(label)


@cache
def _parsed(label: str) -> Card | None:
    try:
        return Card.parse(label)
    except (TypeError, ValueError):
        return None


@cache
def _points(scoring: Any, label: str) -> int:
    c = _card(label)
    return scoring.points(c) if c is not None else 0


def playable_cards(profile: Profile, hand: list[str], top: Any, stack: list[str], pending: int) -> list[int]:
    """Indexes of the cards of ``hand`` the profile lets its holder play on ``top`` (with ``stack`` pending):
    none while a draw is pending under rules that stack no draw (ALGORI: the player must draw)."""
    top_card = _card(top)
    stacked = tuple(c for c in map(_card, stack) if c is not None)
    if pending > 0 and (not profile.stacking.allowed or not stacked):
        return []
    out = []
    for i, label in enumerate(hand):
        c = _card(label)
        if c is not None and profile.playable(c, top_card, stacked if pending > 0 else ()):
            out.append(i)
    return out


def hand_points(profile: Profile, hand: list[str]) -> int:
    """A hand's points as the profile scores them (what its holder loses if the round ended now)."""
    return sum(_points(profile.scoring, c) for c in hand)


def round_from(con: Any, match: str, round_no: int, names: dict[str, str], colors: dict[str, str]) -> dict[str, Any]:
    """:func:`uno_round` for one stored round, read through ``queries.dashboard``."""
    from queries.boards import round_think

    return uno_round(q.round_events(con, match, round_no), q.round_info(con, match, round_no) or {}, names, colors,
                     q.round_findings(con, match, round_no), match=match, round_no=round_no,
                     think=round_think(con, match, round_no))  # fmt: skip


def visible(frames: list[dict[str, Any]], show: str, player: str | None) -> list[int]:
    """Indexes of the frames a filter keeps: ``show`` one of all/findings/errors/penalties/refused."""
    keep = []
    for i, f in enumerate(frames):
        if player and f["actor"] != player and player not in (f.get("gained") or {}):
            continue
        if show == "findings" and not f["findings"]:
            continue
        if show == "errors" and not any(x["severity"] == "error" for x in f["findings"]):
            continue
        if show == "penalties" and f["event"] != "penalty":
            continue
        if show == "refused" and not f["refused"]:
            continue
        keep.append(i)
    return keep
