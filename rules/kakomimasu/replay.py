"""Replay a Kakomimasu game turn by turn and judge it: a fold of :func:`engine.step`.

:func:`replay` yields one :class:`TurnFrame` per logged turn: the board before and after,
every action with the result code the log gives and the one the rules give, the points
both ways, and the findings (:mod:`rules.kakomimasu.checks`).

A v1 log holds the actions, so the replay is exact.  A 2020 log holds only a snapshot per
turn; the actions that were applied are inferred from two successive snapshots (a PUT
where an agent appears, a MOVE where it steps to a neighbour, a REMOVE where a wall next to
a standing agent vanishes), the rest is marked undetermined, and every snapshot is checked
against the replayed board.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import permutations
from dataclasses import dataclass, field, replace

from rules.core import Violation
from rules.kakomimasu.checks import BY_RESULT, CHECKS
from rules.kakomimasu.engine import (
    ACTION_TYPES, CONFLICT, ILLEGAL_ACTION, MOVE, NONE, PUT, REMOVE, RESULTS, REVERT, SUCCESS, UNPLACED, WALL, Action, Board,
    Outcome, points, ranking, step, step_as_logged, step_both,
)  # fmt: skip
from rules.kakomimasu.game import LEGACY, GameLog, Snapshot, Turn

RULESET = "kakomimasu-v1"
RULESET_VERSION = "1.0"
MAX_DIFF_CELLS = 12  # cells listed in a tiles diff
SHARED_2020 = False


@dataclass(frozen=True, slots=True)
class ActionView:
    """One action of a turn: as sent, as logged, as replayed."""

    player: int
    action: Action
    res: int | None  # logged (None: not logged, e.g. inferred from snapshots)
    res_replayed: int
    why: str = ""  # the rule that refused it
    inferred: bool = False
    undetermined: bool = False  # 2020 logs: what the agent did is not known
    forbidden: str = ""  # the written rules forbid it, though the server does not refuse it as such


@dataclass(frozen=True, slots=True)
class TurnFrame:
    turn: int
    before: Board
    after: Board
    actions: tuple[ActionView, ...]
    points: tuple[tuple[int, int], ...]  # replayed (area, wall) per player
    logged_points: tuple[tuple[int, int] | None, ...]
    violations: tuple[Violation, ...] = ()
    #: '' when the rules explain the turn; else how the replay followed the log past it: 'log' (its
    #: results), 'retarget' / 'drop' / 'insert' (one logged action changed, dropped or added),
    #: 'relocate' (an agent stood elsewhere on its own wall)
    resync: str = ""


@dataclass
class Summary:
    """What a replay concluded, filled in while :func:`replay` runs."""

    turns: int = 0
    final: Board | None = None
    points: tuple[tuple[int, int], ...] = ()
    written_rules_points: tuple[tuple[int, int], ...] = ()
    winners: list[int] = field(default_factory=list)
    decided_by: str | None = None  # 'total' | 'wall' | 'draw'
    end_violations: list[Violation] = field(default_factory=list)
    server_fill: bool = False  # replayed with the official server's shared-tile area fill


def player_codes(game: GameLog) -> list[str]:
    """A stable code per player: the player's id, numbered where ids repeat or are empty."""
    ids = [p.id for p in game.players]
    out = []
    for i, pid in enumerate(ids):
        if not pid:
            out.append(f"player{i + 1}")
        elif ids.count(pid) > 1:
            out.append(f"{pid}#{i + 1}")
        else:
            out.append(pid)
    return out


def initial_board(game: GameLog) -> Board:
    assert game.width is not None and game.height is not None and game.points is not None
    return Board.empty(game.width, game.height, game.points, max(game.n_player, len(game.players)), game.n_agent)


def describe_action(a: Action) -> str:
    kind = ACTION_TYPES.get(a.type, f"type {a.type}")
    return kind if a.type == NONE else f"{kind} ({a.x}, {a.y})"


class _Judge:
    def __init__(self, game: GameLog, match_id: str | None, codes: list[str]) -> None:
        self.game, self.match_id, self.codes = game, match_id, codes
        #: (code, turn) of notes a finding of the replay takes the place of (it says more)
        self.replaced: set[tuple[str, int]] = set()

    def v(self, code: str, message: str, turn: int | None, player: int | None = None,
          expected: str | None = None, actual: str | None = None) -> Violation:  # fmt: skip
        c = CHECKS[code]
        who = self.codes[player] if player is not None and player < len(self.codes) else None
        return Violation(code, c.family, c.severity, message, seq=turn, round_no=1, turn_no=turn, player=who,
                         expected=expected, actual=actual, ruleset=RULESET, ruleset_version=RULESET_VERSION,
                         match_id=self.match_id)  # fmt: skip

    def name(self, p: int) -> str:
        return self.codes[p] if p < len(self.codes) else f"player {p + 1}"

    def refused(self, turn: int, view: ActionView) -> list[Violation]:
        """The player-rule finding of an action the rules refuse (one per action) and, where the server
        accepts an action the rules forbid, the dealer-judgement finding."""
        r, a = view.res_replayed, view.action
        if view.inferred:
            return []
        who = f"turn {turn}: {self.name(view.player)} agent {a.agent_id} {describe_action(a)}"
        if view.forbidden:  # forbidden whatever else happened to it: that is its cause
            server = f"the server answers {r} ({RESULTS[r]})"
            if r == SUCCESS:
                server += " and leaves the agent off the field"
            elif view.why:
                server += f": {view.why}"
            out = [self.v("kakomimasu-put-onto-opponent-wall",
                          f"{who} — {view.forbidden}, which the rules forbid; {server}", turn, view.player)]
            if r == SUCCESS:
                out.append(self.v("kakomimasu-forbidden-action-accepted",
                                  f"{who}: {view.forbidden} is forbidden by the rules (無効), yet the server answers "
                                  "0 (success) and silently leaves the agent off the field",
                                  turn, expected="refused (無効)", actual="0 (success)"))  # fmt: skip
            return out
        if r == SUCCESS:
            return []
        what = f"{who} — {RESULTS[r]}"
        if view.why:
            what += f": {view.why}"
        code = BY_RESULT[r]
        if r == ILLEGAL_ACTION and a.type == NONE:
            code = "kakomimasu-none-action"
        elif r == REVERT and view.why == "onto another player's wall":
            code = "kakomimasu-onto-opponent-wall"
        return [self.v(code, what, turn, view.player)]

    def tiles_diff(self, turn: int | None, code: str, board: Board, kinds: tuple[int, ...], owners: tuple[int, ...],
                   what: str) -> Violation | None:  # fmt: skip
        w = board.width
        cells = [i for i in range(len(kinds)) if (kinds[i], owners[i]) != (board.kinds[i], board.owners[i])]
        if not cells:
            return None

        def show(k: int, o: int) -> str:
            if k == WALL:
                return f"wall of {self.name(o)}"
            return f"area of {self.name(o)}" if o >= 0 else "neutral"

        listed = ", ".join(f"({i % w}, {i // w})" for i in cells[:MAX_DIFF_CELLS])
        more = f" and {len(cells) - MAX_DIFF_CELLS} more" if len(cells) > MAX_DIFF_CELLS else ""
        first = cells[0]
        return self.v(code, f"{what}: {len(cells)} cell(s) differ: {listed}{more}", turn,
                      expected=f"({first % w}, {first // w}) {show(board.kinds[first], board.owners[first])}",
                      actual=f"({first % w}, {first // w}) {show(kinds[first], owners[first])}")  # fmt: skip


