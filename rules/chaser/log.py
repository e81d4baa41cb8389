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
before it, an action with no 3×3 after it, Cool acting twice, a second round header…) is a bad
line.  Before the first round header (the header, the map) it makes the file unusable
(:class:`ChaserLogError`, the line and why).  After it the reader reads past it (:func:`_mend`):
the line skipped, read in its place (two lines swapped, Hot's block before Cool's), read as the
right player's, or a missing line supplied (a 3×3, an action the replay takes from its 3×3, a
round header…) — each once in :attr:`ChaserLog.mended` with its line and why — and the game read
on to its end.  Only when no line after it can be read (the file stops in a line, nothing but bad
lines follow) is the log *cut* there (:attr:`ChaserLog.cut`): the game is read up to the last
action whose block is whole, and nothing from the bad line on.
"""

from __future__ import annotations

import bisect
import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

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
    #: an action whose [行動] line is missing (or unreadable): the replay takes the action its 3×3 line shows
    assumed: bool = field(default=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class Cut:
    """Where a log stops being the server's text: its first bad line (1-based, as an editor numbers the
    file's lines) and what is wrong with it.  Everything before the line is read, nothing from it on."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Mended:
    """A line that does not fit the log where it is, and how the reader read past it (the log goes on).

    ``line``: the 1-based line (for a missing line, the line it should come before); ``reason``: what is wrong
    and what the reader did; ``code``: the check it is reported under; ``skipped``: the line's text is not
    read (it goes to ``load_issues``); ``seq``/``turn``: the action it concerns (the next one read)."""

    line: int
    reason: str
    code: str
    team: str | None = None
    turn: int | None = None
    seq: int | None = None
    skipped: bool = False

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
    cut: Cut | None = None  # a bad line after which nothing can be read: the log is read up to it
    mended: tuple[Mended, ...] = ()  # bad lines read past (skipped, missing, swapped, misattributed)

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


def _decode_each(data: bytes) -> tuple[str, dict[int, str], Cut | None]:
    """The text of a log, line by line: a line that is not text in the file's encoding is kept (its bytes
    decoded with U+FFFD) and named in the dict with why; the last line, when the file stops inside one of
    its characters, is not kept (the :class:`Cut`)."""
    if data.startswith(BOM):
        data = data[3:]
    try:
        return data.decode("utf-8"), {}, None
    except UnicodeDecodeError:
        pass
    lines = data.split(b"\n")  # 0x0a is never part of a Shift_JIS character
    encoding = _encoding(lines)
    out: list[str] = []
    bad: dict[int, str] = {}
    for no, raw in enumerate(lines, 1):
        text, why = _decode_line(raw, encoding, no == len(lines))
        if text is None:
            if no == len(lines) and (why or "").startswith("the file ends"):
                return "".join(t + "\n" for t in out), bad, Cut(no, why or "")
            bad[no] = why or ""
            text = raw.decode(encoding, errors="replace")
        out.append(text)
    return "\n".join(out), bad, None


def read_log(data: bytes) -> tuple[ChaserLog, str]:
    """A server log's bytes: the log and the text read — the file's text (up to the line after which nothing
    can be read, when there is one: :attr:`ChaserLog.cut`).  Raises :class:`ChaserLogError` when no part of
    the game can be kept."""
    text, bad, stop = _decode_each(data)
    if stop is None and 1 in bad:
        raise ChaserLogError(str(Cut(1, bad[1])), 1)
    log = _parse(text, stop, bad)
    if log.cut is None or log.cut is stop:
        return log, text
    lines = text.split("\n")
    return log, "".join(line + "\n" for line in lines[: log.cut.line - 1])


def parse_log(text: str) -> ChaserLog:
    """A whole server log (raises :class:`ChaserLogError` when it is not one, or no part of it can be kept)."""
    return _parse(text, None)


#: More bad lines than this in one log: it is not the server's log read with a few lines wrong; cut there.
MAX_MENDED = 200


