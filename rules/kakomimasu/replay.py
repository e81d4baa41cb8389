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
from dataclasses import dataclass, field

from rules.core import Violation
from rules.kakomimasu.checks import BY_RESULT, CHECKS
from rules.kakomimasu.engine import (
    ACTION_TYPES, ILLEGAL_ACTION, MOVE, NONE, PUT, REMOVE, RESULTS, REVERT, SUCCESS, WALL, Action, Board, Outcome,
    points, ranking, step, step_both,
)  # fmt: skip
from rules.kakomimasu.game import LEGACY, GameLog, Snapshot

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


@dataclass(frozen=True, slots=True)
class TurnFrame:
    turn: int
    before: Board
    after: Board
    actions: tuple[ActionView, ...]
    points: tuple[tuple[int, int], ...]  # replayed (area, wall) per player
    logged_points: tuple[tuple[int, int] | None, ...]
    violations: tuple[Violation, ...] = ()


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

    def v(self, code: str, message: str, turn: int | None, player: int | None = None,
          expected: str | None = None, actual: str | None = None) -> Violation:  # fmt: skip
        c = CHECKS[code]
        who = self.codes[player] if player is not None and player < len(self.codes) else None
        return Violation(code, c.family, c.severity, message, seq=turn, round_no=1, turn_no=turn, player=who,
                         expected=expected, actual=actual, ruleset=RULESET, ruleset_version=RULESET_VERSION,
                         match_id=self.match_id)  # fmt: skip

    def name(self, p: int) -> str:
        return self.codes[p] if p < len(self.codes) else f"player {p + 1}"

    def refused(self, turn: int, view: ActionView) -> Violation | None:
        r, a = view.res_replayed, view.action
        if r == SUCCESS or view.inferred:
            return None
        what = f"turn {turn}: {self.name(view.player)} agent {a.agent_id} {describe_action(a)} — {RESULTS[r]}"
        if view.why:
            what += f": {view.why}"
        code = BY_RESULT[r]
        if r == ILLEGAL_ACTION and a.type == NONE:
            code = "kakomimasu-none-action"
        elif r == REVERT and view.why == "onto another player's wall":
            code = "kakomimasu-onto-opponent-wall"
        return self.v(code, what, turn, view.player)

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
    if game.format == LEGACY:
        yield from _replay_snapshots(game, judge, summary)
    else:
        yield from _replay_v1(game, judge, summary)
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


def _replay_v1(game: GameLog, judge: _Judge, summary: Summary) -> Iterator[TurnFrame]:
    start = initial_board(game)
    server, written = start, start
    turns: list[tuple[Board, Board, list[list[Outcome]]]] = []
    for turn in game.turns:
        server, written, outcomes = step_both(server, written, [list(acts) for acts in turn.actions])
        turns.append((server, written, outcomes))
    server_pts = [tuple(points(s)) for s, _w, _o in turns]
    written_pts_all = [tuple(points(w)) for _s, w, _o in turns]
    shared = server_fill([t.points for t in game.turns], server_pts, written_pts_all)  # type: ignore[arg-type]
    summary.server_fill = shared
    departed = not shared  # the departure is the shared fill's; a log filled as written has none
    board = start
    for t, (turn, (s_after, w_after, outcomes)) in enumerate(zip(game.turns, turns, strict=True), 1):
        after, shadow = (s_after, w_after) if shared else (w_after, s_after)
        after = s_after if shared else w_after
        views, found = [], []
        for p, outs in enumerate(outcomes):
            logged = turn.res[p] if p < len(turn.res) else ()
            for k, o in enumerate(outs):
                res = logged[k] if k < len(logged) else None
                view = ActionView(p, o.action, res, o.res, o.why)
                views.append(view)
                v = judge.refused(t, view)
                if v is not None:
                    found.append(v)
                if res is not None and res != o.res:
                    found.append(judge.v(
                        "kakomimasu-result-code",
                        f"turn {t}: {judge.name(p)} agent {o.action.agent_id} {describe_action(o.action)}: "
                        f"logged {res} ({RESULTS.get(res, '?')}), the rules give {o.res} ({RESULTS[o.res]})",
                        t, p, expected=str(o.res), actual=str(res)))  # fmt: skip
        pts = server_pts[t - 1] if shared else written_pts_all[t - 1]
        for p, logged_pts in enumerate(turn.points):
            if logged_pts is not None and p < len(pts) and logged_pts != pts[p]:
                found.append(judge.v(
                    "kakomimasu-points",
                    f"turn {t}: {judge.name(p)} logged area {logged_pts[0]} + wall {logged_pts[1]}, "
                    f"the replay gives area {pts[p][0]} + wall {pts[p][1]}",
                    t, p, expected=f"{pts[p][0]} + {pts[p][1]}", actual=f"{logged_pts[0]} + {logged_pts[1]}"))  # fmt: skip
        written_pts = written_pts_all[t - 1]
        if not departed and written_pts != pts:
            departed = True
            found.append(judge.v(
                "kakomimasu-area-rule-departure",
                f"turn {t}: by the written area rule the points would be "
                f"{_points_text(judge, written_pts)}; the server's engine gives {_points_text(judge, pts)} "
                "(cells never walled share one owner in its area fill)",
                t, expected=_points_text(judge, written_pts), actual=_points_text(judge, pts)))  # fmt: skip
        yield TurnFrame(t, board, after, tuple(views), pts, turn.points, tuple(found))
        board = after
    summary.turns = len(game.turns)
    summary.final = board
    summary.written_rules_points = tuple(points(turns[-1][1] if turns else start))
    summary.end_violations = _end_checks(game, judge, board)


def _points_text(judge: _Judge, pts: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"{judge.name(p)} {a}+{w}" for p, (a, w) in enumerate(pts))


def _end_checks(game: GameLog, judge: _Judge, board: Board) -> list[Violation]:
    out: list[Violation] = []
    t = len(game.turns) or None
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
    n = len(game.turns)
    if game.status == "ended" and game.total_turn is not None and n != game.total_turn:
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