def replay(game: GameLog, *, match_id: str | None = None, summary: Summary | None = None) -> Iterator[TurnFrame]:
    """One frame per logged turn (nothing for a game without a board)."""
    if not game.has_board:
        return
    summary = summary if summary is not None else Summary()
    codes = player_codes(game)
    judge = _Judge(game, match_id, codes)
    notes: dict[int | None, list[Violation]] = {}  # contradictions read past while reading the log
    for n in game.notes:
        notes.setdefault(n.turn, []).append(judge.v(n.code, n.message, n.turn, n.player, n.expected, n.actual))
    frames = _replay_snapshots(game, judge, summary) if game.format == LEGACY else _replay_v1(game, judge, summary)
    for frame in frames:
        found = [v for v in notes.pop(frame.turn, ()) if (v.code, v.turn_no) not in judge.replaced]
        yield replace(frame, violations=tuple(found) + frame.violations) if found else frame
    summary.end_violations[:0] = [v for vs in notes.values() for v in vs]  # no frame of their turn: at the end
    final = summary.final
    if final is not None:
        summary.points = tuple(points(final))
        summary.winners, summary.decided_by = ranking(list(summary.points))


def server_fill(logged: list[tuple[tuple[int, int] | None, ...]], server: list[list[tuple[int, int]]],
                written: list[list[tuple[int, int]]]) -> bool:  # fmt: skip
    """Whether a log was written by the engine with the shared-tile area fill (v2.0.1, the official
    server's) rather than one that fills as the rules are written: the fill whose points agree
    with the logged ones for longer wins (the server's when both agree throughout)."""

    def agree(replayed: list[list[tuple[int, int]]]) -> int:
        for t, (want, got) in enumerate(zip(logged, replayed, strict=True)):
            if any(lp is not None and p < len(got) and lp != got[p] for p, lp in enumerate(want)):
                return t
        return len(logged) + 1

    return agree(server) >= agree(written)


# ---- v1 logs: the replay follows the log past a divergence ---------------------------------

#: Candidate boards tried for one divergent turn; boards (turns replayed) for one game, counted in cells
#: (a turn costs about its number of cells: 0.2–1.5 ms on a 20×20 field); searches that find nothing
#: better than the rules' own board before the replay stops searching (a log of some other engine).
MAX_SEARCH_TURN = 1000
MAX_SEARCH_CELLS = 1_000_000
MAX_FRUITLESS = 2
LOOKAHEAD = 10_000  # turns after a divergence a repair must explain: every one the log holds
INFER_AHEAD = 5  # logged turns after a turn (or rows) the log does not hold that its inferred actions must fit
INFER_SWEEPS = 2  # passes over the agents choosing them
NEIGHBOURS = tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0))


@dataclass
class _Candidate:
    """One way to take a turn: the rules on the logged actions, the log's own results, or the rules
    on the logged actions with one of them changed (``change``: player, index, new action or None)."""

    label: str  # 'rules' | 'log' | 'retarget' | 'drop' | 'relocate' | 'insert' | 'swap' | 'gap' | 'rows'
    server: Board
    written: Board
    outcomes: list[list[Outcome]] | None  # None for 'log'
    change: tuple[int, int, Action | None] | None = None
    mover: int = -1  # 'relocate': the team of the agent that stood elsewhere (``change[2]`` holds where)
    #: 'swap' / 'rows': the turn as read again (two teams' rows exchanged; the rows a turn holds given to
    #: other teams, the missing teams' actions inferred)
    turn: Turn | None = None
    #: 'swap': the two teams; 'gap' / 'rows': the teams whose actions were inferred
    teams: tuple[int, ...] = ()

    def index(self, p: int, j: int) -> int | None:
        """The candidate's index of the logged action (p, j); None for the changed one."""
        if self.change is None or self.change[0] != p or self.label in ("insert", "relocate"):
            return j
        k = self.change[1]
        if j == k:
            return None
        return j - 1 if self.label == "drop" and j > k else j


def _misfit(turn: Turn, after: Board, outcomes: list[list[Outcome]] | None, cand: _Candidate | None = None) -> int:
    """How many logged results and points a turn's outcome contradicts."""
    pts = points(after)
    n = sum(1 for p, lp in enumerate(turn.points) if lp is not None and p < len(pts) and lp != pts[p])
    if outcomes is None:
        return n
    for p, codes in enumerate(turn.res):
        for j, res in enumerate(codes):
            m = j if cand is None else cand.index(p, j)
            if res is None or m is None or p >= len(outcomes) or m >= len(outcomes[p]):
                continue
            n += outcomes[p][m].res != res
    return n