def _parse(text: str, stop: Cut | None, bad: dict[int, str] | None = None) -> ChaserLog:
    lines = text.split("\n")
    bad = bad or {}
    if stop is not None and stop.line == 1:
        raise ChaserLogError(str(stop), 1)
    if lines[0].lstrip("\ufeff").strip() != "--Stable Log--":
        raise ChaserLogError("not a CHaser server log (no '--Stable Log--' first line)")
    mid_line = stop is None and not text.endswith("\n")  # the last line has no line end: the file stops in it
    reader = _Reader()
    cut = stop
    mended: list[Mended] = []
    last: int | None = None  # the last line the server writes (found at the first bad line)
    stamps: list[tuple[int, str]] = []  # (line, timestamp) of the lines read where they are
    i = 1
    while i < len(lines):
        no, raw = i + 1, lines[i]
        why = _feed(reader, no, raw, bad)
        if why is None:
            ts = _TS.match(raw.strip())
            if ts is not None and not _QT.match(raw.strip()[ts.end():]):  # a game line (not a Qt message)
                stamps.append((no, ts.group(1)))
            i += 1
            continue
        if no == len(lines) and mid_line:
            cut = Cut(no, f"the file ends in the middle of this line ({_quote(raw.strip())})")
            break
        if last is None:
            last = _last_server_line(lines, bad)
        fix = _mend(reader, lines, i, why, bad, last) if len(mended) < MAX_MENDED else None
        if fix is None:
            cut = Cut(no, why if len(mended) < MAX_MENDED else f"{why} (and {MAX_MENDED} bad lines before it)")
            break
        reader, i, m = fix
        mended.append(m)
    log = reader.finish(cut, mended)
    late = _stamps_out_of_order(log, stamps)
    return replace(log, mended=log.mended + (late,)) if late is not None else log


MAX_STAMPS_LISTED = 3  # lines out of time order named one by one in the finding


def _stamps_out_of_order(log: ChaserLog, stamps: list[tuple[int, str]]) -> Mended | None:
    """The server stamps its lines as it writes them, so the stamps never go back.  The lines outside a
    longest run of stamps in time order are out of order: one finding at the first of them (the log is
    read as it is; a line's stamp says nothing about what a player did)."""
    if not stamps:
        return None
    tails: list[str] = []  # the smallest last stamp of a run of each length
    ends: list[int] = []  # ... and the index of that line
    before = [-1] * len(stamps)  # the line before it in its run
    for k, (_no, stamp) in enumerate(stamps):
        n = bisect.bisect_right(tails, stamp)
        if n == len(tails):
            tails.append(stamp)
            ends.append(k)
        else:
            tails[n], ends[n] = stamp, k
        before[k] = ends[n - 1] if n else -1
    kept, k = set(), ends[-1]
    while k >= 0:
        kept.add(k)
        k = before[k]
    out = [k for k in range(len(stamps)) if k not in kept]
    if not out:
        return None
    no, stamp = stamps[out[0]]
    prev = next((stamps[j] for j in range(out[0] - 1, -1, -1) if j in kept), None)
    nxt = next((stamps[j] for j in range(out[0] + 1, len(stamps)) if j in kept), None)
    around = " and ".join(f"{_stamp(s)} (line {n})" for n, s in (prev, nxt) if n is not None)  # type: ignore[misc]
    what = f"stamped {_stamp(stamp)}, out of time order with the lines around it ({around})"
    if len(out) > 1:
        listed = ", ".join(str(stamps[j][0]) for j in out[1:MAX_STAMPS_LISTED + 1])
        more = f" and {len(out) - 1 - MAX_STAMPS_LISTED} more" if len(out) - 1 > MAX_STAMPS_LISTED else ""
        what += f"; so are line{'s' if len(out) > 2 else ''} {listed}{more}"
    actions = [e for e in log.entries if e.kind == "action"]
    at = next((e for e in log.entries if e.line == no), None)  # a 3×3 line concerns the action before it
    seq = sum(1 for e in actions if e.line < no) + (0 if at is not None and at.kind == "digits" else 1)
    turn = sum(1 for e in log.entries if e.kind == "round" and e.line < no)
    return Mended(no, f"{what}: the server writes its lines in time order; the log is read as it is",
                  "chaser-log-line", None, turn, seq if seq <= len(actions) else None)  # the server's stamp: no player's


