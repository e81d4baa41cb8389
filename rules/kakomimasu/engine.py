"""The Kakomimasu turn: simultaneous actions, their result codes, walls, areas and points.

A faithful model of the official engine (``codeforkosen/Kakomimasu`` v2, the engine the
official server runs), written from the published rules and the engine's documented
behaviour.  The order inside one turn is the server's:

1. per player: an agent id out of range → ``ILLEGAL_AGENT`` (4); two or more actions for
   one agent → all of them ``ONLY_ONE_TURN`` (3);
2. each remaining action is checked against its agent: PUT needs an unplaced agent and a
   cell on the field; MOVE / REMOVE need a placed agent and one of the 8 neighbouring
   cells; REMOVE needs a wall there; NONE and unknown types are refused → ``ILLEGAL_ACTION`` (5);
3. a placed agent's PUT/MOVE onto another player's wall → ``REVERT`` (2);
4. two or more remaining actions aimed at one cell (any type, any player) → all ``CONFLICT`` (1);
5. agents that would end on one cell (moving there or staying there) are sent back,
   repeatedly until no cell holds two → ``REVERT`` (2);
6. PUT/MOVE happen (the target becomes the agent's player's wall; an unplaced agent's PUT
   onto another player's wall silently does nothing, as in the engine);
7. REMOVE of a cell where an agent now stands → ``REVERT`` (2), else the wall becomes a
   neutral cell;
8. areas are filled (:func:`fill_area`) and points counted (:func:`points`).

**The server's area fill.**  The engine the official server pins (v2.0.1) creates the
field's tiles as one shared object and its area fill writes the owner *into* the tile
object.  So every cell never touched by a wall shares one owner: whatever the fill decided
for the last such cell (column by column, top to bottom).  Enclosing untouched cells
usually gives no area at all, and enclosing the bottom-right one turns every untouched
cell into that player's area.  Real logs are written by that engine, so this is the
default (``shared_tiles=True``); ``shared_tiles=False`` fills as the written rules say
(and as later engine versions do).  A :class:`Board` tracks which cells are still untouched.

Everything here is plain Python on lists; a :class:`Board` is never mutated by
:func:`step`, which returns a new one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

AREA, WALL = 0, 1
NOBODY = -1

PUT, NONE, MOVE, REMOVE = 1, 2, 3, 4
ACTION_TYPES = {PUT: "PUT", NONE: "NONE", MOVE: "MOVE", REMOVE: "REMOVE"}

SUCCESS, CONFLICT, REVERT, ONLY_ONE_TURN, ILLEGAL_AGENT, ILLEGAL_ACTION = 0, 1, 2, 3, 4, 5
RESULTS = {
    SUCCESS: "success",
    CONFLICT: "conflict",
    REVERT: "revert",
    ONLY_ONE_TURN: "several actions for one agent",
    ILLEGAL_AGENT: "no such agent",
    ILLEGAL_ACTION: "illegal action",
}

UNPLACED = (-1, -1)


@dataclass(frozen=True, slots=True)
class Action:
    """One action as submitted (``res`` is filled in by :func:`step`)."""

    agent_id: int
    type: int
    x: int
    y: int


@dataclass(slots=True)
class Outcome:
    """What happened to one submitted action."""

    action: Action
    res: int = SUCCESS
    why: str = ""  # for refused actions: the precise rule ("out of the field", ...)
    forbidden: str = ""  # an action the written rules forbid that the server does not refuse as such


@dataclass(frozen=True, slots=True)
class Board:
    """The field after a turn: points, tiles (kind + owner per cell) and agent positions."""

    width: int
    height: int
    points: tuple[int, ...]
    kinds: tuple[int, ...]  # AREA or WALL per cell, row-major (index = y * width + x)
    owners: tuple[int, ...]  # player index, or NOBODY
    agents: tuple[tuple[tuple[int, int], ...], ...]  # per player, per agent: (x, y); (-1, -1) unplaced
    untouched: tuple[bool, ...] = ()  # per cell: never a wall (the engine's shared tile object)

    @classmethod
    def empty(cls, width: int, height: int, points: list[int] | tuple[int, ...], n_player: int, n_agent: int) -> Board:
        n = width * height
        return cls(width, height, tuple(points), (AREA,) * n, (NOBODY,) * n,
                   tuple((UNPLACED,) * n_agent for _ in range(n_player)), (True,) * n)  # fmt: skip

    @property
    def n_player(self) -> int:
        return len(self.agents)

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def tile(self, x: int, y: int) -> tuple[int, int]:
        i = y * self.width + x
        return self.kinds[i], self.owners[i]


@dataclass(slots=True)
class _Agent:
    player: int
    x: int
    y: int
    act: Outcome | None = None  # the checked action this turn (None: no action reached the check)
    bk: tuple[int, int] = UNPLACED

    @property
    def placed(self) -> bool:
        return self.x != -1

    def valid(self) -> Outcome | None:
        return self.act if self.act is not None and self.act.res == SUCCESS else None

    def revert(self) -> bool:
        o = self.act
        if o is not None and o.res == SUCCESS and o.action.type in (MOVE, PUT):
            o.res = REVERT
            self.x, self.y = self.bk
            return True
        return False


def _refusal(board: Board, agent: _Agent, a: Action, tiles: list[int]) -> str:
    """Why the agent's own check refuses the action ('' when it passes)."""
    if a.type == PUT:
        if agent.placed:
            return "PUT for an agent already on the field"
        return "" if board.inside(a.x, a.y) else "PUT outside the field"
    if a.type in (MOVE, REMOVE):
        verb = ACTION_TYPES[a.type]
        if not agent.placed:
            return f"{verb} for an agent not yet on the field"
        if not board.inside(a.x, a.y):
            return f"{verb} outside the field"
        if (a.x, a.y) == (agent.x, agent.y) or abs(agent.x - a.x) > 1 or abs(agent.y - a.y) > 1:
            return f"{verb} to a cell that is not one of the 8 neighbours"
        if a.type == REMOVE and tiles[a.y * board.width + a.x] != WALL:
            return "REMOVE of a cell that is not a wall"
        return ""
    if a.type == NONE:
        return "NONE is not an action the engine accepts (the agent stays)"
    return f"unknown action type {a.type}"