class _Follower:
    """Replays a v1 log turn by turn; where the rules and the log part, it follows the log."""

    def __init__(self, game: GameLog, shared: bool) -> None:
        self.game, self.shared = game, shared
        cells = (game.width or 1) * (game.height or 1)
        self.budget = MAX_SEARCH_CELLS // max(1, cells)  # turns replayed
        self.fruitless = 0

    def after(self, c: _Candidate) -> Board:
        return c.server if self.shared else c.written

    def lookahead(self, t: int, c: _Candidate, cap: int | None = None, turns: int = LOOKAHEAD) -> int:
        """How many logged results and points of the turns after ``t`` the rules contradict from the
        candidate on (counting stops past ``cap``; ``turns``: that many turns)."""
        server, written, n = c.server, c.written, 0
        for turn in self.game.turns[t:t + turns]:
            self.budget -= 1
            server, written, outs = step_both(server, written, [list(a) for a in turn.actions])
            n += _misfit(turn, server if self.shared else written, outs)
            if cap is not None and n > cap:
                break
        return n

    def take(self, t: int, server: Board, written: Board, done: tuple[Board, Board, list[list[Outcome]]] | None = None,
             turn: Turn | None = None) -> tuple[_Candidate, _Candidate]:
        """(the rules on the logged actions, the candidate the replay goes on from).

        Where the rules contradict the turn's logged results or points and the turns after, the
        candidates are: the log's own results, then one logged action changed (another target, or
        dropped), the agent of a refused action standing elsewhere on its own wall (a move the log
        does not hold), an action for an agent the log gives none.  The first that fits the turn and
        the turns after wins; else the one that contradicts the fewest (the rules on ties).  ``done``:
        the rules' turn from these boards, already replayed; ``turn``: the logged turn as read again."""
        turn = turn or self.game.turns[t - 1]
        acts = [list(a) for a in turn.actions]
        s, w, outs = done if done is not None else step_both(server, written, acts)
        rules = _Candidate("rules", s, w, outs)
        misfit = _misfit(turn, self.after(rules), outs)
        if misfit == 0 or self.budget <= 0 or self.fruitless >= MAX_FRUITLESS:
            return rules, rules
        best = (misfit + self.lookahead(t, rules), 0)
        if best[0] == misfit:  # the turns after agree: nothing to follow
            return rules, rules
        cands = [rules]
        pending: list[tuple[int, int, _Candidate]] = []  # (misfit of the turn itself, index, candidate)
        groups = list(self._candidates(rules, server, written, turn, acts, outs))  # each one lazy
        for g, group in enumerate(groups):
            last = g == len(groups) - 1
            for c in group:  # each candidate against the turn itself (one board each) ...
                if self.budget <= 0 or len(cands) >= MAX_SEARCH_TURN:
                    break
                self.budget -= 1
                pending.append((_misfit(c.turn or turn, self.after(c), c.outcomes, c), len(cands), c))
                cands.append(c)
            pending.sort(key=lambda b: (b[0], b[1]))
            # ... then against the turns after: those that fit the turn now, the others after the last group
            while pending and (pending[0][0] == 0 or last) and pending[0][0] < best[0] and self.budget > 0:
                first, i, c = pending.pop(0)
                score = first + self.lookahead(t, c, cap=best[0] - first - 1)
                if score < best[0]:
                    best = (score, i)
                    if score == 0:  # fits the turn and the turns after: take it
                        return rules, c
        self.fruitless += best[1] == 0
        return rules, cands[best[1]]

    def _candidates(self, rules: _Candidate, server: Board, written: Board, turn: Turn, acts: list[list[Action]],
                    outs: list[list[Outcome]]) -> Iterator[Iterator[_Candidate]]:  # fmt: skip
        """The candidates in groups, each group tried before the next: the log's own results; one
        action whose logged result the rules contradict changed; one action whose logged result the rules
        agree with changed, of a team whose points are off; an action for an agent the log gives none.
        Before them all: two teams' rows exchanged (a log that wrote one team's actions under another)."""
        yield (self._swapped(server, written, turn, p, q, whole) for p in range(len(acts)) for q in range(p + 1, len(acts))
               for whole in (True, False))  # fmt: skip
        ls, lw = step_as_logged(server, written, acts, [list(r) for r in turn.res])
        yield iter([_Candidate("log", ls, lw, None)])
        changes = self._changes(server, turn, outs, points(self.after(rules)))
        yield (self._changed(server, written, acts, change) for change in changes if change[0] != "insert")
        agreed = self._agreed(server, turn, outs, points(self.after(rules)))
        yield (self._changed(server, written, acts, change) for change in agreed)
        inserts = self._changes(server, turn, outs, points(self.after(rules)))
        yield (self._changed(server, written, acts, change) for change in inserts if change[0] == "insert")

    @staticmethod
    def _swapped(server: Board, written: Board, turn: Turn, p: int, q: int, whole: bool) -> _Candidate:
        """The turn with the rows of teams p and q exchanged: their actions and result codes, and their
        points too where ``whole``."""

        def swap(row: tuple) -> tuple:  # type: ignore[type-arg]
            out = list(row)
            out[p], out[q] = out[q], out[p]
            return tuple(out)

        read = replace(turn, actions=swap(turn.actions), res=swap(turn.res),
                       points=swap(turn.points) if whole else turn.points)  # fmt: skip
        cs, cw, couts = step_both(server, written, [list(a) for a in read.actions])
        return _Candidate("swap", cs, cw, couts, turn=read, teams=(p, q))

    @staticmethod
    def _changed(server: Board, written: Board, acts: list[list[Action]],
                 change: tuple[str, int, int, Action | None, int]) -> _Candidate:  # fmt: skip
        label, p, k, alt, q = change
        changed = [list(a) for a in acts]
        if label == "retarget":
            changed[p][k] = alt  # type: ignore[call-overload]
        elif label == "drop":
            del changed[p][k]
        elif label == "relocate":
            assert alt is not None
            row = list(server.agents[q])
            row[alt.agent_id] = (alt.x, alt.y)
            agents = server.agents[:q] + (tuple(row),) + server.agents[q + 1:]
            server, written = replace(server, agents=agents), replace(written, agents=agents)
        else:
            while len(changed) <= p:
                changed.append([])
            changed[p].append(alt)  # type: ignore[arg-type]
        cs, cw, couts = step_both(server, written, changed)
        return _Candidate(label, cs, cw, couts, (p, k, alt), q)

    def _changes(self, board: Board, turn: Turn, outs: list[list[Outcome]],
                 rules_pts: list[tuple[int, int]]) -> Iterator[tuple[str, int, int, Action | None, int]]:  # fmt: skip
        """Single changes of the logged actions that might explain the log: first the actions whose
        logged result the rules contradict (another target, or no action), then an action for an agent
        the log gives none."""
        for p, codes in enumerate(turn.res):
            for k, res in enumerate(codes):
                if res is None or p >= len(outs) or k >= len(outs[p]) or outs[p][k].res == res:
                    continue
                a = turn.actions[p][k]
                yield from (("retarget", p, k, alt, p) for alt in self._alternatives(board, p, a.agent_id, a))
                yield "drop", p, k, None, p
                yield from (("relocate", p, k, at, p) for at in self._elsewhere(board, p, a.agent_id))
                if outs[p][k].res == REVERT:  # sent back by an agent in the way: it may have stood elsewhere
                    for q, row in enumerate(board.agents):
                        for j, xy in enumerate(row):
                            if xy == (a.x, a.y):
                                yield from (("relocate", p, k, at, q) for at in self._elsewhere(board, q, j))
        # agents the log gives no action: of the teams whose logged points the rules contradict first,
        # placed ones first (8 neighbours each, not every cell); cells worth the missing wall points first
        off = {p: lp[1] - rules_pts[p][1] for p, lp in enumerate(turn.points)
               if lp is not None and p < len(rules_pts) and lp != rules_pts[p]}  # fmt: skip
        idle = []
        for p, row in enumerate(board.agents):
            acted = {a.agent_id for a in (turn.actions[p] if p < len(turn.actions) else ())}
            idle.extend((p not in off, row[i] == UNPLACED, p, i) for i in range(len(row)) if i not in acted)
        for _fits, _unplaced, p, i in sorted(idle):
            k = len(turn.actions[p]) if p < len(turn.actions) else 0
            alts = self._alternatives(board, p, i, None)
            if p in off:
                alts.sort(key=lambda a: a.type == REMOVE or board.points[a.y * board.width + a.x] != off[p])
            yield from (("insert", p, k, alt, p) for alt in alts)

    def _agreed(self, board: Board, turn: Turn, outs: list[list[Outcome]],
                rules_pts: list[tuple[int, int]]) -> Iterator[tuple[str, int, int, Action | None, int]]:  # fmt: skip
        """Single changes of logged actions whose result the rules agree with, of the teams whose logged
        points the rules contradict: another target (another kind too: a MOVE logged as a REMOVE of the
        team's own wall succeeds all the same, only the points and the agent's next moves tell), or none."""
        for p, lp in enumerate(turn.points):
            if lp is None or p >= len(rules_pts) or lp == rules_pts[p] or p >= len(turn.res):
                continue
            for k, res in enumerate(turn.res[p]):
                if res is None or p >= len(outs) or k >= len(outs[p]) or outs[p][k].res != res:
                    continue
                a = turn.actions[p][k]
                yield from (("retarget", p, k, alt, p) for alt in self._alternatives(board, p, a.agent_id, a))
                yield "drop", p, k, None, p

    @staticmethod
    def _elsewhere(board: Board, p: int, agent: int) -> list[Action]:
        """Cells near a placed agent where it could stand unseen: its team's walls nobody stands on
        (a MOVE onto its own wall changes no points); as an Action holding the cell."""
        if p >= len(board.agents) or not 0 <= agent < len(board.agents[p]) or board.agents[p][agent] == UNPLACED:
            return []
        x, y = board.agents[p][agent]
        taken = {xy for row in board.agents for xy in row}
        near = [(x + dx, y + dy) for r in (1, 2) for dy in range(-r, r + 1) for dx in range(-r, r + 1)
                if max(abs(dx), abs(dy)) == r]  # fmt: skip
        return [Action(agent, MOVE, cx, cy) for cx, cy in near
                if board.inside(cx, cy) and (cx, cy) not in taken and board.tile(cx, cy) == (WALL, p)]

    @staticmethod
    def _alternatives(board: Board, p: int, agent: int, logged: Action | None) -> list[Action]:
        if p >= len(board.agents) or not 0 <= agent < len(board.agents[p]):
            return []
        x, y = board.agents[p][agent]
        if (x, y) == UNPLACED:
            cells = [(cx, cy) for cy in range(board.height) for cx in range(board.width)]
            out = [Action(agent, PUT, cx, cy) for cx, cy in cells]
        else:
            cells = [(x + dx, y + dy) for dx, dy in NEIGHBOURS if board.inside(x + dx, y + dy)]
            kinds = (MOVE, REMOVE) if logged is None or logged.type != REMOVE else (REMOVE, MOVE)
            out = [Action(agent, kind, cx, cy) for kind in kinds for cx, cy in cells]
        if logged is not None:  # the cells nearest the logged target first, the logged kind first
            out.sort(key=lambda a: (a.type != logged.type, max(abs(a.x - logged.x), abs(a.y - logged.y))))
        return [a for a in out if logged is None or a != logged]

    # ---- turns and rows the log does not hold: inferred from the turns after ----

    def diverges(self, t: int, server: Board, written: Board, turn: Turn, ahead: int = 0) -> bool:
        """Whether the rules on logged turn ``t`` (as ``turn`` reads it) contradict it or the ``ahead`` turns after."""
        s, w, outs = step_both(server, written, [list(a) for a in turn.actions])
        c = _Candidate("rules", s, w, outs)
        return _misfit(turn, self.after(c), outs) > 0 or (ahead > 0 and self.lookahead(t, c, cap=0, turns=ahead) > 0)

    def gap(self, t: int, server: Board, written: Board) -> _Candidate | None:
        """A turn the log misses before logged turn ``t``: every team's actions inferred from the turns after;
        None where the logged turns fit the rules' own board no worse."""
        turn = self.game.turns[t - 1]
        s, w, outs = step_both(server, written, [list(a) for a in turn.actions])
        rules = _Candidate("rules", s, w, outs)
        missed = Turn(tuple(() for _ in server.agents), tuple(() for _ in server.agents), tuple(None for _ in server.agents))
        c = self.infer(t - 1, server, written, missed, tuple(range(server.n_player)), "gap")
        if self.lookahead(t - 1, c) < _misfit(turn, self.after(rules), outs) + self.lookahead(t, rules):
            return c
        return None

    def rows(self, t: int, server: Board, written: Board, turn: Turn) -> _Candidate:
        """Logged turn ``t`` with fewer rows than teams: the rows given to the teams they fit best, the
        actions of the teams without a row inferred from the turns after."""
        n = len(turn.actions)
        best: tuple[int, _Candidate] | None = None
        for order in permutations(range(n), turn.rows or 0):
            actions, res, pts = [()] * n, [()] * n, [None] * n
            for row, p in enumerate(order):
                actions[p], res[p], pts[p] = turn.actions[row], turn.res[row], turn.points[row]
            read = Turn(tuple(actions), tuple(res), tuple(pts), turn.rows)
            c = self.infer(t, server, written, read, tuple(p for p in range(n) if p not in order), "rows")
            assert c.turn is not None
            score = _misfit(c.turn, self.after(c), c.outcomes) + self.lookahead(t, c)
            if best is None or score < best[0]:
                best = (score, c)
        assert best is not None
        return best[1]

    def infer(self, t: int, server: Board, written: Board, turn: Turn, teams: tuple[int, ...], label: str) -> _Candidate:
        """Logged turn ``t`` (``turn``: as read, without actions for ``teams``) with the actions of ``teams``
        chosen agent by agent, each the one that brings the turn and the ``INFER_AHEAD`` logged turns after
        it nearest the log (its result codes and points); two sweeps over the agents at most."""
        ahead = self.game.turns[t:t + INFER_AHEAD]

        def acts(chosen: dict[tuple[int, int], Action | None]) -> list[list[Action]]:
            out = [list(a) for a in turn.actions]
            for (p, _i), a in chosen.items():
                if a is not None:
                    out[p].append(a)
            return out

        def distance(chosen: dict[tuple[int, int], Action | None]) -> int:
            s, w, outs = step_both(server, written, acts(chosen))
            n = _distance(turn, s if self.shared else w, outs)
            for later in ahead:
                s, w, outs = step_both(s, w, [list(a) for a in later.actions])
                n += _distance(later, s if self.shared else w, outs)
            return n

        chosen: dict[tuple[int, int], Action | None] = {(p, i): None for p in teams for i in range(len(server.agents[p]))}
        aimed = {(a.x, a.y) for row, codes in zip(turn.actions, turn.res, strict=True)
                 for a, res in zip(row, codes, strict=False) if res in (CONFLICT, REVERT)}  # fmt: skip
        guesses = {key: self._guesses(server, *key, ahead, aimed) for key in chosen}
        best = distance(chosen)
        for _sweep in range(INFER_SWEEPS):
            before = best
            for key, options in guesses.items():
                for a in options:
                    if best == 0:
                        break
                    trial = {**chosen, key: a}
                    n = distance(trial)
                    if n < best:
                        best, chosen = n, trial
            if best in (0, before):
                break
        final = acts(chosen)
        cs, cw, couts = step_both(server, written, final)
        res = [tuple(r) + (None,) * (len(final[p]) - len(r)) for p, r in enumerate(turn.res)]
        read = Turn(tuple(tuple(a) for a in final), tuple(res), turn.points, turn.rows)
        return _Candidate(label, cs, cw, couts, turn=read, teams=teams)

    @staticmethod
    def _guesses(board: Board, p: int, agent: int, ahead: tuple[Turn, ...],
                 aimed: set[tuple[int, int]]) -> list[Action | None]:  # fmt: skip
        """What an agent may have done in a turn the log does not hold: nothing, a MOVE to a neighbour that
        is not another team's wall, a REMOVE of a neighbouring wall, a PUT if it is unplaced.  Its next
        logged MOVE or REMOVE that the server did not refuse as illegal (result 0, 1 or 2) shows it standing
        next to that target: only what leaves it there is guessed (a PUT only next to it) — and, as those
        do not move it, an action at a cell where the turn's logged actions conflicted or were sent back
        (``aimed``)."""
        x, y = board.agents[p][agent]
        target = None
        for later in ahead:
            row = later.actions[p] if p < len(later.actions) else ()
            codes = later.res[p] if p < len(later.res) else ()
            mine = [(a, res) for a, res in zip(row, codes, strict=False) if a.agent_id == agent]
            if mine:
                a, res = mine[0]
                if a.type in (MOVE, REMOVE) and res in (SUCCESS, CONFLICT, REVERT):
                    target = (a.x, a.y)
                break
        if (x, y) == UNPLACED:
            cells = [xy for xy in aimed if board.inside(*xy)]
            if target is not None:
                cells += _around(board, target)
            return [None, *(Action(agent, PUT, cx, cy) for cx, cy in cells)]
        stays = target is None or _neighbour((x, y), target)
        out: list[Action | None] = [None] if stays else []
        for cx, cy in _around(board, (x, y)):
            kind, owner = board.tile(cx, cy)
            if (kind != WALL or owner == p) and (target is None or _neighbour((cx, cy), target) or (cx, cy) in aimed):
                out.append(Action(agent, MOVE, cx, cy))
            if kind == WALL and (stays or (cx, cy) in aimed):
                out.append(Action(agent, REMOVE, cx, cy))
        return out or [None]


