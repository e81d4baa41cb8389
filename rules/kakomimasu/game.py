"""Kakomimasu game records: what a log says, read from its JSON shapes into plain data.

Two shapes exist:

* **API v1 Game JSON** (``GET /v1/matches/{id}``): the board, the players, the *final*
  tiles and agent positions, and a ``log`` with every turn's actions (with the server's
  result code) and every player's points after the turn.
* **2020 snapshots**: the game-info object the 2020 server sent once per turn — the tiles,
  agents and points *before* each turn, no actions.

:func:`classify` tells which shape a parsed JSON value has; :func:`from_v1` and
:func:`from_snapshots` check every field (types, sizes, ranges) and raise
:class:`GameLogError` with a one-line reason for anything Kifu cannot replay.  A readable v1
game whose parts contradict each other (more turns than ``totalTurn``, ``nAgent`` against the
agents the players have, a turn with too few player rows, final tiles that do not fit) is
read as the log shows it, and each contradiction is kept as a :class:`LogNote` that the
replay reports as a consistency finding at its turn.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rules.kakomimasu.engine import AREA, NOBODY, WALL, Action

MAX_SIDE = 64  # the rules use 10…24; the engine itself has no limit
MAX_PLAYERS = 8
MAX_AGENTS = 64
MAX_TURNS = 10_000
MAX_ACTIONS = 1_000  # per player and turn
MAX_INT = 2**31 - 1

V1 = "kakomimasu-v1"
LEGACY = "kakomimasu-2020"


class GameLogError(ValueError):
    """A record that is not a replayable Kakomimasu game; the message says why."""


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    type: str | None = None  # 'account' | 'guest' (v1)
    spec: str | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    """One logged turn: per player the actions sent (with the logged result) and the points after."""

    actions: tuple[tuple[Action, ...], ...]
    res: tuple[tuple[int | None, ...], ...]
    points: tuple[tuple[int, int] | None, ...]  # (area, wall) per player
    #: the number of player rows the log holds for the turn (fewer than the players: the rows past it are
    #: padded as sending nothing); not compared, so a game's content hash stays as it was
    rows: int | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The 2020 server's view at the start of ``turn``: tiles, agents, points."""

    turn: int
    kinds: tuple[int, ...]
    owners: tuple[int, ...]
    agents: tuple[tuple[tuple[int, int], ...], ...]
    points: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class LogNote:
    """A contradiction inside a readable game, found while reading it; the replay reports it at ``turn``
    (None or a turn past the last one: with the end-of-game findings)."""

    code: str  # a check of rules.kakomimasu.checks
    turn: int | None
    message: str
    player: int | None = None
    expected: str | None = None
    actual: str | None = None


@dataclass(frozen=True, slots=True)
class GameLog:
    game_id: str
    format: str  # V1 | LEGACY
    name: str | None
    kind: str | None  # 'normal' | 'self' | 'personal' (v1)
    status: str | None  # 'free' | 'ready' | 'gaming' | 'ended'
    width: int | None  # None: no board yet (a game still waiting for players)
    height: int | None
    points: tuple[int, ...] | None
    n_player: int
    n_agent: int
    total_turn: int | None
    turn: int | None
    started_at: float | None  # Unix time
    operation_sec: float | None
    transition_sec: float | None
    players: tuple[Player, ...]
    turns: tuple[Turn, ...] = ()
    final_kinds: tuple[int, ...] | None = None
    final_owners: tuple[int, ...] | None = None
    final_agents: tuple[tuple[tuple[int, int], ...], ...] | None = None
    final_points: tuple[tuple[int, int] | None, ...] | None = None
    snapshots: tuple[Snapshot, ...] = field(default=())
    #: contradictions read past (not in repr: the content hash of a game without any stays as it was)
    notes: tuple[LogNote, ...] = field(default=(), repr=False)

    @property
    def has_board(self) -> bool:
        return self.width is not None and self.points is not None

    @property
    def finished(self) -> bool:
        if self.format == LEGACY:
            return bool(self.snapshots) and self.total_turn is not None and self.snapshots[-1].turn >= self.total_turn
        return self.status == "ended" or (self.total_turn is not None and len(self.turns) >= self.total_turn > 0)


