"""Where records come from: dealer log files (any shape) and MongoDB collections.

A source yields :class:`Record` values in log order.  A record either carries a parsed
document (``doc``) or the reason it could not be parsed (``error``); the pipeline
quarantines the latter.  Sources never raise for bad *content*; they raise
:class:`SourceError` only when the source as a whole cannot be read.

File shapes accepted (auto-detected, optionally gzip-compressed):

* JSON lines — the dealer's download format and ``mongoexport`` output;
* a JSON array — ``mongoexport --jsonArray`` or any array of activities;
* UTF-8 with or without BOM, and UTF-16 files with a BOM (transcoded).
"""

from __future__ import annotations

import codecs
import glob
import gzip
import io
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from common.jsontext import parse_json
from common.safe import terminal
from rules import text_kind

#: Lines longer than this are quarantined without being parsed (a real dealer line is a few KB).
MAX_LINE_BYTES = 4 * 1024 * 1024
#: How much of an over-long record's text is kept for ``load_issues``.
ISSUE_PREFIX = 65536
CHUNK = 1 << 20
LOG_SUFFIXES = (".jsonl", ".json", ".log", ".ndjson", ".txt", ".map")
MAX_TEXT_BYTES = 16 * 1024 * 1024  # a whole-file text log (CHaser); the server writes ~30 KB per game
#: What a directory's files must be called to be read, in words (for messages).
READ_NAMES = ", ".join(f"*{s}" for s in LOG_SUFFIXES) + ", optionally .gz"


class SourceError(Exception):
    """A source that cannot be read at all (missing file, unreachable server...)."""


@dataclass(slots=True)
class Record:
    line: int  # 1-based line (JSON lines), element index (JSON array) or cursor position
    raw: bytes | str  # the record's text as read
    doc: Any = None  # parsed JSON value (any type; the normaliser checks the shape)
    error: str | None = None
    length: int | None = None  # true length in bytes when ``raw`` holds only a prefix


@dataclass(frozen=True, slots=True)
class TextDocument:
    """A file read whole as one record because it is a text log, not JSON (``kind``: 'chaser-log' |
    'chaser-map'); the game's loader decodes and parses ``data``."""

    kind: str
    data: bytes


