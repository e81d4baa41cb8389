"""Reading the CHaser server's "Stable Log" and ``.map`` files into plain data.

The official Qt server (``u16procon/chaser-server``) writes one text log per game: a header
(players' names), the map as it was at the start (``N:``/``T:``/``S:``/``D:``/``C:``/``H:``
rows), then per round ``-----残Nターン-----`` and per action ``[行動]<TEAM>が<Action><Dir>を
行いました。`` followed by ``<TEAM>:<10 digits>`` (game-on flag + the 3×3 around the player
after the action), with ``[取得]``/``[停止]``/``[死因]``/``[情報]``/``[得点]``/``[終了]``/
``[決着]`` lines around them.  Lines end with CRLF or LF (both occur in one file); older
Windows servers wrote Shift_JIS.  Unknown lines are kept and counted, never fatal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FLOOR, TARGET, BLOCK, ITEM = 0, 1, 2, 3
TEAMS = ("COOL", "HOT")
ACTIONS = {"Walk": "walk", "Look": "look", "Search": "search", "Put": "put"}
DIRECTIONS = {"Up": "up", "Down": "down", "Left": "left", "Right": "right"}
MAX_SIDE = 200  # the rules use 15×17; a map wider or taller is not a CHaser map
MAX_LINE = 64 * 1024


class ChaserLogError(ValueError):
    """Text that is not a CHaser log or map Kifu can replay; the message says why."""


@dataclass(frozen=True, slots=True)
class ChaserMap:
    name: str | None
    turns: int | None
    width: int
    height: int
    cells: tuple[int, ...]  # row-major (index = y * width + x): 0 floor, 2 block, 3 item
    starts: tuple[tuple[int, int], tuple[int, int]]  # COOL, HOT


@dataclass(frozen=True, slots=True)
class Entry:
    """One meaningful log line, in file order."""

    line: int
    kind: str  # round | action | digits | taken | stop | death | info | score | end | result
    team: str | None = None  # COOL | HOT
    value: str | None = None  # round: remaining; action: the logged name; digits; stop/death: the text; result: COOL|HOT|DRAW
    action: str | None = None  # walk | look | search | put (None: the server printed no method name)
    direction: str | None = None  # up | down | left | right (None: no direction name printed)
    scores: tuple[int, int] | None = None  # [得点] COOL, HOT


@dataclass(frozen=True, slots=True)
class ChaserLog:
    cool_name: str | None
    hot_name: str | None
    map: ChaserMap
    entries: tuple[Entry, ...]
    unknown_lines: tuple[tuple[int, str], ...] = field(default=())
    started: str | None = None  # the first timestamp, yyyyMMddhhmmss as written

    @property
    def result(self) -> str | None:
        """COOL, HOT or DRAW from ``[決着]``; None when the log stops before it (cut off)."""
        for e in reversed(self.entries):
            if e.kind == "result":
                return e.value
        return None


def decode(data: bytes) -> str:
    """UTF-8 (with or without BOM), else Shift_JIS (older Windows servers)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return data.decode("cp932")
        except UnicodeDecodeError as exc:
            raise ChaserLogError(f"neither UTF-8 nor Shift_JIS text (byte {exc.start})") from None