def classify(doc: Any) -> str | None:
    """'v1-game', 'snapshot', 'join' (a join-match answer), 'boards' (a board set) or None."""
    if not isinstance(doc, dict):
        return None
    if "log" in doc and "totalTurn" in doc and ("field" in doc or "players" in doc):
        return "v1-game"
    if "gameId" in doc and "tiled" in doc and "players" in doc:
        return "snapshot"
    if "gameId" in doc and "userId" in doc and "index" in doc and "log" not in doc:
        return "join"
    if doc and all(isinstance(v, dict) and "points" in v and "width" in v for v in doc.values()):
        return "boards"
    return None


# ---- field checks ---------------------------------------------------------------------


def _int(v: Any, what: str, lo: int = -MAX_INT, hi: int = MAX_INT) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        else:
            raise GameLogError(f"{what} is not an integer ({_show(v)})")
    if not lo <= v <= hi:
        raise GameLogError(f"{what} is {v}, outside {lo}…{hi}")
    return v


def _opt_int(v: Any, what: str, lo: int = -MAX_INT, hi: int = MAX_INT) -> int | None:
    return None if v is None else _int(v, what, lo, hi)


def _opt_num(v: Any, what: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise GameLogError(f"{what} is not a number ({_show(v)})")
    return float(v)


def _opt_str(v: Any, what: str) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str):
        raise GameLogError(f"{what} is not a string ({_show(v)})")
    return v


def _list(v: Any, what: str, max_len: int | None = None) -> list[Any]:
    if not isinstance(v, list):
        raise GameLogError(f"{what} is not a list ({_show(v)})")
    if max_len is not None and len(v) > max_len:
        raise GameLogError(f"{what} has {len(v):,} entries, more than {max_len:,}")
    return v