def _around(board: Board, xy: tuple[int, int]) -> list[tuple[int, int]]:
    """The neighbouring cells of ``xy`` on the field."""
    return [(xy[0] + dx, xy[1] + dy) for dx, dy in NEIGHBOURS if board.inside(xy[0] + dx, xy[1] + dy)]


def _distance(turn: Turn, after: Board, outs: list[list[Outcome]]) -> int:
    """How far a turn's outcome is from the log: 20 for each result code it contradicts, and the logged
    points it is off by (at most 50 each)."""
    pts = points(after)
    n = sum(min(abs(lp[0] - pts[p][0]), 50) + min(abs(lp[1] - pts[p][1]), 50)
            for p, lp in enumerate(turn.points) if lp is not None and p < len(pts))  # fmt: skip
    for p, codes in enumerate(turn.res):
        for j, res in enumerate(codes):
            if res is not None and p < len(outs) and j < len(outs[p]) and outs[p][j].res != res:
                n += 20
    return n


def _missing_turns(game: GameLog) -> int:
    """How many turns the log lacks by its own counters: an ended game has ``totalTurn``, a game still
    playing every turn before the current one."""
    if game.status == "ended" and game.total_turn is not None:
        return max(0, game.total_turn - len(game.turns))
    if game.status == "gaming" and game.turn is not None:
        return max(0, game.turn - 1 - len(game.turns))
    return 0


