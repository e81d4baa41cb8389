"""Reading the CHaser server's "Stable Log" and ``.map`` files into plain data.

The official Qt server (``u16procon/chaser-server``) writes one text log per game: a header
(players' names), the map as it was at the start (``N:``/``T:``/``S:``/``D:``/``C:``/``H:``
rows), then per round ``-----残Nターン-----`` and per action ``[行動]<TEAM>が<Action><Dir>を
行いました。`` followed by ``<TEAM>:<10 digits>`` (game-on flag + the 3×3 around the player
after the action), with ``[取得]``/``[停止]``/``[死因]``/``[情報]``/``[得点]``/``[終了]``/
``[決着]`` lines around them.  Lines end with CRLF or LF (both occur in one file); older
Windows servers wrote Shift_JIS.  The server's own messages (``Warning : …``, ``Critical
Error : …``) may come anywhere: they are kept and counted.

Every other line must be one the server writes, where it writes it (:class:`_Reader`): a
line that is not text, that no server writes, or that is out of place (a 3×3 with no action
before it, an action with no 3×3 after it, Cool acting twice, a second round header…) is the
log's first bad line.  Before the first round header (the header, the map) it makes the file
unusable (:class:`ChaserLogError`, the line and why); after it the log is *cut* there
(:attr:`ChaserLog.cut`): the game is read up to the last action whose block is whole, and
nothing from the bad line on.
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
BOM = b"\xef\xbb\xbf"


class ChaserLogError(ValueError):
    """Text that is not a CHaser log or map Kifu can replay; the message says why (``line``: where)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


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
    kind: str  # setup | round | action | digits | taken | stop | death | info | score | end | result
    team: str | None = None  # COOL | HOT
    value: str | None = None  # round: remaining; action: the logged name; digits; stop/death: the text; result: COOL|HOT|DRAW
    action: str | None = None  # walk | look | search | put (None: the server printed no method name)
    direction: str | None = None  # up | down | left | right (None: no direction name printed)
    scores: tuple[int, int] | None = None  # [得点] COOL, HOT


@dataclass(frozen=True, slots=True)
class Cut:
    """Where a log stops being the server's text: its first bad line (1-based, as an editor numbers the
    file's lines) and what is wrong with it.  Everything before the line is read, nothing from it on."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


@dataclass(frozen=True, slots=True)
class ChaserLog:
    cool_name: str | None
    hot_name: str | None
    map: ChaserMap
    entries: tuple[Entry, ...]
    unknown_lines: tuple[tuple[int, str], ...] = field(default=())  # the server's own messages (Warning : …)
    started: str | None = None  # the first timestamp, yyyyMMddhhmmss as written
    cut: Cut | None = None  # the first bad line: the log is read up to it (None: every line read)

    @property
    def result(self) -> str | None:
        """COOL, HOT or DRAW from ``[決着]``; None when the log stops before it (cut off)."""
        for e in reversed(self.entries):
            if e.kind == "result":
                return e.value
        return None

    @property
    def last_turn(self) -> int:
        """The turn (round, counting up from 1) of the last action read; 0 when there is none."""
        turn = last = 0
        for e in self.entries:
            if e.kind == "round":
                turn += 1
            elif e.kind == "action":
                last = turn
        return last


# ---- bytes to text ---------------------------------------------------------------------------------

#: What Python's cp932 makes of the single bytes 0x80, 0xa0, 0xfd-0xff: no character in Shift_JIS.
_SJIS_STRAY = re.compile("[\x80\uf8f0-\uf8f3]")


def _encoding(lines: list[bytes]) -> str:
    """UTF-8 when most lines with non-ASCII bytes are UTF-8 (a UTF-8 log with a bad byte), else Shift_JIS:
    Shift_JIS text is almost never valid UTF-8, while UTF-8 text often decodes as (wrong) Shift_JIS."""
    good = bad = 0
    for raw in lines:
        if raw.isascii():
            continue
        try:
            raw.decode("utf-8")
            good += 1
        except UnicodeDecodeError:
            bad += 1
    return "utf-8" if good >= bad else "cp932"


def _decode_line(raw: bytes, encoding: str, last: bool) -> tuple[str, None] | tuple[None, str]:
    name = "UTF-8" if encoding == "utf-8" else "Shift_JIS"
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        if last and exc.end == len(raw) and exc.reason in ("unexpected end of data",
                                                           "incomplete multibyte sequence"):  # fmt: skip
            return None, f"the file ends in the middle of this line, inside a {name} character"
        return None, f"not {name} text (byte {exc.start + 1} of the line is 0x{raw[exc.start]:02x})"
    if encoding == "cp932":
        m = _SJIS_STRAY.search(text)
        if m:
            at = len(text[: m.start()].encode("cp932"))
            return None, f"not {name} text (byte {at + 1} of the line is 0x{raw[at]:02x})"
    return text, None


def decode_lines(data: bytes) -> tuple[str, Cut | None]:
    """The text of a log or map file: UTF-8 (with or without BOM), else Shift_JIS (older Windows servers).

    When a line is not text in the file's encoding, the text stops before that line (each line kept
    ends with a line feed) and the :class:`Cut` says which line it is and why.
    """
    if data.startswith(BOM):
        data = data[3:]
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    lines = data.split(b"\n")  # 0x0a is never part of a Shift_JIS character
    encoding = _encoding(lines)
    out: list[str] = []
    for no, raw in enumerate(lines, 1):
        text, why = _decode_line(raw, encoding, no == len(lines))
        if text is None:
            return "".join(t + "\n" for t in out), Cut(no, why or "")
        out.append(text)
    return "\n".join(out), None


def decode(data: bytes) -> str:
    """The whole text of a file (:func:`decode_lines`); a line that is not text makes it unusable."""
    text, cut = decode_lines(data)
    if cut is not None:
        raise ChaserLogError(str(cut), cut.line)
    return text


def looks_like_log(head: bytes) -> bool:
    """Whether the first bytes of a file are a CHaser server log."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"--Stable Log--")


