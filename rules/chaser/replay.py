"""Replay a CHaser server log on its map and explain the end of the game.

:func:`replay` yields one :class:`ActionFrame` per logged action (the map after it, the
replayed 3×3 against the logged digits, items, findings); :class:`Summary` holds how the game
ended — ``end_kind`` one of ``put-on``, ``walked-into-block``, ``surrounded-by-opponent``,
``self-surrounded``, ``items``, ``draw``, ``no-response``, ``invalid-method``,
``invalid-direction`` (``incomplete`` for a log cut off) — the winner, the item counts and a
sentence.  The log alone cannot tell a put-on from a walk into a block, or who walled a player
in: the replay can.  A log that stops early (cut off, or cut at a bad line: ``ChaserLog.cut``) is
replayed up to its last whole action; its sentence says at which turn it stops, and why.  A bad line
the reader read past (``ChaserLog.mended``) is one finding at its action; an action whose line is
missing is the one its 3×3 shows (:func:`_assume`).
Where the log and the replay disagree about an action, the finding says so once, with its cause, and
the replay follows the log from there (:func:`_follow`); a death the replay finds is told at the turn
of the action after which it is found, also when the log goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from rules.chaser.checks import CHECKS
from rules.chaser.engine import COOL, HOT, VECTORS, Outcome, State, act, judge
from rules.chaser.log import BLOCK, FLOOR, ITEM, TARGET, TEAMS, ChaserLog, Entry
from rules.core import Violation

RULESET = "chaser-u16"
RULESET_VERSION = "1.1"  # 1.1: a game cut by an invalid action ends at that action's turn (was the turn after)
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
    predicted: tuple[int, str, int, int] | None = None  # (team, why, seq and turn of the action that caused it)
    last_turn_remaining = log.map.turns
    ended_at_header = False
    over = False  # an action after 残0 reported (a turn past the limit: one finding)
    acted_turn: int | None = None
    plan = _plan(log.entries)  # every action as the log states it: the look-ahead after a divergence
    mended: dict[int | None, list[Violation]] = {}  # the reader's bad lines read past: one finding each
    n_actions = len(plan)
    for m in log.mended:
        at = m.seq if m.seq is not None and 1 <= m.seq <= n_actions else None
        mended.setdefault(at, []).append(judge_.v(m.code, str(m), at, m.turn or None, m.team))

    def end_found(found: tuple[int, str] | None, cause_seq: int) -> None:
        nonlocal predicted
        if found is not None and predicted is None:
            predicted = (found[0], found[1], cause_seq, turn)

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
            if value == 0 and predicted is None or ended_at_header:
                ended_at_header = True  # time-up: judged at Cool's next GetReady (a header after it: past the limit)
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
        found: list[Violation] = list(mended.pop(seq, ()))
        if ended_at_header:  # after 残0: the turns are over, the game was judged on items (ルール 7): not replayed
            t = turn + 1 - min(remaining or 0, 0)  # 残0: the turn after the last one, 残-1: the one after it…
            if not over:
                limit = f"the map's T:{log.map.turns} turns" if log.map.turns is not None else f"the log's {turn} turns"
                n = n_actions - seq + 1
                found.append(judge_.v(
                    "chaser-turns", f"turn {t}: {e.team} {e.value or '(no method)'} after 残0: {limit} are over "
                    f"(ルール 7), time up — {n} action{'s' * (n != 1)} past the turn limit, not replayed",
                    seq, t, e.team, expected=f"{turn} turns", actual=f"turn {t}"))  # fmt: skip
            over = True
            since, acted_turn = [], t
            yield ActionFrame(seq, t, remaining, e.team or "COOL", e.action, e.direction, e.value or "", state, state,
                              plan[seq - 1][3], "1" + state.around(team), False, False, (), tuple(found))  # fmt: skip
            continue
        if team != expected_team:
            found.append(judge_.v("chaser-turns", f"{e.team} acts where {TEAMS[expected_team]} should", seq, turn, e.team))
        expected_team = 1 - team
        before = state
        logged_taken = any(x.kind == "taken" and x.team == e.team for x in since)
        for x in since:  # (the reader cuts a log there: an item line only comes right before its player's action)
            if x.kind == "taken" and x.team != e.team:
                found.append(judge_.v("chaser-item-taken", f"turn {turn}: line {x.line}: [取得]{x.team} before "
                                      f"{e.team}'s action: only the acting player takes an item", seq, turn, x.team))  # fmt: skip
        digits = plan[seq - 1][3]
        if e.assumed:  # its [行動] line is missing (reported by the reader): the action its 3×3 shows
            e = _assume(state, team, e, digits, logged_taken, lambda st, after=seq: _misses(st, plan, after))
        out = act(state, team, e.action, e.direction)
        replayed = "1" + out.state.around(team)
        # where the log and the replay disagree, the replay follows the log from here on (one finding, its cause)
        out, code, cause = _follow(before, out, team, e, digits, logged_taken, lambda st, after=seq: _misses(st, plan, after))
        state = out.state
        if code == "chaser-item-taken":
            found.append(judge_.v(
                "chaser-item-taken",
                f"turn {turn}: {e.team} {e.value or '(no method)'}: the log {'has' if logged_taken else 'has no'} [取得], "
                f"the replay {'takes no' if logged_taken else 'takes an'} item; {cause}", seq, turn, e.team,
                expected=str(not logged_taken), actual=str(logged_taken)))  # fmt: skip
        elif code == "chaser-surroundings":
            found.append(judge_.v(
                "chaser-surroundings",
                f"turn {turn}: {e.team} {e.value}: logged {digits}, the replay gives {replayed}; {cause}", seq, turn,
                e.team, expected=replayed, actual=digits))  # fmt: skip
        # the server judges right after the action, before it logs a bad method or direction
        end_found(judge(state, team, (disconnected[0], disconnected[1])), seq)
        for x in since:
            if x.kind == "stop" and x.team == e.team and _stop_kind(x.value) != "no-response":
                disconnected[team] = True
                code = "chaser-invalid-method" if _stop_kind(x.value) == "invalid-method" else "chaser-invalid-direction"
                found.append(judge_.v(code, f"turn {turn}: {e.team} sent {e.value or 'a method with no name'} — {x.value}",
                                      seq, turn, e.team))  # fmt: skip
        since = [x for x in since if x.kind == "death"]  # a death line may belong to this action's judge
        acted_turn = turn
        yield ActionFrame(seq, turn, remaining, e.team or "COOL", e.action, e.direction, e.value or "", before, state,
                          digits, replayed, out.taken, out.picked, out.seen, tuple(found))  # fmt: skip
        if predicted is None and not any(x.kind == "death" for x in since):
            since = []
    s.end_violations[:0] = [v for vs in mended.values() for v in vs]
    s.actions = seq
    s.last_turn = acted_turn
    s.items = state.items
    s.final = state
    _conclude(log, s, judge_, state, predicted, stop_kind, remaining, ended_at_header, turn, seq)


_NAMES = {"walk": "Walk", "look": "Look", "search": "Search", "put": "Put"}
_DIRS = {"up": "Up", "down": "Down", "left": "Left", "right": "Right"}


LOOKAHEAD = 24  # actions after a divergence that choose between the explanations of it (12 turns)


def _plan(entries: tuple[Entry, ...]) -> list[tuple[int, str | None, str | None, str | None, bool]]:
    """Each action as the log states it: (team, action, direction, its 3×3 line, a [取得] line before it)."""
    out: list[tuple[int, str | None, str | None, str | None, bool]] = []
    taken: set[str | None] = set()
    for i, e in enumerate(entries):
        if e.kind == "taken":
            taken.add(e.team)
        elif e.kind == "action":
            out.append((TEAM_INDEX[e.team or "COOL"], e.action, e.direction, _next_digits(entries, i), e.team in taken))
            taken = set()
    return out


def _misses(s: State, plan: list[tuple[int, str | None, str | None, str | None, bool]], after: int) -> int:
    """How many of the next :data:`LOOKAHEAD` logged actions (after action number ``after``) disagree with a
    replay from ``s``: their 3×3 lines and [取得] lines, and a death the replay finds on a board while the log goes
    on (two actions or more after it: the server stops at a death).  The look-ahead follows the log as the replay does: after
    an action that disagrees, it goes on from the action that gives the logged 3×3 and [取得] line, when one
    does (two action lines swapped between turns: the second is what the first one's 3×3 shows)."""
    def dead(st: State, k: int) -> bool:  # a death after action number k, while the log goes on past the next
        return k + 2 <= len(plan) and judge(st, plan[k - 1][0], (False, False)) is not None

    n = int(after >= 1 and dead(s, after))
    for k, (team, action, direction, digits, taken) in enumerate(plan[after : after + LOOKAHEAD], after + 1):
        out = act(s, team, action, direction)
        miss = ("1" + out.state.around(team) != digits) + (out.taken != taken)
        if miss and digits is not None and digits[:1] == "1":
            out = _refit(s, team, action, digits, taken) or out
        s = out.state
        n += miss + dead(s, k)
    return n


def _refit(s: State, team: int, action: str | None, digits: str, taken: bool) -> Outcome | None:
    """The outcome of the first other action (Walk, Put, Look in each direction) that gives the logged 3×3
    ``digits`` and ``[取得]`` line ``taken`` from ``s``; None when none does."""
    for a in dict.fromkeys(x for x in (action, "walk", "put", "look") if x in _NAMES):
        for d in ("up", "down", "left", "right"):
            o = act(s, team, a, d)
            if o.taken == taken and "1" + o.state.around(team) == digits:
                return o
    return None


def _follow(before: State, out: Outcome, team: int, e: Entry, digits: str | None, logged_taken: bool,
            future: Callable[[State], int]) -> tuple[Outcome, str | None, str]:  # fmt: skip
    """The action as the log shows it, from the replayed board ``before``: the replay's own outcome ``out`` when
    the logged 3×3 (``digits``: the game-on flag, always 1, and the 3×3) and the ``[取得]`` line agree with it;
    else the explanation of the difference that the log after it supports best (``future``: how many of the
    next logged actions disagree with a replay from a board) — and which check it falls under, and why.

    The explanations, the first of equally good ones taken: the ``[取得]`` line is right about the cell the
    action reached (an item there, or none); the logged 3×3 is what another action gives; the player stands
    elsewhere (the nearest cell whose 3×3 is the logged one); the board takes the logged 3×3's cells (and the
    other player, where it shows it); the 3×3 line alone is wrong (the actions after it agree with the replay).
    When only the ``[取得]`` line disagrees and the 3×3 agrees, the replay's board stands.
    """
    if digits is None:  # (the reader keeps an action only with its 3×3 line)
        return out, None, ""

    def fits(o: Outcome) -> bool:
        return "1" + o.state.around(team) == digits

    if fits(out):
        if out.taken == logged_taken:
            return out, None, ""
        return out, "chaser-item-taken", "the logged 3×3 agrees with the replay"
    options: list[tuple[Outcome, str, str]] = []
    x, y = before.pos[team]
    dx, dy = VECTORS.get(e.direction, (0, 0))
    tx, ty = x + dx, y + dy
    if e.action in ("walk", "put") and 0 <= tx < before.width and 0 <= ty < before.height and out.taken != logged_taken:
        cells = list(before.cells)
        cells[ty * before.width + tx] = ITEM if logged_taken else FLOOR
        alt = act(replace(before, cells=tuple(cells), left=sum(1 for c in cells if c == ITEM)), team, e.action, e.direction)
        if fits(alt):
            what = "an item" if logged_taken else "no item"
            options.append((alt, "chaser-item-taken", f"the logged 3×3 agrees: {what} at ({tx}, {ty}); the board follows the log"))
    if digits[:1] == "1":
        tried = {(e.action, e.direction)}
        for a in (e.action, "walk", "put", "look"):
            for d in ("up", "down", "left", "right"):
                if (a, d) in tried or a not in _NAMES:
                    continue
                tried.add((a, d))
                alt = act(before, team, a, d)
                if fits(alt) and alt.taken == logged_taken and all(alt.state != o.state for o, _, _ in options):
                    name = _NAMES[a] + _DIRS[d] if a != "look" else "an action that moves nothing (Look, Search)"
                    logged = e.value or "a method with no name"
                    options.append((alt, "chaser-surroundings",
                                    f"the logged 3×3 is what {name} gives, not {logged}: the board follows the log"))
        at = _locate(out.state, team, digits[1:])
        if at is not None:
            pos = list(out.state.pos)
            pos[team] = at
            moved = Outcome(replace(out.state, pos=(pos[0], pos[1])), out.picked, out.taken, out.seen)
            options.append((moved, "chaser-surroundings", f"the logged 3×3 puts {TEAMS[team]} at {at}, the replay at "
                                                          f"{out.state.pos[team]}: the replay follows the log"))  # fmt: skip
    patched, n = _patch(out.state, team, digits)
    options.append((Outcome(patched, out.picked, out.taken, out.seen), "chaser-surroundings",
                    f"{n} of the 9 cells differ; the board takes the logged ones"))
    options.append((out, "chaser-surroundings", "the logged actions after it agree with the replay: this 3×3 line "
                                                "alone differs; the board stays the replay's"))  # fmt: skip
    scores = [future(o.state) + (o.taken != logged_taken) for o, _, _ in options]  # (its own [取得] line counts too)
    return options[scores.index(min(scores))]


def _assume(before: State, team: int, e: Entry, digits: str | None, logged_taken: bool,
            future: Callable[[State], int]) -> Entry:  # fmt: skip
    """An action whose ``[行動]`` line is missing: the one that gives its logged 3×3 and ``[取得]`` line, the
    one the log after it agrees with best when several do (the first of equally good ones); unknown (None,
    the replay changes nothing and reports the 3×3) when none does."""
    fits: list[tuple[str, str, State]] = []
    for a in ("walk", "put", "look", "search"):
        for d in ("up", "down", "left", "right"):
            o = act(before, team, a, d)
            if "1" + o.state.around(team) == digits and o.taken == logged_taken and \
                    all(o.state != st for _, _, st in fits):  # fmt: skip
                fits.append((a, d, o.state))
    if not fits:
        return e
    scores = [future(st) for _, _, st in fits]
    a, d, _ = fits[scores.index(min(scores))]
    return replace(e, action=a, direction=d, value=_NAMES[a] + _DIRS[d])


def _locate(s: State, team: int, want: str) -> tuple[int, int] | None:
    """The cell nearest the replayed place where ``team``'s 3×3 is ``want`` (None: none, or two equally near)."""
    x0, y0 = s.pos[team]
    best: list[tuple[int, int]] = []
    best_d = None
    for y in range(s.height):
        for x in range(s.width):
            if (x, y) == s.pos[1 - team] or (x, y) == (x0, y0):
                continue
            if s.around(team, (x, y)) != want:
                continue
            d = abs(x - x0) + abs(y - y0)
            if best_d is None or d < best_d:
                best, best_d = [(x, y)], d
            elif d == best_d:
                best.append((x, y))
    return best[0] if len(best) == 1 else None


def _patch(s: State, team: int, digits: str) -> tuple[State, int]:
    """``s`` with the logged 3×3 around ``team`` (cells inside the map; the other player where a single 1 shows it)."""
    cells, pos = list(s.cells), list(s.pos)
    cx, cy = s.pos[team]
    grid = digits[1:]
    n = sum(1 for a, b in zip(grid, s.around(team)) if a != b) + (digits[:1] != "1")
    ones = [i for i, c in enumerate(grid) if int(c) == TARGET]
    for i, c in enumerate(grid):
        x, y = cx + i % 3 - 1, cy + i // 3 - 1
        if not (0 <= x < s.width and 0 <= y < s.height):
            continue
        if int(c) == TARGET:
            if len(ones) == 1 and i != 4:
                pos[1 - team] = (x, y)
            continue
        cells[y * s.width + x] = int(c) if int(c) in (FLOOR, BLOCK, ITEM) else cells[y * s.width + x]
    return replace(s, cells=tuple(cells), pos=(pos[0], pos[1]), left=sum(1 for c in cells if c == ITEM)), n


def _next_digits(entries: tuple[Entry, ...], i: int) -> str | None:
    """The digits line that follows the action line ``entries[i]`` (the server writes it right after)."""
    action = entries[i]
    for e in entries[i + 1 : i + 4]:
        if e.kind == "digits" and e.team == action.team:
            return e.value
        if e.kind == "action":
            break
    return None


def _conclude(log: ChaserLog, s: Summary, judge_: _Judge, state: State, predicted: tuple[int, str, int, int] | None,
              stop_kind: dict[int, str], remaining: int | None, time_up: bool, turn: int, seq: int) -> None:  # fmt: skip
    deaths = [e for e in log.entries if e.kind == "death"]
    logged_death = (TEAM_INDEX[deaths[0].team or "COOL"], DEATHS[deaths[0].value or "通信切断"]) if deaths else None
    logged_scores = next((e.scores for e in log.entries if e.kind == "score"), None)
    result = log.result
    # what the log shows as a fact the replay cannot see: a connection that broke (a timeout has no [停止])
    if predicted is None and logged_death is not None and logged_death[1] == "disconnected":
        # an invalid method or direction: cut at the action that sent it (its turn, not the header after it)
        sent = stop_kind.get(logged_death[0]) in ("invalid-method", "invalid-direction") and s.last_turn
        predicted = (logged_death[0], "disconnected", seq, s.last_turn if sent else turn)
    ends_before = len(s.end_violations)
    if predicted is not None:
        loser, why, cause, at = predicted
        s.loser, s.winner = TEAMS[loser], TEAMS[1 - loser]
        s.end_seq, s.end_turn = cause or None, at or None  # the turn of the action after which it was judged
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
            goes_on = f" and goes on to turn {s.last_turn}" if (s.last_turn or 0) > (at or 0) and logged_death is None else ""
            s.end_violations.append(judge_.v(
                "chaser-end", f"turn {at}: the replay ends the game with {TEAMS[loser]} {why}; the log says "
                f"{_death_text(logged_death)}{goes_on}", s.end_seq, s.end_turn, TEAMS[loser],
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
    elif logged_death is not None and result is not None:  # (a log cut may stop between [死因] and its action)
        at_line = deaths[0].line
        s.end_violations.append(judge_.v("chaser-end", f"line {at_line}: the log says {_death_text(logged_death)}; the "
                                         "replay finds no death", None, s.last_turn,
                                         expected="no death", actual=_death_text(logged_death)))  # fmt: skip
    if result is not None:  # the server writes [終了] for every player it disconnected
        closed = {e.team for e in log.entries if e.kind == "end"}
        cut_off = set(stop_kind) | ({logged_death[0]} if logged_death and logged_death[1] == "disconnected" else set())
        for t in sorted(cut_off):
            if TEAMS[t] not in closed:
                s.end_violations.append(judge_.v("chaser-end", f"no [終了]{TEAMS[t]} line, though the log disconnects "
                                                 f"{TEAMS[t]} ([停止] or [死因]…通信切断)", None, s.end_turn, TEAMS[t],
                                                 expected=f"[終了]{TEAMS[t]}", actual="none"))  # fmt: skip
    ended_otherwise = len(s.end_violations) > ends_before  # a chaser-end finding: the log ends the game otherwise
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
        if replayed != result and ended_otherwise and result == _own_result(logged_death, logged_scores):
            # the log's [決着] follows from its own end lines: the chaser-end finding above is the divergence
            i = next(i for i in range(ends_before, len(s.end_violations)) if s.end_violations[i].code == "chaser-end")
            v = s.end_violations[i]
            s.end_violations[i] = replace(v, message=f"{v.message} ([決着] says {result})")
        elif replayed != result:
            s.end_violations.append(judge_.v("chaser-winner", f"[決着] says {result}; the replay gives {replayed}",
                                             None, s.end_turn, expected=str(replayed), actual=result))  # fmt: skip
    s.sentence = explain(s, log)


def _own_result(death: tuple[int, str] | None, scores: tuple[int, int] | None) -> str | None:
    """The winner the log's own end lines give: the other player of a [死因], else the [得点] items."""
    if death is not None:
        return TEAMS[1 - death[0]]
    if scores is not None:
        return "DRAW" if scores[0] == scores[1] else ("COOL" if scores[0] > scores[1] else "HOT")
    return None


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