def _replay_v1(game: GameLog, judge: _Judge, summary: Summary) -> Iterator[TurnFrame]:
    start = initial_board(game)
    server, written = start, start
    rules_only: list[tuple[Board, Board, list[list[Outcome]]]] = []
    server_pts: list[list[tuple[int, int]]] = []
    written_pts_all: list[list[tuple[int, int]]] = []
    for turn in game.turns:  # which fill wrote the log (the rules alone, without following the log)
        server, written, outs = step_both(server, written, [list(acts) for acts in turn.actions])
        rules_only.append((server, written, outs))
        server_pts.append(points(server))
        written_pts_all.append(points(written))
    shared = server_fill([t.points for t in game.turns], server_pts, written_pts_all)  # type: ignore[arg-type]
    summary.server_fill = shared
    departed = not shared  # the departure is the shared fill's; a log filled as written has none
    follow = _Follower(game, shared)
    server, written = start, start
    board = start
    followed = False  # the replay has left the rules' own boards (then each turn is replayed anew)
    missing, shift = _missing_turns(game), 0  # turns the log lacks; those found so far
    for lt, turn in enumerate(game.turns, 1):  # lt: the logged turn; t: the game's turn
        t = lt + shift
        found = []
        if shift < missing and follow.diverges(lt, server, written, turn):
            gap = follow.gap(lt, server, written)
            if gap is not None:
                yield _gap_frame(game, judge, follow, t, board, gap, missing)
                server, written, board = gap.server, gap.written, follow.after(gap)
                shift, t, followed = shift + 1, t + 1, True
        guessed: tuple[int, ...] = ()
        if turn.rows is not None and turn.rows < len(turn.actions) \
                and follow.diverges(lt, server, written, turn, INFER_AHEAD):  # fmt: skip
            read = follow.rows(lt, server, written, turn)
            assert read.turn is not None
            found.append(_rows_finding(judge, t, turn, read))
            judge.replaced.add(("kakomimasu-player-count", lt))
            turn, guessed, followed = read.turn, read.teams, True
        rules, chosen = follow.take(lt, server, written, None if followed else rules_only[lt - 1], turn)
        followed = followed or chosen is not rules
        if chosen.label == "swap" and chosen.turn is not None:  # the rows read the other way round
            p0, q0 = chosen.teams
            found.append(judge.v(
                "kakomimasu-player-count",
                f"turn {t}: the actions logged for {judge.name(p0)} fit {judge.name(q0)}'s agents and the other way "
                f"round{', and so do the points' if chosen.turn.points != turn.points else ''}: the log has the two rows "
                "swapped, so the replay reads them the other way round", t, None,
                expected=f"{judge.name(p0)}, {judge.name(q0)}", actual=f"{judge.name(q0)}, {judge.name(p0)}"))  # fmt: skip
            turn, rules = chosen.turn, chosen
        after = follow.after(chosen)
        views = []
        rules_outs = rules.outcomes or []
        for p, outs in enumerate(rules_outs):
            logged = turn.res[p] if p < len(turn.res) else ()
            for k, o in enumerate(outs):
                res = logged[k] if k < len(logged) else None
                m = chosen.index(p, k) if chosen.outcomes is not None else None
                if m is not None and chosen.outcomes is not None and m < len(chosen.outcomes[p]):
                    o = chosen.outcomes[p][m]
                view = ActionView(p, turn.actions[p][k], res, o.res, o.why, inferred=p in guessed, forbidden=o.forbidden)
                views.append(view)
                found.extend(judge.refused(t, view))
                if res is not None and res != o.res:
                    note = ""
                    if chosen.label == "log":
                        note = "; the log's points and the turns after fit its results, so the replay follows the log"
                    elif chosen.change is not None and chosen.change[:2] == (p, k):
                        note = ("; the log's points and the turns after fit "
                                + (f"{describe_action(chosen.change[2])} instead" if chosen.change[2] is not None
                                   else "the turn without this action") + ", so the replay goes on from that")  # fmt: skip
                    found.append(judge.v(
                        "kakomimasu-result-code",
                        f"turn {t}: {judge.name(p)} agent {o.action.agent_id} {describe_action(view.action)}: "
                        f"logged {res} ({RESULTS.get(res, '?')}), the rules give {o.res} ({RESULTS[o.res]}){note}",
                        t, p, expected=str(o.res), actual=str(res)))  # fmt: skip
        pts = points(after)
        rules_pts = points(follow.after(rules))
        for p, logged_pts in enumerate(turn.points):
            if logged_pts is not None and p < len(pts) and logged_pts != pts[p]:
                found.append(judge.v(
                    "kakomimasu-points",
                    f"turn {t}: {judge.name(p)} logged area {logged_pts[0]} + wall {logged_pts[1]}, "
                    f"the replay gives area {pts[p][0]} + wall {pts[p][1]}",
                    t, p, expected=f"{pts[p][0]} + {pts[p][1]}", actual=f"{logged_pts[0]} + {logged_pts[1]}"))  # fmt: skip
        if chosen.label == "relocate" and chosen.change is not None and chosen.change[2] is not None and rules.outcomes:
            p0, k0, at = chosen.change
            ro, res0, q = rules.outcomes[p0][k0], turn.res[p0][k0], chosen.mover
            mover = "the agent" if (q, at.agent_id) == (p0, ro.action.agent_id) else \
                f"{judge.name(q)} agent {at.agent_id}"  # fmt: skip
            found.append(judge.v(
                "kakomimasu-result-code",
                f"turn {t}: {judge.name(p0)} agent {ro.action.agent_id} {describe_action(ro.action)}: logged {res0} "
                f"({RESULTS.get(res0, '?') if res0 is not None else '?'}), the rules give {ro.res} ({RESULTS[ro.res]}"
                f"{': ' + ro.why if ro.why else ''}) with {mover} at {board.agents[q][at.agent_id]}; the log's points "
                f"and the turns after fit {mover} standing at ({at.x}, {at.y}), its team's wall (a move the log does "
                "not hold), so the replay goes on from that",
                t, p0, expected=str(ro.res), actual=str(res0)))  # fmt: skip
        if chosen.label in ("retarget", "drop") and chosen.change is not None and rules.outcomes:
            p0, k0, alt = chosen.change
            res0, ro = turn.res[p0][k0], rules.outcomes[p0][k0]
            off = [p for p, lp in enumerate(turn.points) if lp is not None and p < len(rules_pts) and lp != rules_pts[p]]
            if (res0 is None or res0 == ro.res) and off:  # no result-code finding names the change: the points do
                p = p0 if p0 in off else off[0]
                lp = turn.points[p] or (0, 0)
                logged = f"{judge.name(p0)} agent {ro.action.agent_id} {describe_action(ro.action)}"
                fit = f"the turn without {logged}"
                if alt is not None:
                    fit = f"{judge.name(p0)} agent {alt.agent_id} {describe_action(alt)} instead of the logged " \
                        f"{describe_action(ro.action)}"  # fmt: skip
                found.append(judge.v(
                    "kakomimasu-points",
                    f"turn {t}: {judge.name(p)} logged area {lp[0]} + wall {lp[1]}, the logged actions give area "
                    f"{rules_pts[p][0]} + wall {rules_pts[p][1]}; the log's points and the turns after fit {fit} "
                    f"(logged {res0 if res0 is not None else '?'}, as the rules give it), "
                    "so the replay goes on from that",
                    t, p, expected=f"{rules_pts[p][0]} + {rules_pts[p][1]}", actual=f"{lp[0]} + {lp[1]}"))  # fmt: skip
        if chosen.label == "insert" and chosen.change is not None and chosen.change[2] is not None:
            p0, _k, alt = chosen.change
            off = [p for p, lp in enumerate(turn.points) if lp is not None and p < len(rules_pts) and lp != rules_pts[p]]
            p = off[0] if off else p0
            lp = turn.points[p] or (0, 0)
            found.append(judge.v(
                "kakomimasu-points",
                f"turn {t}: {judge.name(p)} logged area {lp[0]} + wall {lp[1]}, the logged actions give area "
                f"{rules_pts[p][0]} + wall {rules_pts[p][1]}; the log's points and the turns after fit "
                f"{judge.name(p0)} agent {alt.agent_id} {describe_action(alt)}, an action the log does not hold, "
                "so the replay goes on from that",
                t, p, expected=f"{rules_pts[p][0]} + {rules_pts[p][1]}", actual=f"{lp[0]} + {lp[1]}"))  # fmt: skip
        written_pts = points(chosen.written)
        if not departed and written_pts != pts:
            departed = True
            found.append(judge.v(
                "kakomimasu-area-rule-departure",
                f"turn {t}: by the written area rule the points would be "
                f"{_points_text(judge, written_pts)}; the server's engine gives {_points_text(judge, pts)} "
                "(cells never walled share one owner in its area fill)",
                t, expected=_points_text(judge, written_pts), actual=_points_text(judge, pts)))  # fmt: skip
        yield TurnFrame(t, board, after, tuple(views), tuple(pts), turn.points, tuple(found),
                        resync="" if chosen is rules else chosen.label)  # fmt: skip
        server, written = chosen.server, chosen.written
        board = after
    summary.turns = len(game.turns) + shift
    summary.final = board
    summary.written_rules_points = tuple(points(written))
    summary.end_violations = _end_checks(game, judge, board, summary.turns, told=shift > 0)


