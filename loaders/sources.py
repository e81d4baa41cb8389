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
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

#: Lines longer than this are quarantined without being parsed (a real dealer line is a few KB).
MAX_LINE_BYTES = 4 * 1024 * 1024
CHUNK = 1 << 20
LOG_SUFFIXES = (".jsonl", ".json", ".log", ".ndjson", ".txt")


class SourceError(Exception):
    """A source that cannot be read at all (missing file, unreachable server...)."""


@dataclass(slots=True)
class Record:
    line: int  # 1-based line (JSON lines), element index (JSON array) or cursor position
    raw: bytes | str  # the record's text as read
    doc: Any = None  # parsed JSON value (any type; the normaliser checks the shape)
    error: str | None = None


class FileSource:
    """One dealer log file (plain or gzip), JSON lines or a JSON array."""

    kind = "file"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        try:
            self.size = self.path.stat().st_size
        except OSError as exc:
            raise SourceError(f"{path}: cannot read ({exc.strerror or exc})") from exc
        if self.path.is_dir():
            raise SourceError(f"{path}: is a directory")
        self.bytes_done = 0  # compressed bytes consumed so far (for progress)

    def describe(self) -> dict[str, Any]:
        return {"kind": "file", "path": self.name, "bytes": self.size}

    def _open(self) -> tuple[BinaryIO, BinaryIO]:
        try:
            raw = open(self.path, "rb")  # noqa: SIM115 - closed by records()
        except OSError as exc:
            raise SourceError(f"{self.path}: cannot open ({exc.strerror or exc})") from exc
        magic = raw.read(2)
        raw.seek(0)
        if magic == b"\x1f\x8b":
            return raw, gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
        return raw, raw

    def records(self) -> Iterator[Record]:
        raw, stream = self._open()
        try:
            try:
                head = stream.peek(4)[:4] if hasattr(stream, "peek") else b""
            except (OSError, EOFError) as exc:  # e.g. a gzip header with garbage behind it
                yield Record(line=0, raw=b"", error=f"file unreadable: not a readable log ({exc})")
                return
            if head[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
                stream = _Utf16ToUtf8(stream)
            yield from self._records(stream, raw)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            # A gzip stream cut short or corrupt: everything before it was yielded.
            yield Record(line=-1, raw=b"", error=f"file unreadable past this point: {exc}")
        finally:
            self.bytes_done = self.size
            stream.close()
            raw.close()

    def _records(self, stream: BinaryIO, raw: BinaryIO) -> Iterator[Record]:
        lines = _iter_lines(stream)
        first: tuple[int, bytes, bool] | None = None
        for item in lines:
            if item[1].strip():
                first = item
                break
        if first is None:
            return
        if first[1].lstrip().startswith(b"["):
            yield from _array_records(first, lines)
            return
        for lineno, line, too_long in _chain_one(first, lines):
            self.bytes_done = raw.tell()
            if too_long:
                yield Record(lineno, line[:65536], error=f"line longer than {MAX_LINE_BYTES} bytes")
                continue
            if not line.strip():
                continue
            try:
                doc = parse_json(line)
            except orjson.JSONDecodeError as exc:
                yield Record(lineno, line, error=f"invalid JSON: {_json_reason(exc, line)}")
                continue
            yield Record(lineno, line, doc)


_NON_STANDARD = (b"NaN", b"Infinity")


def parse_json(text: bytes | str) -> Any:
    """Parse one JSON record: orjson, falling back to Python's parser for what orjson refuses
    but a JSON writer may still emit (``NaN``/``Infinity`` literals, numbers beyond a double).

    Raises ``orjson.JSONDecodeError`` (with orjson's message) when neither parser accepts it.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raw = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
        if not (any(tok in raw for tok in _NON_STANDARD) or b"e" in raw or b"E" in raw):
            raise
        try:
            doc = json.loads(text)
            orjson.dumps(doc)  # what Kifu cannot store again (lone surrogates, >64-bit ints) stays refused
        except (ValueError, TypeError, RecursionError, orjson.JSONEncodeError):
            raise exc from None
        return doc


def _json_reason(exc: Exception, line: bytes) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text (binary data?)"
    text = str(exc).split(":")[0]
    if not line.rstrip().endswith((b"}", b"]")):
        return f"{text} (truncated line?)"
    return text


def _chain_one(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


def _iter_lines(stream: BinaryIO) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(line number, line without newline, too_long)`` reading in bounded chunks."""
    lineno = 0
    carry = b""
    skipping = False  # inside an over-long line: drop bytes until its newline
    bom_checked = False
    read = getattr(stream, "read1", stream.read)  # read1: a cut gzip stream still yields its head
    while True:
        chunk = read(CHUNK)
        if not chunk:
            break
        if not bom_checked:
            bom_checked = True
            if chunk.startswith(codecs.BOM_UTF8):
                chunk = chunk[3:]
        parts = chunk.split(b"\n")
        parts[0] = carry + parts[0]
        carry = parts.pop()
        for part in parts:
            lineno += 1
            if skipping:
                skipping = False
                yield lineno, b"", True
                continue
            if len(part) > MAX_LINE_BYTES:
                yield lineno, part[:65536], True
                continue
            yield lineno, part.rstrip(b"\r"), False
        if len(carry) > MAX_LINE_BYTES:
            if not skipping:
                skipping = True
            carry = b""
    if skipping:
        yield lineno + 1, b"", True
    elif carry:
        yield lineno + 1, carry.rstrip(b"\r"), False


def _array_records(
    first: tuple[int, bytes, bool], lines: Iterator[tuple[int, bytes, bool]]
) -> Iterator[Record]:
    """Stream the elements of a top-level JSON array (``mongoexport --jsonArray``)."""
    decoder = json.JSONDecoder()
    buf = ""
    index = 0
    started = False
    line_of_buf = first[0]
    for lineno, line, too_long in _chain_one(first, lines):
        if too_long:
            yield Record(lineno, line[:65536], error=f"line longer than {MAX_LINE_BYTES} bytes")
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            yield Record(lineno, line, error="not UTF-8 text (binary data?)")
            continue
        if not buf.strip():
            line_of_buf = lineno
        buf += text + "\n"
        pos = 0
        while True:
            while pos < len(buf) and buf[pos] in " \t\r\n,":
                pos += 1
            if not started:
                if pos < len(buf) and buf[pos] == "[":
                    started = True
                    pos += 1
                    continue
            if pos >= len(buf) or buf[pos] == "]":
                if pos < len(buf):
                    pos = len(buf)
                break
            try:
                doc, end = decoder.raw_decode(buf, pos)
            except json.JSONDecodeError:
                break  # element continues on the next line(s)
            except RecursionError:
                yield Record(line_of_buf, buf[:65536].encode("utf-8"), error="array element nested too deeply")
                buf, pos = "", 0
                break
            index += 1
            yield Record(line_of_buf, buf[pos:end].encode("utf-8"), doc)
            pos = end
            line_of_buf = lineno
        buf = buf[pos:]
        if len(buf) > MAX_LINE_BYTES:
            yield Record(line_of_buf, buf[:65536].encode(), error="array element too long or not valid JSON")
            buf = ""
    if buf.strip():
        yield Record(line_of_buf, buf.encode("utf-8"), error="invalid JSON: array element not closed (truncated file?)")


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


def expand_paths(paths: list[str]) -> list[Path]:
    """Files named by ``paths``: files as given, directories recursively, globs expanded."""
    out: list[Path] = []
    for spec in paths:
        p = Path(spec)
        if p.is_dir():
            found = sorted(
                f for f in p.rglob("*") if f.is_file() and _looks_like_log(f)
            )
            if not found:
                raise SourceError(f"{spec}: directory holds no log files (*.jsonl, *.json, *.log, optionally .gz)")
            out.extend(found)
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
    return unique


def _looks_like_log(path: Path) -> bool:
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return name.endswith(LOG_SUFFIXES) and "dealer-and-players" not in name