def step(board: Board, submitted: list[list[Action]], *, shared_tiles: bool = True) -> tuple[Board, list[list[Outcome]]]:
    """Resolve one turn: ``submitted[p]`` are player p's actions in the order sent."""
    kinds, owners, untouched, agents, outcomes, _writes = _resolve(board, submitted)
    owners = fill_area(board.width, board.height, kinds, owners, board.n_player, untouched if shared_tiles else None)
    return Board(board.width, board.height, board.points, tuple(kinds), tuple(owners), agents, tuple(untouched)), outcomes


def step_both(board: Board, written: Board, submitted: list[list[Action]]) -> tuple[Board, Board, list[list[Outcome]]]:
    """One turn filled both ways: ``board`` with the server's fill, ``written`` (the same walls and
    agents, its own areas) as the rules are written.  Result codes never depend on areas."""
    kinds, owners, untouched, agents, outcomes, writes = _resolve(board, submitted)
    w, h, n = board.width, board.height, board.n_player
    after = Board(w, h, board.points, tuple(kinds), tuple(fill_area(w, h, kinds, owners, n, untouched)), agents,
                  tuple(untouched))  # fmt: skip
    other = list(written.owners)
    for i, owner in writes:
        other[i] = owner
    shadow = Board(w, h, board.points, tuple(kinds), tuple(fill_area(w, h, kinds, other, n)), agents, tuple(untouched))
    return after, shadow, outcomes