def _gap_frame(game: GameLog, judge: _Judge, follow: _Follower, t: int, board: Board, gap: _Candidate,
               missing: int) -> TurnFrame:  # fmt: skip
    """The frame of a turn the log misses: its actions inferred (no finding against anyone), one finding."""
    assert gap.turn is not None and gap.outcomes is not None
    views = [ActionView(p, o.action, None, o.res, o.why, inferred=True, forbidden=o.forbidden)
             for p, outs in enumerate(gap.outcomes) for o in outs]  # fmt: skip
    held = len(game.turns)
    where = f"the log goes from turn {t - 1} to turn {t + 1}" if t > 1 else "the log starts at turn 2"
    done = ", ".join(f"{judge.name(v.player)} agent {v.action.agent_id} {describe_action(v.action)}" for v in views)
    finding = judge.v(
        "kakomimasu-turns",
        f"turn {t} is missing: {where} (it holds {held} turns, the game {held + missing}); the actions logged after "
        f"it fit the board one turn on, so the replay infers turn {t} from the turns after "
        f"({done or 'no action'}) and goes on from that",
        t, expected=str(held + missing), actual=str(held))  # fmt: skip
    after = follow.after(gap)
    return TurnFrame(t, board, after, tuple(views), tuple(points(after)), tuple(None for _ in after.agents),
                     (finding,), resync="gap")  # fmt: skip