class FileSource:
    """One dealer log file (plain or gzip), JSON lines or a JSON array."""

    kind = "file"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        try:
            st = self.path.stat()
        except OSError as exc:
            raise SourceError(f"{terminal(path)}: cannot read ({exc.strerror or exc})") from exc
        self.size = st.st_size
        if stat.S_ISDIR(st.st_mode):
            raise SourceError(f"{terminal(path)}: is a directory")
        if not stat.S_ISREG(st.st_mode):  # a FIFO would wait for a writer for ever, /dev/zero never ends
            raise SourceError(f"{terminal(path)}: {_special(st.st_mode)}, not a log file — give a file")
        self.bytes_done = 0  # compressed bytes consumed so far (for progress)
        self.progress: Callable[[int], None] | None = None  # called with bytes_done after each chunk

    def describe(self) -> dict[str, Any]:
        return {"kind": "file", "path": self.name, "bytes": self.size}

    def _open(self) -> tuple[BinaryIO, BinaryIO]:
        try:
            raw = open(self.path, "rb")  # noqa: SIM115 - closed by records()
        except OSError as exc:
            raise SourceError(f"file unreadable: cannot open it ({exc.strerror or exc})") from exc
        magic = raw.read(2)
        raw.seek(0)
        if magic == b"\x1f\x8b":
            return raw, gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
        return raw, raw

    def records(self) -> Iterator[Record]:
        try:
            raw, stream = self._open()
        except SourceError as exc:  # no permission, gone since it was listed: the file's issue, the others go on
            yield Record(line=0, raw=b"", error=str(exc))
            return
        last_line = 0  # the number of the last record's line: a stream that ends early fails after it
        try:
            try:
                head = stream.peek(4)[:4] if hasattr(stream, "peek") else b""
            except (OSError, EOFError) as exc:  # e.g. a gzip header with garbage behind it
                yield Record(line=0, raw=b"", error=f"file unreadable: not a readable log ({exc})")
                return
            if head[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
                stream = _Utf16ToUtf8(stream)
            for rec in self._records(stream, raw):
                last_line = max(last_line, rec.line)
                yield rec
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            # A gzip stream cut short or corrupt: everything before it was yielded; the issue is at the first
            # line that could not be read.
            why = ("the gzip stream ends early (truncated file?)" if isinstance(exc, EOFError)
                   else f"file unreadable past this point: {exc}")  # fmt: skip
            yield Record(line=last_line + 1, raw=b"", error=why)
        finally:
            self.bytes_done = self.size
            stream.close()
            raw.close()

    def _records(self, stream: BinaryIO, raw: BinaryIO) -> Iterator[Record]:
        def tick() -> None:
            self.bytes_done = raw.tell()
            if self.progress is not None:
                self.progress(self.bytes_done)

        reader = _Reader(stream, tick)
        first = reader.first_byte()
        kind = text_kind(reader.head())
        if kind is not None:
            yield _whole(reader, kind)
            return
        if _binary(reader.head()):  # an image, an archive…: one issue for the file, not one per "line"
            yield Record(1, b"", error=BINARY, length=self.size)
            return
        if first == b"[" and not reader.first_line_whole():
            yield from _array_records(reader)
            return
        if first == b"{" and reader.pretty_printed():
            reader.wrap_as_array()
            yield from _array_records(reader)
            return
        for lineno, line, length in _iter_lines(reader):
            if length > MAX_LINE_BYTES:
                yield Record(lineno, line, error=too_long("line", length), length=length)
                continue
            if not line.strip():
                continue
            try:
                doc = parse_json(line)
            except orjson.JSONDecodeError as exc:
                cut = lineno == reader.unterminated_line  # the file's last line, without its newline
                yield Record(lineno, line, error=f"invalid JSON: {_json_reason(exc, line, cut)}")
                continue
            yield Record(lineno, line, doc)


def _special(mode: int) -> str:
    """What a path that is not a regular file is, in words."""
    for test, what in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):  # fmt: skip
        if test(mode):
            return what
    return "a special file"


#: The reason given for a file that is not text at all.
BINARY = "binary data, not a log"

#: How common binary formats begin (images, archives, documents, executables).
_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"%PDF", b"PK\x03\x04", b"\x7fELF", b"BZh", b"\xfd7zXZ",
          b"7z\xbc\xaf", b"RIFF", b"\x00\x00\x01\x00", b"II*\x00", b"MM\x00*", b"SQLite format 3")
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


def _binary(head: bytes) -> bool:
    """Whether a file's first chunk is binary data rather than text: a known binary format, or more than a
    tenth of its first 4 KiB control characters or bytes that are not UTF-8 (a text log with a bad line or
    two stays a log, read line by line)."""
    if head.startswith(_MAGIC):
        return True
    sample = head[:4096]
    if not sample:
        return False
    bad = len(_CONTROL.findall(sample)) + sample.decode("utf-8", "replace")[:-1].count("\ufffd")
    return bad * 10 > len(sample)


def too_long(what: str, length: int) -> str:
    return f"{what} of {length:,} bytes is longer than the {MAX_LINE_BYTES:,}-byte limit for one record"


_POSITION = re.compile(r": line \d+ column \d+ \(char \d+\)$")


