"""Replay a CHaser server log on its map and explain the end of the game.

:func:`replay` yields one :class:`ActionFrame` per logged action (the map after it, the
replayed 3×3 against the logged digits, items, findings); :class:`Summary` holds how the game
ended — ``end_kind`` one of ``put-on``, ``walked-into-block``, ``surrounded-by-opponent``,
``self-surrounded``, ``items``, ``draw``, ``no-response``, ``invalid-method``,
``invalid-direction`` (``incomplete`` for a log cut off) — the winner, the item counts and a
sentence.  The log alone cannot tell a put-on from a walk into a block, or who walled a player
in: the replay can.  A log that stops early (cut off, or cut at a bad line: ``ChaserLog.cut``) is
replayed up to its last whole action; its sentence says at which turn it stops, and why.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from rules.chaser.checks import CHECKS
from rules.chaser.engine import COOL, HOT, State, act, judge
from rules.chaser.log import TEAMS, ChaserLog, Entry
from rules.core import Violation

RULESET = "chaser-u16"
RULESET_VERSION = "1.0"
TEAM_INDEX = {"COOL": COOL, "HOT": HOT}
DEATHS = {"ブロック下敷き": "block", "ブロック囲まれ": "surrounded", "通信切断": "disconnected"}
END_KINDS = ("put-on", "walked-into-block", "surrounded-by-opponent", "self-surrounded", "items", "draw",
             "no-response", "invalid-method", "invalid-direction", "incomplete")  # fmt: skip


@dataclass(frozen=True, slots=True)
class ActionFrame:
    seq: int  # 1-based action number
    turn: int  # round number, counting up from 1
    remaining: int | None  # as logged
    team: str  # COOL | HOT
    action: str | None  # walk | look | search | put (None: no valid method)
    direction: str | None
    raw: str  # the method as the log names it
    before: State
    after: State
    digits: str | None  # as logged
    replayed: str  # the 3×3 the replay gives, with the game-on flag
    taken: bool  # the replay: an item left the map
    picked: bool  # the replay: the player took it (+1)
    seen: tuple[tuple[int, int], ...] = ()
    violations: tuple[Violation, ...] = ()


@dataclass
class Summary:
    end_kind: str = "incomplete"
    winner: str | None = None  # COOL | HOT | None (draw or unfinished)
    loser: str | None = None
    end_turn: int | None = None
    end_seq: int | None = None
    last_turn: int | None = None  # the turn of the last action replayed (None: no action)
    items: tuple[int, int] = (0, 0)
    final: State | None = None
    sentence: str = ""
    actions: int = 0
    end_violations: list[Violation] = field(default_factory=list)


class _Judge:
    def __init__(self, match_id: str | None) -> None:
        self.match_id = match_id

    def v(self, code: str, message: str, seq: int | None, turn: int | None, team: str | None = None,
          expected: str | None = None, actual: str | None = None) -> Violation:  # fmt: skip
        c = CHECKS[code]
        return Violation(code, c.family, c.severity, message, seq=seq, round_no=1, turn_no=turn, player=team,
                         expected=expected, actual=actual, ruleset=RULESET, ruleset_version=RULESET_VERSION,
                         match_id=self.match_id)  # fmt: skip


def _stop_kind(text: str | None) -> str:
    t = text or ""
    if "不正なメソッド" in t or "二度GetReady" in t:
        return "invalid-method"
    if "不正な方向" in t:
        return "invalid-direction"
    return "no-response"


def replay(log: ChaserLog, *, match_id: str | None = None, summary: Summary | None = None) -> Iterator[ActionFrame]:
    s = summary if summary is not None else Summary()
    judge_ = _Judge(match_id)
    state = State.start(log.map)
    disconnected = [False, False]
    stop_kind: dict[int, str] = {}
    remaining: int | None = None
    turn = 0
    seq = 0
    expected_team = COOL
    since: list[Entry] = []  # [取得] / [停止] / [死因] lines since the last action
    predicted: tuple[int, str, int] | None = None  # (team, why, seq of the action that caused it)
    last_turn_remaining = log.map.turns
    ended_at_header = False
    acted_turn: int | None = None

    def end_found(found: tuple[int, str] | None, cause_seq: int) -> None:
        nonlocal predicted
        if found is not None and predicted is None:
            predicted = (found[0], found[1], cause_seq)

    for e in log.entries:
        if e.kind == "round":
            value = int(e.value or 0)
            if remaining is not None and value != remaining - 1:
                s.end_violations.append(judge_.v("chaser-turns", f"round header 残{value} after 残{remaining}", seq or None,
                                                 turn or None, expected=str(remaining - 1), actual=str(value)))  # fmt: skip
            elif remaining is None and last_turn_remaining is not None and value != last_turn_remaining:
                s.end_violations.append(judge_.v("chaser-turns", f"the first round is 残{value}, the map has T:{last_turn_remaining}",
                                                 None, None, expected=str(last_turn_remaining), actual=str(value)))  # fmt: skip
            remaining = value
            if value == 0 and predicted is None:
                ended_at_header = True  # time-up: judged at Cool's next GetReady
            else:
                turn += 1
            continue
        if e.kind == "stop":
            team = TEAM_INDEX[e.team or "COOL"]
            kind = _stop_kind(e.value)
            stop_kind.setdefault(team, kind)
            if kind == "no-response":  # a GetReady that failed: judged at once
                disconnected[team] = True
                end_found(judge(state, team, (disconnected[0], disconnected[1])), seq)
            since.append(e)
            continue
        if e.kind in ("taken", "death"):
            since.append(e)
            continue
        if e.kind == "digits" or e.kind != "action":
            continue
        # ---- one action
        seq += 1
        team = TEAM_INDEX[e.team or "COOL"]
        found: list[Violation] = []
        if team != expected_team:
            found.append(judge_.v("chaser-turns", f"{e.team} acts where {TEAMS[expected_team]} should", seq, turn, e.team))
        expected_team = 1 - team
        before = state
        out = act(state, team, e.action, e.direction)
        state = out.state
        logged_taken = any(x.kind == "taken" and x.team == e.team for x in since)
        if logged_taken != out.taken:
            found.append(judge_.v(
                "chaser-item-taken",
                f"turn {turn}: {e.team} {e.value or '(no method)'}: the log {'has' if logged_taken else 'has no'} [取得], "
                f"the replay {'takes' if out.taken else 'takes no'} item", seq, turn, e.team,
                expected=str(out.taken), actual=str(logged_taken)))  # fmt: skip
        # the server judges right after the action, before it logs a bad method or direction
        end_found(judge(state, team, (disconnected[0], disconnected[1])), seq)
        for x in since:
            if x.kind == "stop" and x.team == e.team and _stop_kind(x.value) != "no-response":
                disconnected[team] = True
                code = "chaser-invalid-method" if _stop_kind(x.value) == "invalid-method" else "chaser-invalid-direction"
                found.append(judge_.v(code, f"turn {turn}: {e.team} sent {e.value or 'a method with no name'} — {x.value}",
                                      seq, turn, e.team))  # fmt: skip
        replayed = "1" + state.around(team)  # the server writes a fresh "game on" flag on every action line
        digits = _next_digits(log.entries, e)
        if digits is None or digits != replayed:
            found.append(judge_.v(
                "chaser-surroundings",
                f"turn {turn}: {e.team} {e.value}: logged {digits}, the replay gives {replayed}", seq, turn, e.team,
                expected=replayed, actual=digits))  # fmt: skip
        since = [x for x in since if x.kind == "death"]  # a death line may belong to this action's judge
        acted_turn = turn
        yield ActionFrame(seq, turn, remaining, e.team or "COOL", e.action, e.direction, e.value or "", before, state,
                          digits, replayed, out.taken, out.picked, out.seen, tuple(found))  # fmt: skip
        if predicted is None and not any(x.kind == "death" for x in since):
            since = []
    s.actions = seq
    s.last_turn = acted_turn
    s.items = state.items
    s.final = state
    _conclude(log, s, judge_, state, predicted, stop_kind, remaining, ended_at_header, turn, seq)


def _next_digits(entries: tuple[Entry, ...], action: Entry) -> str | None:
    """The digits line that follows an action line (the server writes it right after)."""
    i = entries.index(action)
    for e in entries[i + 1 : i + 4]:
        if e.kind == "digits" and e.team == action.team:
            return e.value
        if e.kind == "action":
            break
    return None


def _conclude(log: ChaserLog, s: Summary, judge_: _Judge, state: State, predicted: tuple[int, str, int] | None,
              stop_kind: dict[int, str], remaining: int | None, time_up: bool, turn: int, seq: int) -> None:  # fmt: skip
    deaths = [e for e in log.entries if e.kind == "death"]
    logged_death = (TEAM_INDEX[deaths[0].team or "COOL"], DEATHS[deaths[0].value or "通信切断"]) if deaths else None
    logged_scores = next((e.scores for e in log.entries if e.kind == "score"), None)
    result = log.result
    # what the log shows as a fact the replay cannot see: a connection that broke (a timeout has no [停止])
    if predicted is None and logged_death is not None and logged_death[1] == "disconnected":
        predicted = (logged_death[0], "disconnected", seq)
    if predicted is not None:
        loser, why, cause = predicted
        s.loser, s.winner = TEAMS[loser], TEAMS[1 - loser]
        s.end_seq, s.end_turn = cause or None, turn or None
        cause_team = _team_of(log, cause)
        if why == "block":
            s.end_kind = "walked-into-block" if cause_team == loser else "put-on"
            if cause_team == loser and stop_kind.get(loser) == "invalid-direction":
                s.end_kind = "invalid-direction"
        elif why == "surrounded":
            s.end_kind = "self-surrounded" if cause_team == loser else "surrounded-by-opponent"
        else:
            s.end_kind = stop_kind.get(loser, "no-response")
            if s.end_kind == "no-response":
                s.end_violations.append(judge_.v("chaser-no-response", f"turn {turn}: {TEAMS[loser]} stopped answering "
                                                 "(no GetReady, a disconnect or a timeout)", s.end_seq, s.end_turn,
                                                 TEAMS[loser]))  # fmt: skip
        # a log that stops before [決着] may stop before its [死因] too: then no [死因] says nothing
        if logged_death != (loser, why) and (logged_death is not None or result is not None):
            s.end_violations.append(judge_.v(
                "chaser-end", f"the replay ends the game with {TEAMS[loser]} {why}; the log says "
                f"{_death_text(logged_death)}", s.end_seq, s.end_turn, TEAMS[loser],
                expected=f"{TEAMS[loser]} {why}", actual=_death_text(logged_death)))  # fmt: skip
    elif time_up:
        s.end_turn, s.end_seq = turn or None, seq or None
        cool, hot = state.items
        s.end_kind = "draw" if cool == hot else "items"
        s.winner = None if cool == hot else ("COOL" if cool > hot else "HOT")
        s.loser = None if cool == hot else ("HOT" if cool > hot else "COOL")
        if logged_death is not None:
            s.end_violations.append(judge_.v("chaser-end", f"time-up in the replay; the log says {_death_text(logged_death)}",
                                             None, s.end_turn, expected="time-up", actual=_death_text(logged_death)))  # fmt: skip
    if logged_scores is not None and tuple(logged_scores) != tuple(state.items):
        s.end_violations.append(judge_.v(
            "chaser-final-items", f"[得点] COOL {logged_scores[0]}, HOT {logged_scores[1]}; the replay counts "
            f"COOL {state.items[0]}, HOT {state.items[1]}", None, s.end_turn,
            expected=f"{state.items[0]}:{state.items[1]}", actual=f"{logged_scores[0]}:{logged_scores[1]}"))  # fmt: skip
    if result is None:
        cut = log.cut
        why = f"cut at {cut}" if cut is not None else "cut off mid-game?"
        s.end_violations.append(judge_.v("chaser-truncated", f"{_stops_at(s)}, before [決着] ({why})", None,
                                         s.last_turn))  # fmt: skip
        if predicted is None and not time_up:
            s.end_kind, s.winner, s.loser = "incomplete", None, None
            s.end_turn = s.last_turn
    else:
        replayed = s.winner or ("DRAW" if s.end_kind in ("draw",) else None)
        if replayed != result:
            s.end_violations.append(judge_.v("chaser-winner", f"[決着] says {result}; the replay gives {replayed}",
                                             None, s.end_turn, expected=str(replayed), actual=result))  # fmt: skip
    s.sentence = explain(s, log)


def _team_of(log: ChaserLog, seq: int) -> int | None:
    n = 0
    for e in log.entries:
        if e.kind == "action":
            n += 1
            if n == seq:
                return TEAM_INDEX[e.team or "COOL"]
    return None


def _death_text(d: tuple[int, str] | None) -> str:
    return "no death" if d is None else f"{TEAMS[d[0]]} {d[1]}"


def _stops_at(s: Summary) -> str:
    return f"the log stops at turn {s.last_turn}" if s.last_turn else "the log stops before the first action"


def explain(s: Summary, log: ChaserLog) -> str:
    """The end of the game in one English sentence (the dashboard words it in the viewer's language).

    A log that stops before ``[決着]`` says where it stops — and, cut at a bad line, which line and why.
    """
    names = {"COOL": log.cool_name or "Cool", "HOT": log.hot_name or "Hot"}
    w, l_ = names.get(s.winner or "", s.winner), names.get(s.loser or "", s.loser)
    t = s.end_turn
    cool, hot = s.items
    if log.result is not None:
        stops = ""
    elif log.cut is not None:
        stops = f"{_stops_at(s)}, cut at {log.cut}"
    else:
        stops = f"{_stops_at(s)}, before " + ("the end of the game" if s.end_kind == "incomplete" else "[決着]")
    if s.end_kind == "incomplete":
        return stops or "the log stops before the end of the game"
    return {
        "put-on": f"{w} put a block on {l_} at turn {t}",
        "walked-into-block": f"{l_} walked into a block at turn {t}",
        "surrounded-by-opponent": f"{w} walled {l_} in on all four sides at turn {t}",
        "self-surrounded": f"{l_} walled itself in at turn {t}",
        "items": f"time up: {w} has more items ({cool}:{hot})",
        "draw": f"time up with equal items ({cool}:{hot}): a draw",
        "no-response": f"{l_} stopped answering at turn {t}",
        "invalid-method": f"{l_} sent a method the server does not know at turn {t}",
        "invalid-direction": f"{l_} sent an action without a valid direction at turn {t}",
    }[s.end_kind] + (f"; {stops}" if stops else "")


def judge_all(log: ChaserLog, *, match_id: str | None = None) -> tuple[list[ActionFrame], Summary]:
    s = Summary()
    frames = list(replay(log, match_id=match_id, summary=s))
    return frames, s


__all__ = ["END_KINDS", "RULESET", "RULESET_VERSION", "ActionFrame", "Summary", "explain", "judge_all", "replay"]