def _rows_finding(judge: _Judge, t: int, logged: Turn, read: _Candidate) -> Violation:
    """The one finding of a turn with fewer player rows than teams: whose rows they are, what was inferred."""
    assert read.turn is not None
    held = [p for p in range(len(read.turn.actions)) if p not in read.teams]
    rows = ", ".join(judge.name(p) for p in held)
    inferred = [f"{judge.name(p)} agent {a.agent_id} {describe_action(a)}" for p in read.teams for a in read.turn.actions[p]]
    n = len(read.turn.actions)
    return judge.v(
        "kakomimasu-player-count",
        f"turn {t}: the log has {logged.rows} player row{'' if logged.rows == 1 else 's'}, the game has {n} players; "
        f"the row{'' if len(held) == 1 else 's'} logged fit{'s' if len(held) == 1 else ''} {rows}, and the turns after "
        f"fit {', '.join(judge.name(p) for p in read.teams)} doing {', '.join(inferred) or 'nothing'}, "
        "so the replay goes on from that", t, read.teams[0] if len(read.teams) == 1 else None,
        expected=str(n), actual=str(logged.rows))  # fmt: skip


def _points_text(judge: _Judge, pts: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"{judge.name(p)} {a}+{w}" for p, (a, w) in enumerate(pts))


def _end_checks(game: GameLog, judge: _Judge, board: Board, turns: int, told: bool = False) -> list[Violation]:
    """The final field, agents and points against the replay; the turns the game ended with (``turns``: the
    replayed ones, the log's and those it misses; ``told``: a missing turn is reported already)."""
    out: list[Violation] = []
    t = turns or None
    if game.final_kinds is not None and game.final_owners is not None:
        v = judge.tiles_diff(t, "kakomimasu-final-tiles", board, game.final_kinds, game.final_owners,
                             "final field tiles against the replay")  # fmt: skip
        if v is not None:
            out.append(v)
    if game.final_agents is not None:
        for p, agents in enumerate(game.final_agents):
            replayed = board.agents[p] if p < len(board.agents) else ()
            for i, (logged, got) in enumerate(zip(agents, replayed, strict=False)):
                if logged != got:
                    out.append(judge.v("kakomimasu-final-agents",
                                       f"{judge.name(p)} agent {i} is logged at {logged}, the replay puts it at {got}",
                                       t, p, expected=str(got), actual=str(logged)))  # fmt: skip
    if game.final_points is not None:
        pts = points(board)
        for p, logged in enumerate(game.final_points):
            if logged is not None and p < len(pts) and logged != pts[p]:
                out.append(judge.v("kakomimasu-final-points",
                                   f"{judge.name(p)} final points area {logged[0]} + wall {logged[1]}, "
                                   f"the replay gives {pts[p][0]} + {pts[p][1]}",
                                   t, p, expected=f"{pts[p][0]} + {pts[p][1]}", actual=f"{logged[0]} + {logged[1]}"))  # fmt: skip
    n = turns
    told = told or any(note.code == "kakomimasu-turns" for note in game.notes)  # the extra turns are reported already
    if game.status == "ended" and game.total_turn is not None and n != game.total_turn and not told:
        out.append(judge.v("kakomimasu-turns", f"the game ended with {n} logged turns of {game.total_turn}", t,
                           expected=str(game.total_turn), actual=str(n)))  # fmt: skip
    return out


# ---- 2020 snapshots -----------------------------------------------------------------------