def _stamp(s: str) -> str:
    """yyyyMMddhhmmss as the date and time it is."""
    return f"{s[:4]}-{s[4:6]}-{s[6:8]} {s[8:10]}:{s[10:12]}:{s[12:]}"


def _feed(r: _Reader, no: int, raw: str, bad: dict[int, str]) -> str | None:
    return bad[no] if no in bad else r.feed(no, raw)


# ---- reading past a bad line -------------------------------------------------------------------------

WINDOW = 12  # lines after a bad line that choose how to read past it


def _meaningful(lines: list[str], start: int, bad: dict[int, str]) -> tuple[int, Entry | None] | None:
    """The next line at or after 0-based ``start`` that is not blank nor a server message: (index, entry)."""
    for k in range(start, min(len(lines), start + 8)):
        line = lines[k].strip()
        if not line:
            continue
        ts = _TS.match(line)
        body = line[ts.end():] if ts else line
        if ts is not None and _QT.match(body):
            continue
        return k, (None if k + 1 in bad else _entry(k + 1, body))
    return None


def _body(raw: str) -> str:
    line = raw.strip()
    ts = _TS.match(line)
    return line[ts.end():] if ts else line


def _score(r: _Reader, lines: list[str], start: int, bad: dict[int, str], read: bool = False) -> int:
    """How many meaningful lines from ``start`` on the reader ``r`` reads before the next bad one (at most
    :data:`WINDOW`; :data:`WINDOW` when it reads every line to the end of the file, 0 when it reads none and
    the reading of the bad line (``read``) read nothing either)."""
    n = int(read)
    for k in range(start, len(lines)):
        if not lines[k].strip():
            continue
        if _feed(r, k + 1, lines[k], bad) is not None:
            return n
        n += 1
        if n >= WINDOW:
            return n
    return WINDOW if n else 0


def _last_server_line(lines: list[str], bad: dict[int, str]) -> int:
    """The 0-based index of the last line that is a line the server writes (-1: none)."""
    for k in range(len(lines) - 1, 0, -1):
        if k + 1 not in bad and len(lines[k]) <= MAX_LINE and lines[k].strip() and _entry(k + 1, _body(lines[k])):
            return k
    return -1


_OTHER = {"COOL": "HOT", "HOT": "COOL"}


def _relabel(raw: str, e: Entry, team: str) -> str:
    old = {"action": f"[行動]{e.team}", "taken": f"[取得]{e.team}", "stop": f"[停止]{e.team}",
           "digits": f"{e.team}:"}[e.kind]  # fmt: skip
    new = old.replace(e.team or "", team)
    return raw.replace(old, new, 1)


_AHEAD = {"up": 1, "down": 7, "left": 3, "right": 5}  # the cell an action goes to, in the 3×3 (row-major)


def _item_ahead(entries: list[Entry], lines: list[str], start: int, team: str
                ) -> tuple[bool, str, int, int] | None:  # fmt: skip
    """Whether ``team``'s next action (its ``[行動]`` line within 8 lines from 0-based ``start``), a Walk or Put,
    goes onto an item by ``team``'s last 3×3 line read: (yes or no, the action, its line, the 3×3's line);
    None when it cannot tell (no such action, another action, no 3×3 yet)."""
    seen = next((x for x in reversed(entries) if x.kind == "digits" and x.team == team), None)
    for k in range(start, min(len(lines), start + 8)):
        x = _entry(k + 1, _body(lines[k]))
        if x is not None and x.kind == "action" and x.team == team:
            if x.action not in ("walk", "put") or x.direction not in _AHEAD:  # Look, Search, no direction: none
                return False, x.value or "an action with no name", k + 1, seen.line if seen else 0
            if seen is None or not seen.value:
                return None
            return seen.value[1 + _AHEAD[x.direction]] == str(ITEM), x.value or "", k + 1, seen.line
        if x is not None and x.kind == "round":
            return None
    return None