def _json_reason(exc: Exception, line: bytes, cut: bool = False) -> str:
    """orjson's reason without its position (the message itself may hold a colon: "expected ':' after
    key"); ``cut``: the line is the file's last and has no newline, so it may be a truncated record."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text (binary data?)"
    text = _POSITION.sub("", str(exc))
    if cut and not line.rstrip().endswith((b"}", b"]")):
        return f"{text} (truncated line?)"
    return text


class _Reader:
    """Bounded chunks of a byte stream (UTF-8 BOM removed), reporting progress after each."""

    def __init__(self, stream: BinaryIO, tick: Any) -> None:
        self._read = getattr(stream, "read1", stream.read)  # read1: a cut gzip stream still yields its head
        self._tick = tick
        self._first: bytes | None = None
        self._bom_checked = False
        self.skipped_lines = 0
        self.unterminated_line = 0  # set by _iter_lines: the number of a last line without a newline

    def chunk(self) -> bytes:
        if self._first is not None:
            out, self._first = self._first, None
            return out
        out = self._read(CHUNK)
        if not self._bom_checked and out:
            self._bom_checked = True
            if out.startswith(codecs.BOM_UTF8):
                out = out[3:]
        self._tick()
        return out

    def head(self) -> bytes:
        """The first chunk, not consumed (after :meth:`first_byte`)."""
        return self._first or b""

    def pretty_printed(self) -> bool:
        """Whether the stream starts with a JSON object spread over lines (one game per file,
        pretty-printed) rather than JSON lines: its first line is not a whole JSON value and
        the next one is indented."""
        head = self._first or b""
        lines = head.lstrip(b" \t\r\n").split(b"\n", 2)
        if len(lines) < 2:
            return False
        try:
            parse_json(lines[0])
        except (orjson.JSONDecodeError, RecursionError):
            return lines[0].strip() == b"{" or lines[1][:1] in (b" ", b"\t")
        return False

    def first_line_whole(self) -> bool:
        """Whether the stream's first line holds a whole JSON value by itself (its brackets closed at its
        end) and other lines follow: JSON lines whose first record is an array, not a JSON array spread over
        the file — read as an array, each line after it would be cut into pieces at its brackets."""
        while self._first is not None and len(self._first) < 4 * CHUNK:  # the first line and the next, read
            nl = self._first.find(b"\n", len(self._first) - len(self._first.lstrip(b" \t\r\n")))
            if nl >= 0 and self._first[nl:].strip():
                break
            more = self._read(CHUNK)  # (a buffered stream's read1 may give only what its buffer held)
            if not more:
                break
            self._first += more
            self._tick()
        head = (self._first or b"").lstrip(b" \t\r\n")
        end = head.find(b"\n")
        if end < 0 or not head[end:].strip():
            return False
        line, depth, pos = head[:end].rstrip(b" \t\r"), 0, 0
        while pos < len(line):
            m = _STRUCT.search(line, pos)
            if m is None:
                return False
            tok, pos = line[m.start()], m.end()
            if tok == 0x22:  # a string: its body skipped, up to its closing quote
                pos = _STR_BODY.match(line, pos).end() + 1  # type: ignore[union-attr]
            elif tok in (0x5B, 0x7B):
                depth += 1
            else:
                depth -= 1
                if depth <= 0:
                    return depth == 0 and pos == len(line)
        return False

    def wrap_as_array(self) -> None:
        """Read the rest as the elements of a JSON array (objects one after another)."""
        inner = self.chunk
        state = {"started": False, "ended": False}

        def chunk() -> bytes:
            if not state["started"]:
                state["started"] = True
                return b"[" + inner()
            out = inner()
            if out or state["ended"]:
                return out
            state["ended"] = True
            return b"]"

        self.chunk = chunk  # type: ignore[method-assign]

    def first_byte(self) -> bytes:
        """The first non-blank byte (b"" for a blank stream); only blank chunks are consumed,
        counted in :attr:`skipped_lines`."""
        while True:
            chunk = self.chunk()
            if not chunk:
                return b""
            stripped = chunk.lstrip(b" \t\r\n")
            if stripped:
                self._first = chunk
                return stripped[:1]
            self.skipped_lines += chunk.count(b"\n")


_CONTENT = re.compile(rb"[^\n]+")


def _iter_lines(reader: _Reader) -> Iterator[tuple[int, bytes, int]]:
    """Yield ``(line number, text, length)`` for every non-blank line, reading in bounded chunks.

    A line longer than :data:`MAX_LINE_BYTES` is yielded once with only its first
    :data:`ISSUE_PREFIX` bytes and its true ``length``; it is never held whole in memory.
    Runs of blank lines cost no Python work per line (a gzip of newlines stays fast).
    """
    lineno = 1 + reader.skipped_lines  # line number of the first byte of ``carry``
    carry = bytearray()
    carry_len = 0  # true length of the line in progress (carry holds at most a prefix when too long)
    while True:
        chunk = reader.chunk()
        if not chunk:
            break
        pos = 0
        for m in _CONTENT.finditer(chunk):
            start, end = m.span()
            gap_lines = chunk.count(b"\n", pos, start)
            if gap_lines:
                if carry_len:
                    yield from _emit(lineno, carry, carry_len)
                    carry, carry_len = bytearray(), 0
                lineno += gap_lines
            carry_len += end - start
            if len(carry) < MAX_LINE_BYTES + 1:
                carry += m.group()[: MAX_LINE_BYTES + 1 - len(carry)]
            pos = end
        tail_lines = chunk.count(b"\n", pos)
        if tail_lines:
            if carry_len:
                yield from _emit(lineno, carry, carry_len)
                carry, carry_len = bytearray(), 0
            lineno += tail_lines
    if carry_len:
        reader.unterminated_line = lineno
        yield from _emit(lineno, carry, carry_len)


def _emit(lineno: int, carry: bytearray, length: int) -> Iterator[tuple[int, bytes, int]]:
    if length > MAX_LINE_BYTES:
        yield lineno, bytes(carry[:ISSUE_PREFIX]), length
        return
    line = bytes(carry)
    if line.endswith(b"\r"):
        line = line[:-1]
        length -= 1
    yield lineno, line, length


_STRUCT = re.compile(rb'["{}\[\]\n]')
_STR_BODY = re.compile(rb'(?:[^"\\\n]|\\[^\n])*')
_BLANK = b" \t\r\n,"


def _whole(reader: _Reader, kind: str) -> Record:
    """The rest of the stream as one :class:`TextDocument` record (bounded)."""
    parts: list[bytes] = []
    size = 0
    while True:
        chunk = reader.chunk()
        if not chunk:
            break
        size += len(chunk)
        if size <= MAX_TEXT_BYTES:
            parts.append(chunk)
    data = b"".join(parts)
    if size > MAX_TEXT_BYTES:
        return Record(1, data[:ISSUE_PREFIX], length=size,
                      error=f"{kind} file of {size:,} bytes is larger than the {MAX_TEXT_BYTES:,}-byte limit")
    return Record(1, data, TextDocument(kind, data))


def _array_records(reader: _Reader) -> Iterator[Record]:
    """Stream the elements of a top-level JSON array (``mongoexport --jsonArray``), in linear time.

    A scanner tracks nesting depth over strings and brackets (string bodies are skipped by
    one regular-expression match), so an element spanning many lines — or a whole array on
    one line — costs one pass.  An element longer than :data:`MAX_LINE_BYTES` is quarantined
    with a prefix of its text and its true length.
    """
    depth = 0
    line = 1 + reader.skipped_lines
    in_string = False
    in_elem = False
    elem = bytearray()  # text of the element in progress (only a prefix once too long)
    elem_len = 0
    elem_line = line
    scalar = bytearray()  # text between elements at depth 1 (numbers, literals, commas)
    closed = False

    def take(piece: bytes) -> None:
        nonlocal elem_len
        elem_len += len(piece)
        if len(elem) <= MAX_LINE_BYTES:
            elem.extend(piece[: MAX_LINE_BYTES + 1 - len(elem)])

    def end_elem() -> Record:
        nonlocal elem, elem_len, in_elem
        rec = _element(elem_line, elem, elem_len)
        elem, elem_len, in_elem = bytearray(), 0, False
        return rec

    def flush_scalars() -> Iterator[Record]:
        if scalar.strip(_BLANK):
            for part in bytes(scalar).split(b","):
                if part.strip():
                    yield _parsed(line, part.strip())
        scalar.clear()

    carry = b""
    while True:
        chunk = reader.chunk()
        if not chunk:
            break
        buf = carry + chunk
        carry = b""
        pos, n = 0, len(buf)
        while pos < n:
            if in_string:
                end = _STR_BODY.match(buf, pos).end()  # type: ignore[union-attr]
                if end < n and buf[end] == 0x22:  # closing quote
                    take(buf[pos : end + 1])
                    pos = end + 1
                    in_string = False
                    if depth == 1:
                        yield end_elem()
                elif end < n and buf[end] == 0x0A:  # a raw newline in a string (invalid JSON, kept)
                    take(buf[pos : end + 1])
                    line += 1
                    pos = end + 1
                else:  # the string goes on in the next chunk (keep a trailing backslash with it)
                    take(buf[pos:end])
                    carry = buf[end:]
                    pos = n
                continue
            m = _STRUCT.search(buf, pos)
            stop = m.start() if m else n
            if in_elem:
                take(buf[pos:stop])
            elif depth == 1:
                scalar.extend(buf[pos:stop])
            if m is None:
                pos = n
                continue
            tok = buf[stop]
            pos = stop + 1
            if tok == 0x0A:
                if in_elem:
                    take(b"\n")
                line += 1
                continue
            if depth == 1 and not in_elem and tok != 0x5D:  # an element starts
                yield from flush_scalars()
                in_elem, elem_line = True, line
            if in_elem:
                take(buf[stop:pos])
            if tok == 0x22:
                in_string = True
            elif tok in (0x7B, 0x5B):
                depth += 1
            elif depth > 0:
                depth -= 1
                if depth == 1 and in_elem:
                    yield end_elem()
                elif depth == 0:
                    yield from flush_scalars()
                    closed = True
    if in_elem:
        yield Record(elem_line, bytes(elem[:ISSUE_PREFIX]),
                     error="invalid JSON: array element not closed (truncated file?)", length=elem_len)
    elif depth >= 1 and not closed:
        yield from flush_scalars()
        yield Record(line, b"", error="invalid JSON: array not closed (truncated file?)")


def _element(lineno: int, text: bytearray, length: int) -> Record:
    if length > MAX_LINE_BYTES:
        return Record(lineno, bytes(text[:ISSUE_PREFIX]), error=too_long("array element", length), length=length)
    return _parsed(lineno, bytes(text))


def _parsed(lineno: int, text: bytes) -> Record:
    try:
        return Record(lineno, text, parse_json(text))
    except orjson.JSONDecodeError as exc:
        return Record(lineno, text, error=f"invalid JSON: {_json_reason(exc, text)}")
    except RecursionError:
        return Record(lineno, text, error="array element nested too deeply")


class _Utf16ToUtf8(io.RawIOBase):
    """Read a UTF-16 (with BOM) byte stream as UTF-8 bytes."""

    def __init__(self, stream: BinaryIO) -> None:
        self._text = io.TextIOWrapper(stream, encoding="utf-16", errors="replace", newline="")
        self._pending = b""

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        while size < 0 or len(self._pending) < size:
            text = self._text.read(CHUNK // 2)
            if not text:
                break
            self._pending += text.encode("utf-8")
        if size < 0:
            out, self._pending = self._pending, b""
        else:
            out, self._pending = self._pending[:size], self._pending[size:]
        return out

    def close(self) -> None:
        self._text.close()
        super().close()


def expand_paths(paths: list[str], skipped: list[Path] | None = None) -> list[Path]:
    """Files named by ``paths``: files as given, directories recursively, globs expanded.

    The files of a directory that Kifu does not read (by their names: README.md, images…) are appended
    to ``skipped``."""
    out: list[Path] = []
    ignored_all: list[Path] = []
    for spec in paths:
        p = Path(spec)
        if p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file())
            found = [f for f in files if _looks_like_log(f)]
            ignored = [f for f in files if not _looks_like_log(f)]
            if not found:
                more = ""
                if ignored:
                    names = ", ".join(str(f.relative_to(p)) for f in ignored[:5])
                    cut = " …" if len(ignored) > 5 else ""
                    more = f"; it holds {len(ignored):,} other file(s): {names}{cut}"
                raise SourceError(f"{spec}: directory holds no log files ({READ_NAMES}){more}")
            out.extend(found)
            ignored_all.extend(ignored)
        elif p.exists():
            out.append(p)
        elif any(ch in spec for ch in "*?["):
            matched = sorted(Path(m) for m in glob.glob(spec, recursive=True) if os.path.isfile(m))
            if not matched:
                raise SourceError(f"{spec}: pattern matches no files")
            out.extend(matched)
        else:
            raise SourceError(f"{spec}: no such file or directory")
    seen: set[Path] = set()
    unique = []
    for f in out:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    if skipped is not None:
        for f in ignored_all:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                skipped.append(f)
    return unique


def _looks_like_log(path: Path) -> bool:
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return name.endswith(LOG_SUFFIXES) and "dealer-and-players" not in name