def _neighbour(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a != b and abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def infer_actions(before: Snapshot, after: Snapshot, width: int) -> tuple[list[list[Action]], list[ActionView], list[str]]:
    """The actions that turn ``before`` into ``after`` where determined.

    Returns the actions to apply per player, a view of every agent's inferred action (an
    undetermined NONE for agents that stayed without removing a wall) and the problems
    found (agent moves no action allows, walls gone with no agent to remove them).
    """
    n_player = len(before.agents)
    applied: list[list[Action]] = [[] for _ in range(n_player)]
    views: list[ActionView] = []
    problems: list[str] = []
    stayed: list[tuple[int, int, tuple[int, int]]] = []
    for p in range(n_player):
        for i, (b, a) in enumerate(zip(before.agents[p], after.agents[p], strict=True)):
            if b == (-1, -1) and a != (-1, -1):
                act = Action(i, PUT, *a)
            elif b != (-1, -1) and a != b and _neighbour(a, b):
                act = Action(i, MOVE, *a)
            elif b == a:
                if b != (-1, -1):
                    stayed.append((p, i, b))
                else:
                    views.append(ActionView(p, Action(i, NONE, -1, -1), None, SUCCESS, "not placed", True, True))
                continue
            else:
                problems.append(f"player {p + 1} agent {i} went from {b} to {a}, which no action allows")
                continue
            applied[p].append(act)
            views.append(ActionView(p, act, None, SUCCESS, "", True, False))
    removed = [i for i in range(len(before.kinds)) if before.kinds[i] == WALL and after.kinds[i] != WALL]
    cells = [(c % width, c // width) for c in removed]
    cands = [[(p, i) for (p, i, pos) in stayed if _neighbour(pos, xy)] for xy in cells]
    match = _match(cands)
    remover: dict[tuple[int, int], tuple[int, int]] = {}
    for k, xy in enumerate(cells):
        if match[k] is None:
            problems.append(f"the wall at {xy} vanished with no agent next to it left to remove it")
            continue
        remover[match[k]] = xy
        if len(cands[k]) > 1 and _match(cands, forbid=(k, match[k]))[k] is not None:
            p, i = match[k]
            views.append(ActionView(p, Action(i, REMOVE, *xy), None, SUCCESS,
                                    f"removed by one of {len(cands[k])} agents next to it", True, True))  # fmt: skip
    for p, i, _pos in stayed:
        target = remover.get((p, i))
        if target is not None:
            act = Action(i, REMOVE, *target)
            applied[p].append(act)
            if not any(v.player == p and v.action.agent_id == i for v in views):
                views.append(ActionView(p, act, None, SUCCESS, "", True, False))
        else:
            views.append(ActionView(p, Action(i, NONE, -1, -1), None, SUCCESS,
                                    "stayed: what it was told to do is not in the log", True, True))  # fmt: skip
    views.sort(key=lambda v: (v.player, v.action.agent_id))
    return applied, views, problems


def _match(cands: list[list[tuple[int, int]]], forbid: tuple[int, object] | None = None) -> list[tuple[int, int] | None]:
    """A maximum matching of removed walls to agents (each agent removes at most one wall)."""
    owner: dict[tuple[int, int], int] = {}

    def augment(k: int, seen: set[tuple[int, int]]) -> bool:
        for agent in cands[k]:
            if (forbid is not None and forbid == (k, agent)) or agent in seen:
                continue
            seen.add(agent)
            if agent not in owner or augment(owner[agent], seen):
                owner[agent] = k
                return True
        return False

    for k in range(len(cands)):
        augment(k, set())
    out: list[tuple[int, int] | None] = [None] * len(cands)
    for agent, k in owner.items():
        out[k] = agent
    return out


def _snapshot_board(game: GameLog, shot: Snapshot, untouched: tuple[bool, ...]) -> Board:
    assert game.width is not None and game.height is not None and game.points is not None
    return Board(game.width, game.height, game.points, shot.kinds, shot.owners, shot.agents, untouched)


def _replay_snapshots(game: GameLog, judge: _Judge, summary: Summary) -> Iterator[TurnFrame]:
    shots = game.snapshots
    first = shots[0]
    empty = initial_board(game)
    untouched = tuple(k != WALL and o < 0 for k, o in zip(first.kinds, first.owners, strict=True))
    board = _snapshot_board(game, first, untouched)
    for shot in shots:  # every snapshot's points against its own tiles
        own = tuple(points(_snapshot_board(game, shot, untouched)))
        for p, logged in enumerate(shot.points):
            if logged != own[p]:
                summary.end_violations.append(judge.v(
                    "kakomimasu-snapshot-points",
                    f"turn {shot.turn}: {judge.name(p)} snapshot points area {logged[0]} + wall {logged[1]}, "
                    f"its tiles give {own[p][0]} + {own[p][1]}", shot.turn, p,
                    expected=f"{own[p][0]} + {own[p][1]}", actual=f"{logged[0]} + {logged[1]}"))  # fmt: skip
    if first.turn <= 1 and (first.kinds, first.owners) != (empty.kinds, empty.owners):
        v = judge.tiles_diff(first.turn, "kakomimasu-snapshot-tiles", empty, first.kinds, first.owners,
                             f"turn {first.turn}: the first snapshot is not an empty field")  # fmt: skip
        if v is not None:
            summary.end_violations.append(v)
    for before, after in zip(shots, shots[1:], strict=False):
        t = before.turn
        found: list[Violation] = []
        if after.turn != t + 1:
            found.append(judge.v("kakomimasu-turns", f"no snapshot between turn {t} and turn {after.turn}", t,
                                 expected=str(t + 1), actual=str(after.turn)))  # fmt: skip
            board = _snapshot_board(game, after, tuple(u and k != WALL for u, k in zip(board.untouched, after.kinds, strict=True)))
            continue
        applied, views, problems = infer_actions(before, after, board.width)
        replayed, _ = step(board, applied, shared_tiles=SHARED_2020)
        for text in problems:
            found.append(judge.v("kakomimasu-snapshot-agents", f"turn {t}: {text}", t))
        for view in views:
            if view.undetermined and view.action.type == REMOVE:
                found.append(judge.v("kakomimasu-action-undetermined",
                                     f"turn {t}: the wall at ({view.action.x}, {view.action.y}) was removed; "
                                     f"{view.why}", t, view.player))  # fmt: skip
        v = judge.tiles_diff(t + 1, "kakomimasu-snapshot-tiles", replayed, after.kinds, after.owners,
                             f"turn {t + 1}: snapshot tiles against the replay of turn {t}")  # fmt: skip
        if v is not None:
            found.append(v)
        pts = tuple(points(replayed))
        yield TurnFrame(t, board, replayed, tuple(views), pts, after.points, tuple(found))
        # the next turn starts from what the log says (a mismatch is reported once, not carried along)
        board = _snapshot_board(game, after, tuple(u and k != WALL for u, k in zip(replayed.untouched, after.kinds, strict=True)))
    summary.turns = max(0, len(shots) - 1)
    summary.final = board


def judge_all(game: GameLog, *, match_id: str | None = None) -> tuple[list[TurnFrame], Summary]:
    """Every frame and the summary (convenience for callers that want the whole game)."""
    summary = Summary()
    frames = list(replay(game, match_id=match_id, summary=summary))
    return frames, summary


__all__ = ["RULESET", "RULESET_VERSION", "ActionView", "Summary", "TurnFrame", "infer_actions", "judge_all",
           "player_codes", "replay"]  # fmt: skip