def step_as_logged(board: Board, written: Board, submitted: list[list[Action]],
                   results: list[list[int | None]]) -> tuple[Board, Board]:  # fmt: skip
    """One turn as a log states it: every action whose logged result is 0 happens (PUT/MOVE first, then
    REMOVE, as in the engine), whatever the rules say; the others do not.  Filled both ways like
    :func:`step_both`.  Used to follow a log past a turn the rules replay differently."""
    w, n = board.width, board.n_player
    kinds, owners = list(board.kinds), list(board.owners)
    untouched = list(board.untouched) if board.untouched else [False] * len(kinds)
    agents = [list(row) for row in board.agents]
    writes: list[tuple[int, int]] = []
    done: list[tuple[int, Action]] = []
    for p, acts in enumerate(submitted):
        codes = results[p] if p < len(results) else []
        for k, a in enumerate(acts):
            if k < len(codes) and codes[k] == SUCCESS and p < n and 0 <= a.agent_id < len(agents[p]) \
                    and board.inside(a.x, a.y):  # fmt: skip
                done.append((p, a))
    for p, a in done:
        i = a.y * w + a.x
        if a.type == MOVE or (a.type == PUT and agents[p][a.agent_id] == UNPLACED):
            if a.type == PUT and kinds[i] == WALL and owners[i] not in (p, NOBODY):
                continue  # the engine's silent no-op
            kinds[i], owners[i], untouched[i] = WALL, p, False
            writes.append((i, p))
            agents[p][a.agent_id] = (a.x, a.y)
    for _p, a in done:
        if a.type == REMOVE:
            i = a.y * w + a.x
            kinds[i], owners[i], untouched[i] = AREA, NOBODY, False
            writes.append((i, NOBODY))
    placed = tuple(tuple(row) for row in agents)
    after = Board(w, board.height, board.points, tuple(kinds), tuple(fill_area(w, board.height, kinds, owners, n, untouched)),
                  placed, tuple(untouched))  # fmt: skip
    other = list(written.owners)
    for i, owner in writes:
        other[i] = owner
    shadow = Board(w, board.height, board.points, tuple(kinds), tuple(fill_area(w, board.height, kinds, other, n)),
                   placed, tuple(untouched))  # fmt: skip
    return after, shadow