def looks_like_map(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text[:2] in (b"N:", b"T:", b"S:", b"D:") and b"\nD:" in text


# ---- lines ----------------------------------------------------------------------------------------

_TS = re.compile(r"^\[(\d{14})\]")
_QT = re.compile(r"^(?:Warning|Critical Error|Fatal Error) : ")  # the server's Qt message handler
_ROUND = re.compile(r"^-----残(-?\d+)ターン-----$")
_ACTION = re.compile(r"^\[行動\](COOL|HOT)が(Walk|Look|Search|Put|GetReady)?(Up|Down|Left|Right)?を行いました。$")
_DIGITS = re.compile(r"^(COOL|HOT):([01][0-3]{9})$")  # game-on flag, 3×3: 0 floor, 1 player, 2 block, 3 item
_TAKEN = re.compile(r"^\[取得\](COOL|HOT)がアイテムを取得しました。$")
_STOP = re.compile(r"^\[停止\](COOL|HOT)(?:が|の)(正常にGetReadyを返しませんでした!|二度GetReadyを行いました!|"
                   r"不正なメソッドを呼んでいます！|行動メソッドが不正な方向を示しています！)$")  # fmt: skip
_DEATH = re.compile(r"^\[死因\](COOL|HOT)(ブロック下敷き|ブロック囲まれ|通信切断)$")
_INFO = "[情報]相打ちまたは、タイムアップのためアイテム判定を行います"
_SETUP = "セットアップ完了　ゲームを開始します。"
_SCORE = re.compile(r"^\[得点\]COOL:(\d+)\s+HOT:(\d+)\s*$")
_END = re.compile(r"^\[終了\](COOL|HOT)との通信が切断されています。$")
_RESULT = re.compile(r"^\[決着\](?:(COOL|HOT)が勝利しました。|(引き分けです。))$")
_PLAYER = re.compile(r"^\[ (Cool|Hot)\s+Player : Name = (.*?) , IP = .* \]$")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _quote(text: str, n: int = 60) -> str:
    return repr(text[:n]) + ("…" if len(text) > n else "")


def _unknown(line: str) -> str:
    m = _CONTROL.search(line)
    if m:
        return f"binary data, not text (character {m.start() + 1} is 0x{ord(m.group()):02x})"
    return f"not a line the CHaser server writes: {_quote(line)}"


def _int(text: str, what: str, lo: int, hi: int) -> int:
    try:
        v = int(text.strip())
    except ValueError:
        raise ChaserLogError(f"{what} is not a number ({text.strip()[:20]!r})") from None
    if not lo <= v <= hi:
        raise ChaserLogError(f"{what} is {v}, outside {lo}…{hi}")
    return v


def parse_map(lines: list[str]) -> ChaserMap:
    """The ``N:``/``T:``/``S:``/``D:``/``C:``/``H:`` rows of a map file (other lines are skipped)."""
    return _map(list(enumerate(lines, 1)), strict=False, end=len(lines))


def _map(numbered: list[tuple[int, str]], *, strict: bool, end: int) -> ChaserMap:
    """The map from its numbered lines; an error names the line (``end``, the line after the rows, when it is
    about the whole map).  ``strict`` (a log's map block, written in one piece): an N:, T:, S:, C: or H:
    line given twice is an error."""
    try:
        return _map_rows(numbered, strict)
    except ChaserLogError as exc:
        at = exc.line or end
        raise ChaserLogError(f"line {at}: {exc}", at) from None


def _map_rows(numbered: list[tuple[int, str]], strict: bool) -> ChaserMap:
    name = turns = size = None
    rows: list[list[int]] = []
    starts: dict[str, tuple[int, int]] = {}
    seen: dict[str, int] = {}
    for no, raw in numbered:
        s = raw.strip()
        if len(s) < 2 or s[1] != ":" or s[0] not in "NTSDCH":  # (not in a log's map block: _Reader)
            continue
        key, value = s[0], s[2:]
        if strict and key != "D" and key in seen:
            raise ChaserLogError(f"a second {key}: line in the map (the first is line {seen[key]})", no)
        seen[key] = no
        try:
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
                r = len(rows) + 1
                if not value.strip():
                    raise ChaserLogError(f"map row {r} has no cells (0 columns)")
                cells = value.split(",")
                if len(cells) > MAX_SIDE:
                    raise ChaserLogError(f"map row {r} has {len(cells):,} cells, more than {MAX_SIDE}")
                row = [_int(c, f"map row {r}, cell {i}", 0, 3) for i, c in enumerate(cells, 1)]
                if TARGET in row:
                    raise ChaserLogError(f"map row {r}, cell {row.index(TARGET) + 1} holds a player cell (1)")
                width = size[0] if size is not None else len(rows[0]) if rows else len(row)
                if len(row) != width:
                    said = f"S: (line {seen['S']}) says {width}" if size is not None else f"row 1 has {width}"
                    raise ChaserLogError(f"map row {r} has {len(row)} cells, {said}")
                if size is not None and r > size[1]:
                    raise ChaserLogError(f"map row {r}: S: (line {seen['S']}) says there are {size[1]} rows")
                rows.append(row)
                if len(rows) > MAX_SIDE:
                    raise ChaserLogError(f"map has more than {MAX_SIDE} rows")
            else:  # C or H
                parts = value.split(",")
                if len(parts) != 2:
                    raise ChaserLogError(f"start {s[:20]!r} is not <x>,<y>")
                starts[key] = (_int(parts[0], f"{key} start x", 0, MAX_SIDE),
                               _int(parts[1], f"{key} start y", 0, MAX_SIDE))  # fmt: skip
        except ChaserLogError as exc:
            raise ChaserLogError(str(exc), no) from None
    if not rows:
        raise ChaserLogError("the map has no D: rows")
    width, height = len(rows[0]), len(rows)
    if size is not None and size != (width, height):
        rows_ = f"{height} row{'s' * (height != 1)}"
        raise ChaserLogError(f"the map has {rows_}, S: (line {seen['S']}) says {size[1]}")
    for key in "CH":
        if key not in starts:
            raise ChaserLogError(f"the map has no {key}: start")
        x, y = starts[key]
        if not (0 <= x < width and 0 <= y < height):
            raise ChaserLogError(f"{key} start ({x}, {y}) is outside the {width}×{height} map", seen[key])
    return ChaserMap(name, turns, width, height, tuple(c for r in rows for c in r), (starts["C"], starts["H"]))


def read_log(data: bytes) -> tuple[ChaserLog, str]:
    """A server log's bytes: the log (cut at its first bad line, if any) and the text read — the file's
    text up to that line (raises :class:`ChaserLogError` when no part of the game can be kept)."""
    text, bad = decode_lines(data)
    log = _parse(text, bad)
    if log.cut is None or log.cut is bad:
        return log, text
    lines = text.split("\n")
    return log, "".join(line + "\n" for line in lines[: log.cut.line - 1])


def parse_log(text: str) -> ChaserLog:
    """A whole server log (raises :class:`ChaserLogError` when it is not one, or no part of it can be kept)."""
    return _parse(text, None)


def _parse(text: str, bad: Cut | None) -> ChaserLog:
    lines = text.split("\n")
    if bad is not None and bad.line == 1:
        raise ChaserLogError(str(bad), 1)
    if lines[0].lstrip("\ufeff").strip() != "--Stable Log--":
        raise ChaserLogError("not a CHaser server log (no '--Stable Log--' first line)")
    mid_line = bad is None and not text.endswith("\n")  # the last line has no line end: the file stops in it
    reader = _Reader()
    cut = bad
    for no, raw in enumerate(lines[1:], 2):
        why = reader.feed(no, raw)
        if why is not None:
            if no == len(lines) and mid_line:
                why = f"the file ends in the middle of this line ({_quote(raw.strip())})"
            cut = Cut(no, why)
            break
    return reader.finish(cut)


def _label(e: Entry) -> str:
    return {"round": f"-----残{e.value}ターン-----", "action": f"[行動]{e.team}", "digits": f"{e.team}:{e.value}",
            "taken": f"[取得]{e.team}", "stop": f"[停止]{e.team}", "death": f"[死因]{e.team}{e.value}",
            "info": "[情報]", "score": "[得点]", "end": f"[終了]{e.team}", "result": "[決着]",
            "setup": "セットアップ完了"}[e.kind]  # fmt: skip


class _Reader:
    """The server's log, line by line: :meth:`feed` takes a line and says what is wrong with it (None: nothing).

    The order is the server's (``MainWindow::StepGame``): per round a header, then Cool's block and
    Hot's; a block is ``[取得]`` (at most one) and ``[停止]`` lines, the ``[行動]`` line, and at once its
    3×3 line.  The judge's ``[死因]`` may come before the ``[行動]`` line of the move that caused it
    (one more block after it at most); then ``[情報]``/``[得点]``, ``[終了]`` per side and ``[決着]``,
    the last line.  The server's own messages and blank lines may come anywhere.
    """

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.header: dict[str, int] = {}
        self.map: ChaserMap | None = None
        self.map_at: int | None = None  # the '[ Map :' line while its block is open
        self.map_lines: list[tuple[int, str]] = []
        self.entries: list[Entry] = []
        self.unknown: list[tuple[int, str]] = []
        self.started: str | None = None
        self.turn = 0
        self.expected = "COOL"
        self.header_pending = False  # a round header since Hot's last block: Cool's block may come
        self.open: Entry | None = None  # an action line waiting for its 3×3
        self.taken = False
        self.stops: set[str] = set()
        self.ending: dict[str, int] = {}  # end lines seen ('death', 'info', 'score', 'end-COOL', …) -> line
        self.after_death = 0  # blocks after the [死因] line
        self.decided: int | None = None  # the [決着] line

    def feed(self, no: int, raw: str) -> str | None:
        if len(raw) > MAX_LINE:
            return f"a line of {len(raw):,} characters (a server line is short: binary data?)"
        line = raw.strip()
        if self.map_at is not None:
            if line == "]":
                self.map = _map(self.map_lines, strict=True, end=no)
                self.map_at = None
            elif line and (line[1:2] != ":" or line[:1] not in "NTSDCH"):  # nothing else until ']'
                return (f"{_quote(line)} in the map block (line {self.map_at}) is not a map line "
                        "(N:, T:, S:, D:, C:, H:)")
            elif line:
                self.map_lines.append((no, line))
            return None
        if not line:
            return None
        ts = _TS.match(line)
        body = line[ts.end():] if ts else line
        if ts is not None and _QT.match(body):
            self.started = self.started or ts.group(1)
            self.unknown.append((no, line[:200]))
            return None
        if self.map is None:
            return self._header(no, line)
        if ts is not None:
            self.started = self.started or ts.group(1)
        if self.decided is not None:
            e = _entry(no, body)
            return _unknown(line) if e is None else f"{_label(e)} after [決着] (line {self.decided}), the last one"
        if self.open is not None:
            team = self.open.team
            m = _DIGITS.match(body)
            if m is None or m.group(1) != team:
                return (f"{_quote(line)} where {team}'s 3×3 ({team}:<10 digits>) should follow "
                        f"[行動]{team} (line {self.open.line})")  # fmt: skip
            self.entries += [self.open, Entry(no, "digits", team, m.group(2))]
            self.open, self.taken, self.stops = None, False, set()
            self.expected = "HOT" if team == "COOL" else "COOL"
            if team == "COOL":
                self.header_pending = False
            return None
        e = _entry(no, body)
        if e is None:
            return _unknown(line)
        why = self._out_of_place(e)
        if why is not None:
            return why
        if e.kind == "action":
            self.open = e  # written with its 3×3 line: an action whose block is not whole is not read
        else:
            self.entries.append(e)
        return None

    def _header(self, no: int, line: str) -> str | None:
        if line.startswith("[ Map :"):
            self.map_at = no
            rest = line[len("[ Map :"):].strip()
            if rest:
                self.map_lines.append((no, rest))
            return None
        m = _PLAYER.match(line)
        key = m.group(1) if m else "Music" if line.startswith("[ Music :") and line.endswith("]") else None
        if key is None:
            return _unknown(line)
        if key in self.header:
            return f"a second [ {key} … ] line (the first is line {self.header[key]})"
        self.header[key] = no
        if m:
            self.names[key.upper()] = m.group(2)
        return None

    def _out_of_place(self, e: Entry) -> str | None:
        what, k = _label(e), e.kind
        first_end = min(self.ending.values(), default=None)
        if k == "setup":
            first = self.entries[0] if self.entries else None
            if first is None:
                return None
            if first.kind == "setup":
                return f"{what}: a second such line (the first is line {first.line})"
            return f"{what} after the game started (line {first.line})"
        if k == "round":
            if first_end is not None:
                return f"{what} after the end of the game (line {first_end})"
            if self.expected != "COOL":
                return f"{what} in the middle of turn {self.turn} (HOT has not acted)"
            if self.header_pending:
                return f"{what}: a second round header before COOL acts in turn {self.turn}"
            self.header_pending = True
            self.turn += 1
            return None
        if k in ("taken", "stop", "action", "death", "info", "score") and self.expected == "COOL" \
                and not self.header_pending:  # after Hot's block: the next round's header (or the last lines)
            return f"{what} with no round header " + ("since HOT's last action" if self.turn else "before it")
        if k in ("taken", "stop", "action"):
            if e.team != self.expected:
                return f"{what} where {self.expected} should act"
            closed = {x: n for x, n in self.ending.items() if x != "death"}
            if closed:
                return f"{what} after the end of the game (line {min(closed.values())})"
            if "death" in self.ending and (self.after_death or k == "taken"):
                return f"{what} after the end of the game (line {self.ending['death']})"
            if k == "taken":
                if self.taken:
                    return f"{what}: a second [取得] line before one action"
                self.taken = True
            elif k == "stop":
                if e.value in self.stops:
                    return f"{what}: the same [停止] line twice before one action"
                self.stops.add(e.value or "")
            else:  # the server writes a [停止] line right before an action it cannot read, and only then
                told = {"method": any("不正なメソッド" in x or "二度GetReady" in x for x in self.stops),
                        "direction": any("不正な方向" in x for x in self.stops)}
                invalid = {"method": e.action is None, "direction": e.direction is None}
                for part in ("method", "direction"):
                    if invalid[part] and not told[part]:
                        return f"{what} ({e.value or 'nothing'}): no valid {part}, and no [停止] line before it"
                    if told[part] and not invalid[part]:
                        return f"{what} ({e.value}): a [停止] line before it says its {part} is invalid"
                if "death" in self.ending:
                    self.after_death += 1
            return None
        if k == "digits":
            return f"{what} with no [行動]{e.team} line before it"
        key = f"end-{e.team}" if k == "end" else k
        if k != "result" and key in self.ending:
            return f"{what}: a second such line (the first is line {self.ending[key]})"
        if k == "death" and self.ending:
            return f"{what} after the end of the game (line {first_end})"
        ended = [n for x, n in self.ending.items() if x.startswith("end-")]
        if k in ("info", "score") and ended:
            return f"{what} after [終了] (line {min(ended)})"
        if k == "result":
            self.decided = e.line
        else:
            self.ending[key] = e.line
        return None

    def finish(self, cut: Cut | None) -> ChaserLog:
        if self.map is None:
            if cut is not None:
                raise ChaserLogError(str(cut), cut.line)
            if self.map_at is not None:
                raise ChaserLogError(
                    f"the log's map block (line {self.map_at}) is not closed (cut off in the header)", self.map_at)
            raise ChaserLogError("the log has no map block ('[ Map :')")
        if cut is not None and not any(e.kind == "round" for e in self.entries):
            raise ChaserLogError(
                f"{cut}; it comes before the first round header: no part of the game to keep", cut.line)
        return ChaserLog(self.names.get("COOL"), self.names.get("HOT"), self.map, tuple(self.entries),
                         tuple(self.unknown), self.started, cut)  # fmt: skip


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
    if line == _INFO:
        return Entry(no, "info", value=line[4:])
    if line == _SETUP:
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