def _dict(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise GameLogError(f"{what} is not an object ({_show(v)})")
    return v


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "…"


def _size(width: Any, height: Any, points: Any) -> tuple[int, int, tuple[int, ...]]:
    w = _int(width, "field width")
    h = _int(height, "field height")
    if w < 1 or h < 1:
        raise GameLogError(f"field size {w}×{h}: sides must be at least 1")
    if w > MAX_SIDE or h > MAX_SIDE:
        raise GameLogError(f"field size {w}×{h} is larger than Kifu replays (at most {MAX_SIDE}×{MAX_SIDE})")
    pts = _list(points, "field points")
    if len(pts) != w * h:
        raise GameLogError(f"field points has {len(pts)} values for a {w}×{h} field ({w * h} cells)")
    return w, h, tuple(_int(p, f"point of cell {i}", -1000, 1000) for i, p in enumerate(pts))


def _xy(v: Any, what: str) -> tuple[int, int]:
    d = _dict(v, what)
    return _int(d.get("x"), f"{what} x"), _int(d.get("y"), f"{what} y")


def _agents(v: Any, what: str, n_agent: int | None, w: int, h: int, *, inside: bool = True) -> tuple[tuple[int, int], ...]:
    """A player's agent positions; ``n_agent`` None: any number; ``inside`` False: positions off the field
    are kept (a v1 game's final positions, compared with the replay)."""
    agents = tuple(_xy(a, f"{what} agent {i}") for i, a in enumerate(_list(v, f"{what} agents", MAX_AGENTS)))
    if n_agent is not None and len(agents) != n_agent:
        raise GameLogError(f"{what} has {len(agents)} agents, the game has {n_agent}")
    for i, (x, y) in enumerate(agents):
        if inside and (x, y) != (-1, -1) and not (0 <= x < w and 0 <= y < h):
            raise GameLogError(f"{what} agent {i} stands at ({x}, {y}), outside the {w}×{h} field")
    return agents


def _owner(v: Any, what: str, n_player: int) -> int:
    if v is None:
        return NOBODY
    o = _int(v, what)
    if o == -1:
        return NOBODY
    if not 0 <= o < n_player:
        raise GameLogError(f"{what} is player {o}; the game has {n_player} players")
    return o


def _point(v: Any, what: str, area_key: str, wall_key: str) -> tuple[int, int]:
    d = _dict(v, what)
    return _int(d.get(area_key), f"{what} {area_key}"), _int(d.get(wall_key), f"{what} {wall_key}")


# ---- API v1 -----------------------------------------------------------------------------


def from_v1(doc: Any) -> GameLog:
    """A v1 Game JSON object as a :class:`GameLog` (raises :class:`GameLogError`).

    Contradictions between readable parts are read past as the log shows them and kept in
    ``notes`` (see the module docstring and ``docs/rules/kakomimasu.md``)."""
    d = _dict(doc, "game")
    gid = d.get("id")
    if not isinstance(gid, str) or not gid:
        raise GameLogError("game has no id")
    if len(gid) > 200:
        raise GameLogError("game id is longer than 200 characters")
    notes: list[LogNote] = []
    n_player = _int(d.get("nPlayer", 2), "nPlayer", 1, MAX_PLAYERS)
    n_agent = _int(d.get("nAgent", 4), "nAgent", 0, MAX_AGENTS)
    total = _opt_int(d.get("totalTurn"), "totalTurn", 0, MAX_TURNS)
    raw_players = _list(d.get("players") or [], "players", MAX_PLAYERS)
    fld = d.get("field")
    w = h = None
    pts = None
    final_kinds = final_owners = None
    bad_tiles: str | None = None  # why the final tiles are left out
    if fld is not None:
        f = _dict(fld, "field")
        w, h, pts = _size(f.get("width"), f.get("height"), f.get("points"))
        tiles = f.get("tiles")
        if tiles is not None:
            tl = _list(tiles, "field tiles", MAX_SIDE * MAX_SIDE * 4)
            kinds, owners = [], []
            for i, t in enumerate(tl):
                td = _dict(t, f"tile {i}")
                kinds.append(_int(td.get("type"), f"tile {i} type", 0, 1))
                o = _opt_int(td.get("player"), f"tile {i} player", -1, MAX_INT)
                owners.append(NOBODY if o is None else o)  # an owner who is not a player: a final-tiles finding
            if len(tl) != w * h:
                bad_tiles = f"the final field tiles have {len(tl)} entries for a {w}×{h} field ({w * h} cells)"
            else:
                final_kinds, final_owners = tuple(kinds), tuple(owners)
    players: list[Player] = []
    final_agents: list[tuple[tuple[int, int], ...]] = []
    final_points: list[tuple[int, int] | None] = []
    for i, p in enumerate(raw_players):
        pd = _dict(p, f"player {i}")
        pid = pd.get("id")
        if not isinstance(pid, str):
            raise GameLogError(f"player {i} id is not a string ({_show(pid)})")
        players.append(Player(pid, _opt_str(pd.get("type"), f"player {i} type"), _opt_str(pd.get("spec"), f"player {i} spec")))
        if w is not None and h is not None and "agents" in pd:
            # positions off the field are kept: the end check reports them against the replay
            final_agents.append(_agents(pd["agents"], f"player {i}", None, w, h, inside=False))
        point = pd.get("point")
        final_points.append(None if point is None else _point(point, f"player {i} point", "areaPoint", "wallPoint"))
    log = _list(d.get("log") or [], "log", MAX_TURNS)
    if log and pts is None:
        raise GameLogError("the game has a log but no field")
    if len(players) > n_player or (log and players and len(players) < n_player):  # the players listed are the game's
        notes.append(LogNote("kakomimasu-player-count", 1 if log else None,
                             f"nPlayer is {n_player}, but the game lists {len(players)} players; "
                             f"replayed with {len(players)}", expected=str(len(players)), actual=str(n_player)))  # fmt: skip
        n_player = len(players)
    turns, rows = [], []
    for t, entry in enumerate(log, 1):
        turn, n_rows = _v1_turn(entry, t, len(players))
        turns.append(turn)
        rows.append(n_rows)
    odd = [t for t, n in enumerate(rows, 1) if n != len(players)]
    if odd:  # the game's players are the ones listed: one note for the cause, at its first turn
        t, n = odd[0], rows[odd[0] - 1]
        also = f" ({len(odd)} turns do not have {len(players)})" if len(odd) > 1 else ""
        notes.append(LogNote("kakomimasu-player-count", t,
                             f"log turn {t} has {n} player row{'' if n == 1 else 's'}, the game has {len(players)} players{also}; "
                             "a missing player's actions are taken from the turns after (else it sends nothing), "
                             "rows past the players are not replayed",
                             expected=str(len(players)), actual=str(n)))  # fmt: skip
    n_agent = _agent_count(n_agent, final_agents, turns, notes)
    if total is not None and len(turns) > max(total, 0):
        turns = _extra_turns(turns, total, notes)
    status = _opt_str(d.get("status"), "status")
    counter = _opt_int(d.get("turn"), "turn", 0, MAX_TURNS)
    _turn_counter(counter, status, total, len(log), notes)
    if bad_tiles is not None:
        notes.append(LogNote("kakomimasu-final-tiles", len(turns) or None,
                             f"{bad_tiles}: they are not compared with the replay"))  # fmt: skip
    return GameLog(
        game_id=gid, format=V1, name=_opt_str(d.get("name"), "name"), kind=_opt_str(d.get("type"), "type"),
        status=status, width=w, height=h, points=pts, n_player=n_player,
        n_agent=n_agent, total_turn=total, turn=counter,
        started_at=_opt_num(d.get("startedAtUnixTime"), "startedAtUnixTime"),
        operation_sec=_opt_num(d.get("operationSec"), "operationSec"),
        transition_sec=_opt_num(d.get("transitionSec"), "transitionSec"),
        players=tuple(players), turns=tuple(turns), final_kinds=final_kinds, final_owners=final_owners,
        final_agents=tuple(final_agents) if final_agents and len(final_agents) == len(players) else None,
        final_points=tuple(final_points) if players else None, notes=tuple(notes),
    )  # fmt: skip


def _agent_count(n_agent: int, final_agents: list[tuple[tuple[int, int], ...]], turns: list[Turn],
                 notes: list[LogNote]) -> int:  # fmt: skip
    """The number of agents per player the log shows: the players' agent lists (the server's own), or
    without them the agents whose actions the log gives as successful.  Where it differs from
    ``nAgent`` the replay uses it and a note reports ``nAgent``, at the first turn with an action for
    an agent between the two counts (else the last turn)."""
    sizes = sorted({len(a) for a in final_agents})
    if sizes:
        shown = sizes[-1]
        source = (f"each player's agents list has {shown} agents" if len(sizes) == 1
                  else f"the players' agents lists have {' / '.join(str(len(a)) for a in final_agents)}")  # fmt: skip
    else:
        ok = [a.agent_id for tr in turns for acts, res in zip(tr.actions, tr.res, strict=False)
              for a, r in zip(acts, res, strict=False) if r == 0 and 0 <= a.agent_id < MAX_AGENTS]  # fmt: skip
        shown = max(ok, default=-1) + 1
        if shown <= n_agent:
            return n_agent
        source = f"the log has successful actions of agent {shown - 1}"
    if shown == n_agent and len(sizes) <= 1:
        return n_agent
    lo, hi = sorted((n_agent, shown))
    acts = next((t for t, tr in enumerate(turns, 1) for row in tr.actions for a in row if lo <= a.agent_id < hi), None)
    which = f"agent {lo}" if hi - lo == 1 else f"agents {lo}–{hi - 1}"
    notes.append(LogNote("kakomimasu-agent-count", acts or len(turns) or None,
                         f"nAgent is {n_agent}, but {source}" + (f" ({which} first acts at turn {acts})" if acts else "")
                         + f"; replayed with {shown} agents per player",
                         expected=str(shown), actual=str(n_agent)))  # fmt: skip
    return shown


def _turn_counter(counter: int | None, status: str | None, total: int | None, logged: int, notes: list[LogNote]) -> None:
    """The top-level ``turn`` against the turns logged: an ended game is at its last logged turn, a game
    still playing at the turn after it.  A counter that agrees with ``totalTurn`` is left to the turns
    check (a log short of turns: a missing turn, reported where it is missing); one note, with the
    end-of-game findings."""
    if counter is None or status not in ("ended", "gaming"):
        return
    playing = logged + (status == "gaming")
    if counter == playing or (status == "ended" and counter == total):
        return
    notes.append(LogNote("kakomimasu-turns", None,
                         f"the game is {status} at turn {counter}, but its log holds {logged} turn{'' if logged == 1 else 's'}"
                         + (f" (totalTurn {total})" if total is not None else "")
                         + f": turn {playing} expected", expected=str(playing), actual=str(counter)))  # fmt: skip


def _extra_turns(turns: list[Turn], total: int, notes: list[LogNote]) -> list[Turn]:
    """A log with more turns than ``totalTurn``: a turn that repeats the turn before it exactly is a copy
    and is skipped (as many as there are turns too many); any turns still too many are replayed as
    logged.  One note per skipped copy, one for the turns replayed past ``totalTurn``."""
    n = len(turns)
    excess = n - max(total, 0)
    kept: list[Turn] = []
    for t, tr in enumerate(turns, 1):
        if excess and kept and tr == kept[-1]:
            excess -= 1
            notes.append(LogNote("kakomimasu-turns", len(kept) + 1,
                                 f"the log has {n} turns, more than totalTurn {total}: logged turn {t} repeats "
                                 f"turn {t - 1} exactly and is skipped as a copy",
                                 expected=str(total), actual=str(n)))  # fmt: skip
            continue
        kept.append(tr)
    if excess:
        first = max(total, 0) + 1
        notes.append(LogNote("kakomimasu-turns", first,
                             f"the log has {n} turns, more than totalTurn {total}: "
                             + (f"turn {first}" if len(kept) == first else f"turns {first}–{len(kept)}")
                             + " replayed as logged", expected=str(total), actual=str(n)))  # fmt: skip
    return kept


def _v1_turn(entry: Any, t: int, n_players: int) -> tuple[Turn, int]:
    """One logged turn, fitted to the game's players (a missing row: nothing sent), and its number of rows."""
    e = _dict(entry, f"log turn {t}")
    rows = _list(e.get("players"), f"log turn {t} players", MAX_PLAYERS)
    actions, res, points = [], [], []
    for p, row in enumerate(rows):
        rd = _dict(row, f"log turn {t} player {p}")
        acts, codes = [], []
        for k, a in enumerate(_list(rd.get("actions") or [], f"log turn {t} player {p} actions", MAX_ACTIONS)):
            what = f"log turn {t} player {p} action {k}"
            ad = _dict(a, what)
            acts.append(Action(_int(ad.get("agentId"), f"{what} agentId"), _int(ad.get("type"), f"{what} type"),
                               _int(ad.get("x"), f"{what} x"), _int(ad.get("y"), f"{what} y")))  # fmt: skip
            codes.append(_opt_int(ad.get("res"), f"{what} res", 0, 5))
        actions.append(tuple(acts))
        res.append(tuple(codes))
        point = rd.get("point")
        points.append(None if point is None else _point(point, f"log turn {t} player {p} point", "areaPoint", "wallPoint"))
    for _ in range(len(rows), n_players):
        actions.append(())
        res.append(())
        points.append(None)
    return Turn(tuple(actions[:n_players]), tuple(res[:n_players]), tuple(points[:n_players]), len(rows)), len(rows)


# ---- 2020 snapshots ------------------------------------------------------------------------


def snapshot_game_id(doc: Any) -> str:
    gid = _dict(doc, "snapshot").get("gameId")
    if not isinstance(gid, str) or not gid or len(gid) > 200:
        raise GameLogError("snapshot has no usable gameId")
    return gid


def from_snapshots(docs: Iterable[Any]) -> GameLog:
    """The 2020 snapshots of one game (any order, duplicates of a turn allowed if equal)."""
    shots: dict[int, Snapshot] = {}
    head: dict[str, Any] | None = None
    geometry: tuple[int, int, tuple[int, ...]] | None = None
    n_player = n_agent = 0
    ids: tuple[str, ...] = ()
    for doc in docs:
        d = _dict(doc, "snapshot")
        board = d.get("board") if isinstance(d.get("board"), dict) else d  # the client_deno file is flat
        w, h, pts = _size(board.get("width"), board.get("height"), board.get("points"))
        players = _list(d.get("players"), "snapshot players", MAX_PLAYERS)
        if not players:
            raise GameLogError("snapshot has no players")
        agents = [_list(_dict(p, "snapshot player").get("agents"), "snapshot player agents", MAX_AGENTS) for p in players]
        if geometry is None:
            geometry, head = (w, h, pts), d
            n_player, n_agent = len(players), len(agents[0])
            ids = tuple(str(_dict(p, "player").get("id", "")) for p in players)
        elif geometry != (w, h, pts) or len(players) != n_player:
            raise GameLogError(f"snapshots of game {d.get('gameId')} disagree on the board or the players")
        turn = _int(d.get("turn"), "snapshot turn", 0, MAX_TURNS)
        tiled = _list(d.get("tiled"), "snapshot tiled")
        if len(tiled) != w * h:
            raise GameLogError(f"snapshot tiled has {len(tiled)} cells for a {w}×{h} field")
        kinds, owners = [], []
        for i, cell in enumerate(tiled):
            c = _list(cell, f"tiled cell {i}")
            if len(c) != 2:
                raise GameLogError(f"tiled cell {i} is not [type, owner]")
            kinds.append(_int(c[0], f"tiled cell {i} type", AREA, WALL))
            owners.append(_owner(c[1], f"tiled cell {i} owner", n_player))
        shot = Snapshot(
            turn, tuple(kinds), tuple(owners),
            tuple(_agents(a, f"snapshot player {p}", n_agent, w, h) for p, a in enumerate(agents)),
            tuple(_point(_dict(p, "player").get("point"), f"snapshot player {i} point", "basepoint", "wallpoint")
                  for i, p in enumerate(players)),
        )  # fmt: skip
        old = shots.get(turn)
        if old is not None and old != shot:
            raise GameLogError(f"two different snapshots of turn {turn}")
        shots[turn] = shot
    if head is None or geometry is None:
        raise GameLogError("no snapshot")
    w, h, pts = geometry
    ordered = tuple(shots[t] for t in sorted(shots))
    total = _opt_int(head.get("totalTurn"), "totalTurn", 0, MAX_TURNS)
    return GameLog(
        game_id=snapshot_game_id(head), format=LEGACY, name=None, kind=None,
        status="ended" if total is not None and ordered[-1].turn >= total else "gaming",
        width=w, height=h, points=pts, n_player=n_player, n_agent=n_agent, total_turn=total,
        turn=ordered[-1].turn, started_at=_opt_num(head.get("startedAtUnixTime"), "startedAtUnixTime"),
        operation_sec=None, transition_sec=None, players=tuple(Player(i) for i in ids),
        final_kinds=ordered[-1].kinds, final_owners=ordered[-1].owners, final_agents=ordered[-1].agents,
        final_points=ordered[-1].points, snapshots=ordered,
    )  # fmt: skip


def boards_from(doc: Any) -> list[dict[str, Any]]:
    """A board set (``boards.json``: name → board) as checked rows."""
    out = []
    for key, b in _dict(doc, "board set").items():
        bd = _dict(b, f"board {key}")
        w, h, pts = _size(bd.get("width"), bd.get("height"), bd.get("points"))
        out.append({
            "name": str(bd.get("name") or key), "width": w, "height": h, "points": list(pts),
            "n_agent": _opt_int(bd.get("nAgent"), "nAgent", 0, MAX_AGENTS),
            "n_player": _opt_int(bd.get("nPlayer"), "nPlayer", 1, MAX_PLAYERS),
            "total_turn": _opt_int(bd.get("totalTurn"), "totalTurn", 0, MAX_TURNS),
            "operation_sec": _opt_num(bd.get("operationSec"), "operationSec"),
        })  # fmt: skip
    return out