def _resolve(board: Board, submitted: list[list[Action]]) -> tuple[
        list[int], list[int], list[bool], tuple[tuple[tuple[int, int], ...], ...], list[list[Outcome]], list[tuple[int, int]]]:  # fmt: skip
    """Steps 1–7 of a turn: result codes, agents, walls (``writes``: cells whose owner changed)."""
    w = board.width
    kinds, owners = list(board.kinds), list(board.owners)
    untouched = list(board.untouched) if board.untouched else [False] * len(kinds)
    writes: list[tuple[int, int]] = []
    agents = [[_Agent(p, x, y) for (x, y) in row] for p, row in enumerate(board.agents)]
    flat = [a for row in agents for a in row]
    outcomes = [[Outcome(a) for a in acts] for acts in submitted]
    while len(outcomes) < len(agents):
        outcomes.append([])

    # 1. agent ids, several actions for one agent
    for p, outs in enumerate(outcomes):
        done: dict[int, Outcome] = {}
        n_agent = len(agents[p]) if p < len(agents) else 0
        for o in outs:
            aid = o.action.agent_id
            if not 0 <= aid < n_agent:
                o.res, o.why = ILLEGAL_AGENT, f"player has no agent {aid}"
                continue
            if aid in done:
                o.res = done[aid].res = ONLY_ONE_TURN
                o.why = done[aid].why = f"agent {aid} was given several actions"
                continue
            done[aid] = o
    # 2. the agent's own check
    for p, outs in enumerate(outcomes):
        for o in outs:
            if o.res != SUCCESS:
                continue
            agent = agents[p][o.action.agent_id]
            agent.act, agent.bk = o, (agent.x, agent.y)
            why = _refusal(board, agent, o.action, kinds)
            if why:
                o.res, o.why = ILLEGAL_ACTION, why
            elif o.action.type == PUT and not agent.placed:
                i = o.action.y * w + o.action.x
                if kinds[i] == WALL and owners[i] not in (p, NOBODY):
                    # 配置「相手チームの壁となっているマスには配置できません」: the engine checks this for
                    # placed agents only; an unplaced agent's PUT goes on (conflict, revert or a silent no-op)
                    o.forbidden = "PUT onto another player's wall"
    # 3. PUT/MOVE of a placed agent onto another player's wall
    for agent in flat:
        o = agent.valid()
        if not agent.placed or o is None or o.action.type not in (MOVE, PUT):
            continue
        i = o.action.y * w + o.action.x
        if kinds[i] == WALL and owners[i] not in (agent.player, NOBODY) and agent.revert():
            o.why = "onto another player's wall"
    # 4. conflicts: two or more successful actions aimed at one cell
    aimed: dict[int, list[Outcome]] = {}
    for outs in outcomes:
        for o in outs:
            if o.res == SUCCESS:
                aimed.setdefault(o.action.y * w + o.action.x, []).append(o)
    for group in aimed.values():
        if len(group) >= 2:
            for o in group:
                o.res, o.why = CONFLICT, f"{len(group)} actions aimed at this cell"
    # 5. agents that would end on one cell go back, until none do
    while True:
        ends: dict[int, list[_Agent]] = {}
        for agent in flat:
            o = agent.valid()
            if o is not None and o.action.type in (MOVE, PUT):
                ends.setdefault(o.action.y * w + o.action.x, []).append(agent)
            elif agent.placed:
                ends.setdefault(agent.y * w + agent.x, []).append(agent)
        changed = False
        for group in ends.values():
            if len(group) >= 2:
                for agent in group:
                    if agent.revert():
                        agent.act.why = "another agent ends its turn on this cell"  # type: ignore[union-attr]
                        changed = True
        if not changed:  # the engine loops while any cell holds two; only a revert can change that
            break
    # 6. PUT / MOVE happen
    for agent in flat:
        o = agent.valid()
        if o is None or o.action.type not in (MOVE, PUT):
            continue
        a = o.action
        if a.type == PUT and agent.placed:
            continue
        i = a.y * w + a.x
        if kinds[i] == WALL and owners[i] != agent.player:
            o.why = "PUT onto another player's wall: the agent stays off the field"
            continue
        kinds[i], owners[i], untouched[i] = WALL, agent.player, False
        writes.append((i, agent.player))
        agent.x, agent.y = a.x, a.y
    # 7. REMOVE, unless an agent stands on the cell now
    for agent in flat:
        o = agent.valid()
        if not agent.placed or o is None or o.action.type != REMOVE:
            continue
        a = o.action
        if any(b.x == a.x and b.y == a.y for b in flat):
            o.res, o.why = REVERT, "an agent stands on the wall to remove"
        else:
            i = a.y * w + a.x
            kinds[i], owners[i], untouched[i] = AREA, NOBODY, False
            writes.append((i, NOBODY))
    return kinds, owners, untouched, tuple(tuple((a.x, a.y) for a in row) for row in agents), outcomes, writes