def looks_like_log(head: bytes) -> bool:
    """Whether the first bytes of a file are a CHaser server log."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"--Stable Log--")


def looks_like_map(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text[:2] in (b"N:", b"T:", b"S:", b"D:") and b"\nD:" in text


_TS = re.compile(r"^\[(\d{14})\]")
_ROUND = re.compile(r"^-----残(-?\d+)ターン-----$")
_ACTION = re.compile(r"^\[行動\](COOL|HOT)が(Walk|Look|Search|Put|GetReady)?(Up|Down|Left|Right)?を行いました。$")
_DIGITS = re.compile(r"^(COOL|HOT):(.*)$")
_TAKEN = re.compile(r"^\[取得\](COOL|HOT)がアイテムを取得しました。$")
_STOP = re.compile(r"^\[停止\](COOL|HOT)(?:が|の)(.*)$")
_DEATH = re.compile(r"^\[死因\](COOL|HOT)(ブロック下敷き|ブロック囲まれ|通信切断)$")
_SCORE = re.compile(r"^\[得点\]COOL:(\d+)\s+HOT:(\d+)\s*$")
_END = re.compile(r"^\[終了\](COOL|HOT)との通信が切断されています。$")
_RESULT = re.compile(r"^\[決着\](?:(COOL|HOT)が勝利しました。|(引き分けです。))$")
_PLAYER = re.compile(r"^\[ (Cool|Hot)\s+Player : Name = (.*?) , IP = .* \]$")


def _int(text: str, what: str, lo: int, hi: int) -> int:
    try:
        v = int(text.strip())
    except ValueError:
        raise ChaserLogError(f"{what} is not a number ({text.strip()[:20]!r})") from None
    if not lo <= v <= hi:
        raise ChaserLogError(f"{what} is {v}, outside {lo}…{hi}")
    return v


def parse_map(lines: list[str]) -> ChaserMap:
    """The ``N:``/``T:``/``S:``/``D:``/``C:``/``H:`` rows of a map file or a log's map block."""
    name = turns = size = None
    rows: list[list[int]] = []
    starts: dict[str, tuple[int, int]] = {}
    for raw in lines:
        s = raw.strip()
        if len(s) < 2 or s[1] != ":":
            continue
        key, value = s[0], s[2:]
        if key == "N":
            name = value
        elif key == "T":
            turns = _int(value, "map turns", 0, 100_000)
        elif key == "S":
            parts = value.split(",")
            if len(parts) != 2:
                raise ChaserLogError(f"map size {value[:20]!r} is not <width>,<height>")
            size = (_int(parts[0], "map width", 1, MAX_SIDE), _int(parts[1], "map height", 1, MAX_SIDE))
        elif key == "D":
            if not value.strip():
                raise ChaserLogError(f"map row {len(rows) + 1} has no cells (0 columns)")
            cells = value.split(",")
            if len(cells) > MAX_SIDE:
                raise ChaserLogError(f"map row {len(rows) + 1} has {len(cells):,} cells, more than {MAX_SIDE}")
            row = [_int(c, f"map row {len(rows) + 1} cell", 0, 3) for c in cells]
            if any(c == TARGET for c in row):
                raise ChaserLogError(f"map row {len(rows) + 1} holds a player cell (1)")
            rows.append(row)
            if len(rows) > MAX_SIDE:
                raise ChaserLogError(f"map has more than {MAX_SIDE} rows")
        elif key in "CH":
            parts = value.split(",")
            if len(parts) != 2:
                raise ChaserLogError(f"start {s[:20]!r} is not <x>,<y>")
            starts[key] = (_int(parts[0], f"{key} start x", 0, MAX_SIDE), _int(parts[1], f"{key} start y", 0, MAX_SIDE))
    if not rows:
        raise ChaserLogError("map has no D: rows")
    width = len(rows[0])
    if width == 0 or any(len(r) != width for r in rows):
        raise ChaserLogError("map rows have different lengths")
    height = len(rows)
    if size is not None and size != (width, height):
        raise ChaserLogError(f"map size says {size[0]}×{size[1]} but the rows are {width}×{height}")
    if "C" not in starts or "H" not in starts:
        raise ChaserLogError("map has no C: or H: start")
    for key, (x, y) in starts.items():
        if not (0 <= x < width and 0 <= y < height):
            raise ChaserLogError(f"{key} start ({x}, {y}) is outside the {width}×{height} map")
    return ChaserMap(name, turns, width, height, tuple(c for r in rows for c in r), (starts["C"], starts["H"]))


def parse_log(text: str) -> ChaserLog:
    """A whole server log (raises :class:`ChaserLogError` when it is not one or its map is unusable)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].lstrip("\ufeff").strip() != "--Stable Log--":
        raise ChaserLogError("not a CHaser server log (no '--Stable Log--' first line)")
    names: dict[str, str] = {}
    map_lines: list[str] | None = None
    in_map = False
    entries: list[Entry] = []
    unknown: list[tuple[int, str]] = []
    started: str | None = None
    for no, raw in enumerate(lines[1:], 2):
        if len(raw) > MAX_LINE:
            unknown.append((no, raw[:200] + "…"))
            continue
        line = raw.strip()
        if in_map:
            if line == "]":
                in_map = False
            else:
                map_lines.append(line)  # type: ignore[union-attr]
            continue
        if not line:
            continue
        if line.startswith("[ Map :"):
            in_map, map_lines = True, []
            rest = line[len("[ Map :"):].strip()
            if rest:
                map_lines.append(rest)
            continue
        m = _PLAYER.match(line)
        if m:
            names[m.group(1).upper()] = m.group(2)
            continue
        if line.startswith("[ Music :"):
            continue
        ts = _TS.match(line)
        if ts:
            started = started or ts.group(1)
            line = line[ts.end():]
        e = _entry(no, line)
        if e is None:
            unknown.append((no, raw.strip()[:200]))
        else:
            entries.append(e)
    if map_lines is None:
        raise ChaserLogError("the log has no map block ('[ Map :')")
    if in_map:
        raise ChaserLogError("the log's map block is not closed (cut off in the header)")
    return ChaserLog(names.get("COOL"), names.get("HOT"), parse_map(map_lines), tuple(entries), tuple(unknown), started)


def _entry(no: int, line: str) -> Entry | None:
    m = _ROUND.match(line)
    if m:
        return Entry(no, "round", value=m.group(1))
    m = _ACTION.match(line)
    if m:
        act, d = m.group(2), m.group(3)
        return Entry(no, "action", m.group(1), (act or "") + (d or ""), ACTIONS.get(act or ""), DIRECTIONS.get(d or ""))
    m = _DIGITS.match(line)
    if m:
        return Entry(no, "digits", m.group(1), m.group(2))
    m = _TAKEN.match(line)
    if m:
        return Entry(no, "taken", m.group(1))
    m = _STOP.match(line)
    if m:
        return Entry(no, "stop", m.group(1), m.group(2))
    m = _DEATH.match(line)
    if m:
        return Entry(no, "death", m.group(1), m.group(2))
    if line.startswith("[情報]"):
        return Entry(no, "info", value=line[4:])
    if line.startswith("セットアップ完了"):
        return Entry(no, "setup")
    m = _SCORE.match(line)
    if m:
        return Entry(no, "score", scores=(int(m.group(1)), int(m.group(2))))
    m = _END.match(line)
    if m:
        return Entry(no, "end", m.group(1))
    m = _RESULT.match(line)
    if m:
        return Entry(no, "result", value=m.group(1) or "DRAW")
    return None
