"""The CHaser board as the official server runs it: walk, look, search, put, items, deaths.

Written from the rulebook (U-16 旭川プロコン 競技部門ルール細則) and the official server's
documented behaviour (``u16procon/chaser-server``):

* Walk moves one cell, whatever is there (a block or the outside kills the walker: a block is
  "on" it).  Walking onto an item takes it (+1) and turns the cell walked *from* into a block.
* Put turns the neighbouring cell (inside the map) into a block — on the opponent it kills,
  on an item it destroys the item (the server still logs ``[取得]`` for the putter, no point).
* Look / Search change nothing.  A method or direction the server does not know does nothing
  (a Put with no direction puts the block on the player itself) and disconnects the player.
* After every action the server judges both players, the *opponent first*: a block on the
  player, then its four sides all blocks (the outside counts as block, the other player does
  not), then a broken connection; the first death found ends the game.  So a Put that kills
  the opponent and walls the putter in wins ("勝利条件を優先").  At time-up the items decide
  (equal: a draw).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.chaser.log import BLOCK, FLOOR, ITEM, TARGET, ChaserMap

COOL, HOT = 0, 1
VECTORS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0), None: (0, 0)}


@dataclass(frozen=True, slots=True)
class State:
    width: int
    height: int
    cells: tuple[int, ...]
    pos: tuple[tuple[int, int], tuple[int, int]]
    items: tuple[int, int] = (0, 0)
    left: int = 0  # items still on the map

    @classmethod
    def start(cls, m: ChaserMap) -> State:
        return cls(m.width, m.height, m.cells, m.starts, (0, 0), sum(1 for c in m.cells if c == ITEM))

    def at(self, x: int, y: int, team: int) -> int:
        """What ``team`` sees at (x, y): 2 outside, 1 the other player, else the cell."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            return BLOCK
        if self.pos[1 - team] == (x, y):
            return TARGET
        return self.cells[y * self.width + x]

    def around(self, team: int, center: tuple[int, int] | None = None) -> str:
        """The nine digits around a player (row-major from the top-left), as the log writes them."""
        cx, cy = center or self.pos[team]
        return "".join(str(self.at(cx + dx, cy + dy, team)) for dy in (-1, 0, 1) for dx in (-1, 0, 1))


@dataclass(frozen=True, slots=True)
class Outcome:
    state: State
    picked: bool = False  # walked onto an item: +1
    taken: bool = False  # an item left the map (the server's [取得] line): picked, or put on
    seen: tuple[tuple[int, int], ...] = ()  # cells looked at / searched


def act(s: State, team: int, action: str | None, direction: str | None) -> Outcome:
    dx, dy = VECTORS.get(direction, (0, 0))
    x, y = s.pos[team]
    if action == "walk":
        nx, ny = x + dx, y + dy
        pos = list(s.pos)
        pos[team] = (nx, ny)
        cells, items, left = s.cells, list(s.items), s.left
        picked = False
        if 0 <= nx < s.width and 0 <= ny < s.height and s.cells[ny * s.width + nx] == ITEM and (dx, dy) != (0, 0):
            c = list(cells)
            c[ny * s.width + nx] = FLOOR
            px, py = nx - dx, ny - dy
            if 0 <= px < s.width and 0 <= py < s.height:
                c[py * s.width + px] = BLOCK
            cells, picked = tuple(c), True
            items[team] += 1
            left -= 1
        return Outcome(State(s.width, s.height, cells, (pos[0], pos[1]), (items[0], items[1]), left), picked, picked)
    if action == "put":
        tx, ty = x + dx, y + dy
        if not (0 <= tx < s.width and 0 <= ty < s.height):
            return Outcome(s)
        i = ty * s.width + tx
        was_item = s.cells[i] == ITEM
        c = list(s.cells)
        c[i] = BLOCK
        return Outcome(State(s.width, s.height, tuple(c), s.pos, s.items, s.left - (1 if was_item else 0)), False, was_item)
    if action == "look":
        cx, cy = x + 2 * dx, y + 2 * dy
        return Outcome(s, seen=tuple((cx + ddx, cy + ddy) for ddy in (-1, 0, 1) for ddx in (-1, 0, 1)))
    if action == "search":
        return Outcome(s, seen=tuple((x + dx * k, y + dy * k) for k in range(1, 10)))
    return Outcome(s)


def death(s: State, team: int) -> str | None:
    """'block' (a block on the player), 'surrounded' (four sides blocks) or None."""
    x, y = s.pos[team]
    if s.at(x, y, team) == BLOCK:
        return "block"
    if all(s.at(x + dx, y + dy, team) == BLOCK for dx, dy in ((0, -1), (-1, 0), (1, 0), (0, 1))):
        return "surrounded"
    return None


def judge(s: State, acting: int, disconnected: tuple[bool, bool]) -> tuple[int, str] | None:
    """The first death the server finds after ``acting`` moved: (team, 'block'|'surrounded'|'disconnected')."""
    for team in (1 - acting, acting):
        why = death(s, team)
        if why is None and disconnected[team]:
            why = "disconnected"
        if why is not None:
            return team, why
    return None