def fill_area(
    width: int, height: int, kinds: list[int], owners: list[int], n_player: int, untouched: list[bool] | None = None
) -> list[int]:
    """Owners after the area fill (walls keep theirs).

    For each player, cells reachable from outside the field without crossing that player's
    wall (moving in 8 directions, so walls must touch side by side to enclose) are not
    enclosed by that player.  A cell enclosed by exactly one player becomes that player's
    area; a cell enclosed by several is nested: the walls decided in this pass are opened
    and the fill repeats, until every cell is decided.  A cell enclosed by nobody keeps its
    owner (an area stays an area when its walls go).

    With ``untouched`` (the server's engine), cells never touched by a wall share one owner:
    the one decided for the last of them in column-major order.
    """
    # The padded field (one neutral cell all around) as bit sets, one bit per cell: a flood is
    # a few shifts per step on a Python int instead of a loop over cells.  Shifts wrap from one
    # row's last column to the next row's first: both are padding, outside anyway.
    W = width + 2
    n = W * (height + 2)
    full = (1 << n) - 1
    pad = _padded(width, height)
    walls = [0] * n_player  # padded cells that are player p's wall
    open_cells = 0  # padded cells that are not walls (the only ones whose owner the fill decides)
    po: dict[int, int] = {}
    for i, j in enumerate(pad):
        if kinds[i] == WALL:
            o = owners[i]
            if 0 <= o < n_player:
                walls[o] |= 1 << j
        else:
            open_cells |= 1 << j
            po[j] = owners[i]
    mask = full  # cells still undecided
    passes = 0
    while mask and passes <= n:
        passes += 1
        enclosed = []
        for p in range(n_player):
            open_ = full & ~(mask & walls[p])
            reach = 1  # the padding corner: always outside
            while True:
                grown = reach | (reach << 1) | (reach >> 1) | (reach << W) | (reach >> W) | (reach << (W + 1)) \
                    | (reach >> (W + 1)) | (reach << (W - 1)) | (reach >> (W - 1))  # fmt: skip
                grown &= open_
                if grown == reach:
                    break
                reach = grown
            enclosed.append(full & ~reach)
        anyone = 0
        several = 0
        for e in enclosed:
            several |= anyone & e
            anyone |= e
        for p, e in enumerate(enclosed):
            single = e & ~several & open_cells
            while single:
                low = single & -single
                po[low.bit_length() - 1] = p
                single ^= low
        mask &= ~((full & ~anyone) | (anyone & ~several))
    out = list(owners)
    shared: int | None = None
    for x in range(width):
        for y in range(height):
            i = y * width + x
            if kinds[i] != WALL:
                out[i] = po[pad[i]]
                if untouched is not None and untouched[i]:
                    shared = out[i]
    if shared is not None and untouched is not None:
        for i, u in enumerate(untouched):
            if u:
                out[i] = shared
    return out


@functools.cache
def _padded(width: int, height: int) -> tuple[int, ...]:
    """Index in the padded field of every cell (row-major)."""
    return tuple((y + 1) * (width + 2) + x + 1 for y in range(height) for x in range(width))


def points(board: Board) -> list[tuple[int, int]]:
    """(area points, wall points) per player: walls count their value, areas its absolute value."""
    n = board.n_player
    area, wall = [0] * n, [0] * n
    values, kinds = board.points, board.kinds
    for i, owner in enumerate(board.owners):
        if 0 <= owner < n:
            if kinds[i] == WALL:
                wall[owner] += values[i]
            else:
                area[owner] += abs(values[i])
    return list(zip(area, wall, strict=True))


def ranking(totals: list[tuple[int, int]]) -> tuple[list[int], str]:
    """Winner(s) by the rules: the larger total, then the larger wall points.

    Returns the indices of the winners (several: a draw) and how it was decided:
    ``"total"``, ``"wall"`` or ``"draw"``.
    """
    if not totals:
        return [], "draw"
    best = max(a + w for a, w in totals)
    top = [i for i, (a, w) in enumerate(totals) if a + w == best]
    if len(top) == 1:
        return top, "total"
    best_wall = max(totals[i][1] for i in top)
    top = [i for i in top if totals[i][1] == best_wall]
    return top, ("wall" if len(top) == 1 else "draw")


__all__ = [
    "ACTION_TYPES", "AREA", "NOBODY", "RESULTS", "WALL", "Action", "Board", "Outcome",
    "fill_area", "points", "ranking", "step", "step_as_logged", "step_both",
]  # fmt: skip