def _mend(r: _Reader, lines: list[str], i: int, why: str, bad: dict[int, str], last: int
          ) -> tuple[_Reader, int, Mended] | None:  # fmt: skip
    """How to read on past the bad line ``lines[i]`` (``why``: what is wrong with it): of the readings below,
    the one that reads the most of the lines after it, the first of equally good ones; None when no line
    after it can be read (the log is cut there).

    The readings: the line repeats the one before (skipped); it and the next block are written in the wrong
    order (Hot's block before Cool's: read in the server's order); it names the wrong player (its 3×3 line
    says whose it is); an item line written after its action (read before it); a 3×3 line is missing before
    it (the action read without one); it is an unreadable 3×3 line; an action line is missing before its
    3×3 line (the replay takes the action the 3×3 shows); it is an unreadable action line (the same); a
    round header is missing before it; an end line out of place (read where it is); else it is skipped.
    """
    if not any(e.kind == "round" for e in r.entries):  # before the game: the header or the map is bad
        return None
    no = i + 1
    raw = lines[i]
    e = None if no in bad else _entry(no, _body(raw))
    nxt = _meaningful(lines, i + 1, bad)
    nxt_e = nxt[1] if nxt else None
    seq = sum(1 for x in r.entries if x.kind == "action") + 1
    open_ = r.open
    what = _quote(raw.strip()) if e is None else _label(e)
    prev = next((k for k in range(i - 1, 0, -1) if lines[k].strip()), None)
    cands: list[tuple[Callable[[_Reader], int | None], Mended]] = []

    def add(apply: Callable[[_Reader], int | None], reason: str, code: str, team: str | None = None,
            turn: int | None = None, skipped: bool = False) -> None:  # fmt: skip
        cands.append((apply, Mended(no, reason, code, team, r.turn if turn is None else turn, seq, skipped)))

    def skip(c: _Reader) -> int:
        return i + 1

    def feeds(*steps: tuple[int, str]) -> Callable[[_Reader], int | None]:
        def apply(c: _Reader) -> int | None:
            for k, text in steps:
                if _feed(c, k + 1, text, bad if text is lines[k] else {}) is not None:
                    return None
            return max(k for k, _ in steps) + 1
        return apply

    code_of = {"taken": "chaser-item-taken", "action": "chaser-turns", "round": "chaser-turns", "stop": "chaser-turns",
               "digits": "chaser-surroundings"}  # fmt: skip
    code = code_of.get(e.kind, "chaser-log-line") if e is not None else "chaser-log-line"
    team = e.team if e is not None else None
    # the line written twice
    if prev is not None and e is not None and _body(lines[prev]) == _body(raw):
        add(skip, f"{what} again, a copy of line {prev + 1}: the copy is not read", code, team, skipped=True)
    # this line and the next written the other way round: read in the server's order
    if nxt is not None:
        add(feeds((nxt[0], lines[nxt[0]]), (i, raw)), f"{what} and line {nxt[0] + 1} are written the other way "
            "round: read in the server's order", "chaser-turns", team)
    # a [取得] or [停止] line written after its action line, before the 3×3: read before the action
    if open_ is not None and e is not None and (e.kind in ("taken", "stop") and e.team == open_.team
                                                or e.kind == "death"):
        def before_open(c: _Reader, a: Entry = open_) -> int | None:
            c.open = None
            if _feed(c, no, raw, bad) is not None:
                return None
            c.open = a
            return i + 1

        add(before_open, f"{what} written after [行動]{open_.team} (line {open_.line}), before its 3×3: read before "
            "the action", code, team)  # fmt: skip
    # an item line naming the player that does not act next, where the 3×3s say the one acting next takes an item
    # and the one it names does not: read as the acting player's (before the reading below, which moves it)
    if e is not None and e.kind == "taken" and e.team != r.expected and open_ is None:
        mine_, theirs = _item_ahead(r.entries, lines, i + 1, r.expected), _item_ahead(r.entries, lines, i + 1, e.team)
        if mine_ is not None and mine_[0] and theirs is not None and not theirs[0]:
            y = r.expected
            add(feeds((i, _relabel(raw, e, y))), f"{_label(e)} where {y} acts: {y}'s {mine_[1]} (line {mine_[2]}) goes "
                f"onto the item its last 3×3 (line {mine_[3]}) shows, {e.team}'s {theirs[1]} (line {theirs[2]}) takes "
                f"none: read as {y}'s", "chaser-item-taken", y)  # fmt: skip
    # Hot's block before Cool's (or the other way round): read in the server's order
    if e is not None and e.kind in ("taken", "stop", "action") and e.team != r.expected and open_ is None:
        y = r.expected
        j = next((k for k in range(i + 1, min(len(lines), i + 8)) if (x := _entry(k + 1, _body(lines[k])))
                  and x.kind in ("taken", "stop", "action") and x.team == y), None)  # fmt: skip
        m = j is not None and next((k for k in range(j + 1, min(len(lines), j + 5))
                                    if (x := _entry(k + 1, _body(lines[k]))) and x.kind == "digits" and x.team == y), None)
        if j is not None and m:
            mine = [(k, lines[k]) for k in range(j, m + 1)] + [(k, lines[k]) for k in range(i, j)]
            part = [x for k in range(i, j) if (x := _entry(k + 1, _body(lines[k]))) is not None]
            if any(x.kind == "action" for x in part):
                reason = (f"{e.team}'s block (lines {no}–{j}) is written before {y}'s (lines {j + 1}–{m + 1}): "
                          f"read in the server's order, {y} first")  # fmt: skip
            else:  # no action of its own: the line(s) of the next action of its player, written one block early
                said = ", ".join(_label(x) for x in part)
                where = f"line {no}" if j == no else f"lines {no}–{j}"
                reason = (f"{said} ({where}) written before {y}'s block (lines {j + 1}–{m + 1}), not before "
                          f"{e.team}'s action: read after {y}'s block, in the server's order")  # fmt: skip
            add(feeds(*mine), reason, "chaser-turns", e.team)
    # a line naming the wrong player: its 3×3 line (or the order) says whose it is
    if e is not None and e.kind in ("taken", "stop", "action", "digits"):
        other = _OTHER[e.team or "COOL"]
        whose = (f"its 3×3 (line {nxt[0] + 1}) is {other}'s" if nxt_e is not None and nxt_e.kind == "digits"
                 and nxt_e.team == other else f"{other} should act" if e.kind != "digits" else f"[行動]{other} is open")
        add(feeds((i, _relabel(raw, e, other))), f"{_label(e)} where {whose}: read as {other}'s",
            "chaser-item-taken" if e.kind == "taken" else "chaser-turns", other)  # (an item line: whose item it is)
    # an item line written after its player's action: read before it
    if e is not None and e.kind == "taken" and open_ is None:
        last = next((k for k in range(len(r.entries) - 1, -1, -1) if r.entries[k].kind == "action"), None)
        if last is not None and r.entries[last].team == e.team and all(
                x.kind == "digits" for x in r.entries[last + 1:]) and not any(  # fmt: skip
                x.kind == "taken" for x in r.entries[last - 2: last]):
            def late(c: _Reader, at: int = last) -> int:
                c.entries.insert(at, e)
                return i + 1
            act_line = r.entries[last].line
            cands.append((late, Mended(no, f"{_label(e)} written after {e.team}'s action (line {act_line}): read before it",
                                       "chaser-item-taken", e.team, r.turn, seq - 1)))  # fmt: skip
    # a 3×3 line missing (the open action read without one), or this line an unreadable one
    if open_ is not None:
        t = open_.team

        def close(c: _Reader) -> None:
            assert c.open is not None
            c.entries.append(c.open)
            c.open, c.taken, c.stops = None, False, set()
            c.expected = _OTHER[t]
            if t == "COOL":
                c.header_pending = False

        def missing(c: _Reader) -> int | None:
            close(c)
            return None if _feed(c, no, raw, bad) is not None else i + 1

        def unreadable(c: _Reader) -> int:
            close(c)
            return i + 1

        add(missing, f"no {t}:<10 digits> line after [行動]{t} (line {open_.line}) before {what}: its 3×3 line is "
            "missing; the action is read without it", "chaser-surroundings", t)  # fmt: skip
        if e is None:
            add(unreadable, f"{why}, where {t}'s 3×3 should follow [行動]{t} (line {open_.line}): the action is read "
                "without it", "chaser-surroundings", t, skipped=True)  # fmt: skip
    else:
        t = r.expected
        # an action line missing before this 3×3 line, or this line an unreadable action line
        def assume(at: int, team_: str) -> Callable[[_Reader], int | None]:
            def apply(c: _Reader) -> int | None:
                a = Entry(at + 1, "action", team_, None, None, None, assumed=True)
                if c._out_of_place(a) is not None:
                    return None
                c.open = a
                return at + 1 if at == i and e is None else at
            return apply

        if e is not None and e.kind == "digits":
            add(assume(i, e.team or t), f"{_label(e)} with no [行動]{e.team} line before it: the action line is missing; "
                f"read as {e.team}'s action, the one its 3×3 shows", "chaser-turns", e.team)  # fmt: skip
        if e is None and nxt_e is not None and nxt_e.kind == "digits":
            add(assume(i, nxt_e.team or t), f"{why}: read as the [行動]{nxt_e.team} line its 3×3 (line {nxt[0] + 1}) "
                f"follows, the action the 3×3 shows", "chaser-log-line", nxt_e.team, skipped=True)  # fmt: skip
    # the judge's [死因]…通信切断 missing after a failed GetReady, or the [停止] line before an action it flags
    if r.must_die is not None and open_ is None:
        death = f"[死因]{r.must_die.team}通信切断"
        add(feeds((i, death), (i, raw)), f"no {death} line before {what}, after {_label(r.must_die)}…GetReady "
            f"(line {r.must_die.line}): the judge's line is missing", "chaser-end", r.must_die.team)  # fmt: skip
    if e is not None and e.kind == "action" and "and no [停止] line before it" in why:
        stop = (f"[停止]{e.team}が不正なメソッドを呼んでいます！" if e.action is None else
                f"[停止]{e.team}の行動メソッドが不正な方向を示しています！")  # fmt: skip
        add(feeds((i, stop), (i, raw)), f"{why}: the server's {stop} line is missing", "chaser-log-line", e.team)
    # a round header missing before this line
    if "with no round header" in why and r.turn:
        rem = next((int(x.value or 0) for x in reversed(r.entries) if x.kind == "round"), None)
        if rem is not None:
            header = f"-----残{rem - 1}ターン-----"
            add(feeds((i, header), (i, raw)), f"no round header before {what}: turn {r.turn + 1}'s header ({header}) "
                "is missing", "chaser-turns", None, r.turn + 1)  # fmt: skip
    # an end line out of place: read where it is
    if e is not None and e.kind in ("info", "score", "end", "result") and r.decided is None:
        key = f"end-{e.team}" if e.kind == "end" else e.kind
        if key not in r.ending and open_ is None:
            def force(c: _Reader) -> int:
                c.entries.append(e)
                if e.kind == "result":
                    c.decided = e.line
                else:
                    c.ending[key] = e.line
                return i + 1
            add(force, f"{why}: read where it is", "chaser-log-line", team)
    add(skip, f"{why}: not read", code, team, skipped=True)

    best: tuple[int, int] | None = None
    for n, (apply, _) in enumerate(cands):
        c = r.clone()
        try:
            at = apply(c)
        except ChaserLogError:
            at = None
        if at is None:
            continue
        score = _score(c, lines, at, bad, apply is not skip)
        if best is None or score > best[0]:
            best = (score, n)
    if best is None:
        return None
    if best[0] == 0:
        if r.decided is not None or last <= i:  # nothing after it can be read: the log is cut here
            return None
        best = (0, len(cands) - 1)  # nothing fits better: skipped, and the next line read on its own
    apply, m = cands[best[1]]
    c = r.clone()
    at = apply(c)
    assert at is not None
    return c, at, m


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
    (one more block after it at most); then ``[情報]`` and at once ``[得点]``, ``[終了]`` per side and
    ``[決着]``, the last line.  The game starts with the setup line; a ``[停止]…GetReady`` line is followed
    at once by the judge's ``[死因]<team>通信切断``.  The server's own messages and blank lines may come
    anywhere.
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
        self.remaining: int | None = None  # the last round header's remaining turns
        self.expected = "COOL"
        self.header_pending = False  # a round header since Hot's last block: Cool's block may come
        self.open: Entry | None = None  # an action line waiting for its 3×3
        self.taken = False
        self.stops: set[str] = set()
        self.ending: dict[str, int] = {}  # end lines seen ('death', 'info', 'score', 'end-COOL', …) -> line
        self.after_death = 0  # blocks after the [死因] line
        self.must_die: Entry | None = None  # a [停止]…GetReady line: the judge's [死因]<team>通信切断 comes next
        self.decided: int | None = None  # the [決着] line

    def clone(self) -> _Reader:
        c = copy.copy(self)
        c.names, c.header, c.map_lines = dict(self.names), dict(self.header), list(self.map_lines)
        c.entries, c.unknown, c.stops, c.ending = list(self.entries), list(self.unknown), set(self.stops), dict(self.ending)
        return c

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
        last = self.entries[-1] if self.entries else None
        if self.must_die is not None and not (k == "death" and e.team == self.must_die.team and e.value == "通信切断"):
            # a failed GetReady disconnects the player; the judge right after it finds the broken connection
            return (f"{what} where [死因]{self.must_die.team}通信切断 should follow {_label(self.must_die)}"
                    f"…GetReady (line {self.must_die.line})")  # fmt: skip
        if last is not None and last.kind == "info" and k != "score":  # the server writes them in one go
            return f"{what} where [得点] should follow [情報] (line {last.line})"
        if k == "score" and (last is None or last.kind != "info"):
            return f"{what} with no [情報] line right before it"
        if k == "setup":
            first = self.entries[0] if self.entries else None
            if first is None:
                return None
            if first.kind == "setup":
                return f"{what}: a second such line (the first is line {first.line})"
            return f"{what} after the game started (line {first.line})"
        if k == "round":
            if not any(x.kind == "setup" for x in self.entries[:1]):  # the server starts the game with it
                return f"{what} with no {_SETUP.split()[0]} line before it"
            if first_end is not None:
                return f"{what} after the end of the game (line {first_end})"
            if self.expected != "COOL":
                return f"{what} in the middle of turn {self.turn} (HOT has not acted)"
            if self.header_pending:
                return f"{what}: a second round header before COOL acts in turn {self.turn}"
            self.header_pending = True
            self.turn += 1
            self.remaining = int(e.value or 0)
            return None
        time_up = self.remaining is not None and self.remaining <= 0  # a turn logged after 残0: the replay's finding
        if k in ("taken", "stop", "action", "death", "info", "score") and self.expected == "COOL" \
                and not self.header_pending and not (time_up and k in ("info", "score")):
            # after Hot's block: the next round's header (or the last lines: after 残0 they need none)
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
                if "GetReady" in (e.value or "") and "正常に" in (e.value or ""):
                    if "death" in self.ending:  # after the judge's [死因] the server asks no one for GetReady
                        return f"{what} after the end of the game (line {self.ending['death']})"
                    self.must_die = e
                self.stops.add(e.value or "")
            else:  # the server writes a [停止] line right before an action it cannot read, and only then
                told = {"method": any("不正なメソッド" in x or "二度GetReady" in x for x in self.stops),
                        "direction": any("不正な方向" in x for x in self.stops)}
                invalid = {"method": e.action is None, "direction": e.direction is None}
                for part in ("method", "direction") if not e.assumed else ():  # (assumed: the 3×3 tells)
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
        self.must_die = None
        return None

    def finish(self, cut: Cut | None, mended: list[Mended] | None = None) -> ChaserLog:
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
                         tuple(self.unknown), self.started, cut, tuple(mended or ()))  # fmt: skip


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
