"""Raw lines packed: the exact bytes of every accepted line, compressed a block at a time.

``raw_activities`` keeps one row per line (match, seq, run, source, line, record key) — the
lineage and identity SQL reads — while the line's bytes go to ``raw_blocks``: up to
:data:`BLOCK_LINES` consecutive lines of one match, concatenated and compressed with zstd
(a standard frame any zstd library reads), with the length of each line, so every line comes
back byte for byte (:func:`lines`).  A block compresses the dealer's repeated keys and names
across a whole stretch of the log, about twice as well as DuckDB's own per-vector compression
of the same column.

This module knows no game: Kakomimasu and CHaser records are packed alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Lines in one block at most, and its raw bytes at most (a block is decompressed whole to read one line).
BLOCK_LINES = 1024
BLOCK_BYTES = 4 << 20
#: Old blocks read at a time by :func:`repack` (their lines in memory at once: a few MB each).
REPACK_WINDOW = 8
#: The codec of the blocks written now (stored in every block).
CODEC = "zstd"
LEVEL = 7
_CODEC = pa.Codec("zstd", compression_level=LEVEL)

BLOCK_SCHEMA = pa.schema([
    ("match_id", pa.string()), ("first_seq", pa.int64()), ("last_seq", pa.int64()), ("codec", pa.string()),
    ("seqs", pa.list_(pa.int64())), ("lengths", pa.list_(pa.int64())), ("data", pa.binary()),
])  # fmt: skip


def pack(batch: pa.Table) -> tuple[pa.Table, pa.Table]:
    """``raw_activities`` rows with their ``raw`` moved out: (the rows, ``raw`` NULL; the blocks).

    Rows are packed in (match, seq) order; a row whose ``raw`` is NULL already stays as it is.
    """
    if batch.num_rows == 0:
        return batch, BLOCK_SCHEMA.empty_table()
    batch = batch.sort_by([("match_id", "ascending"), ("seq", "ascending")])
    raw = batch.column("raw").combine_chunks()
    if raw.null_count:
        keep = pc.is_valid(raw)
        packed, blocks = pack(batch.filter(keep))
        return pa.concat_tables([packed, batch.filter(pc.invert(keep))]), blocks
    matches = batch.column("match_id").combine_chunks()
    seqs = batch.column("seq").combine_chunks()
    data = raw.cast(pa.large_binary())  # the UTF-8 bytes as they are
    offsets = np.frombuffer(data.buffers()[1], dtype=np.int64)[data.offset : data.offset + len(data) + 1]
    buf = data.buffers()[2]
    out: dict[str, list[Any]] = {name: [] for name in BLOCK_SCHEMA.names}
    n = batch.num_rows
    for lo, hi in _runs(matches):
        i = lo
        while i < hi:
            j = i + 1
            base = offsets[i]
            while j < hi and j - i < BLOCK_LINES and offsets[j + 1] - base <= BLOCK_BYTES:
                j += 1
            body = buf[int(offsets[i]):int(offsets[j])] if buf is not None else b""
            out["match_id"].append(matches[i].as_py())
            out["first_seq"].append(seqs[i].as_py())
            out["last_seq"].append(seqs[j - 1].as_py())
            out["codec"].append(CODEC)
            out["seqs"].append(seqs.slice(i, j - i))
            out["lengths"].append(list(map(int, offsets[i + 1 : j + 1] - offsets[i:j])))
            out["data"].append(_CODEC.compress(body, asbytes=True))
            i = j
    out["seqs"] = [s.to_pylist() for s in out["seqs"]]
    blocks = pa.table(out, schema=BLOCK_SCHEMA)
    rows = batch.set_column(batch.schema.get_field_index("raw"), "raw", pa.nulls(n, type=pa.string()))
    return rows, blocks


def _runs(matches: pa.Array) -> list[tuple[int, int]]:
    """``[lo, hi)`` index ranges of equal consecutive values."""
    out: list[tuple[int, int]] = []
    values = matches.to_pylist()
    lo = 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[lo]:
            out.append((lo, i))
            lo = i
    return out


def unpack(codec: str, data: bytes, lengths: Iterable[int]) -> list[bytes]:
    """One block's lines."""
    if codec != CODEC:
        raise ValueError(f"raw block codec {codec!r} is not {CODEC!r}")
    lengths = list(lengths)
    body = _CODEC.decompress(data, decompressed_size=sum(lengths), asbytes=True)
    out, at = [], 0
    for n in lengths:
        out.append(body[at : at + n])
        at += n
    return out


def lines(con: duckdb.DuckDBPyConnection, match_id: str, first: int, last: int) -> dict[int, str]:
    """``seq -> raw line`` (as read from the source) of one match's lines ``first``..``last``."""
    return {seq: line.decode("utf-8") for seq, line in _line_bytes(con, match_id, first, last).items()}


def _line_bytes(con: duckdb.DuckDBPyConnection, match_id: str, first: int, last: int) -> dict[int, bytes]:
    """``seq -> the line's UTF-8 bytes`` of one match's lines ``first``..``last``."""
    from queries import sql

    out: dict[int, bytes] = {}
    for seq, raw in con.execute(sql("raw/unpacked"), {"match": match_id, "first": first, "last": last}).fetchall():
        out[int(seq)] = raw.encode("utf-8")
    for codec, seqs, lengths, data in con.execute(sql("raw/blocks"), {"match": match_id, "first": first,
                                                                       "last": last}).fetchall():  # fmt: skip
        for seq, line in zip(seqs, unpack(codec, data, lengths), strict=True):
            if first <= seq <= last:
                out[int(seq)] = line
    return out


def texts(con: duckdb.DuckDBPyConnection, match_id: str | None, seqs: Sequence[int],
          raws: Sequence[str | None]) -> list[str | None]:  # fmt: skip
    """The text of each of one match's rows (``seqs`` and their ``raw`` column): the row's own text where it
    holds one, else its line unpacked from the match's blocks (read only when a row needs them)."""
    if match_id is None or all(r is not None for r in raws):
        return list(raws)
    packed = lines(con, match_id, 1, 2**62)
    return [r if r is not None else packed.get(int(q)) for q, r in zip(seqs, raws, strict=True)]


def repack(con: duckdb.DuckDBPyConnection, match_id: str) -> None:
    """Pack one match's lines again in full blocks (a match written a few lines at a time, as
    ``kifu watch`` writes it, ends in many small blocks that compress less).

    The lines are read a window of :data:`REPACK_WINDOW` old blocks at a time and cut into the same
    blocks :func:`pack` cuts, so memory holds a window's text and the new blocks (compressed), never
    the whole match: a 1,000-round match is about 200 MB of text, several times that as Python strings.
    """
    from queries import sql

    starts = [int(s) for (s,) in con.execute(sql("raw/block_starts"), {"match": match_id}).fetchall()]
    loose_seqs = [int(s) for (s,) in con.execute(sql("raw/unpacked_seqs"), {"match": match_id}).fetchall()]
    if not starts and not loose_seqs:
        return
    # window edges: block starts, and every BLOCK_LINES-th line still as text; REPACK_WINDOW of them a window
    edges = sorted(set(starts) | set(loose_seqs[::BLOCK_LINES]))[::REPACK_WINDOW]
    edges[0] = 1
    out = _Blocks(match_id)
    for lo, hi in zip(edges, [*edges[1:], 2**62 + 1], strict=True):
        window = _line_bytes(con, match_id, lo, hi - 1)
        for seq in sorted(window):
            out.add(seq, window[seq])
    blocks = out.table()  # noqa: F841 - read by name below
    con.execute("delete from raw_blocks where match_id = ?", [match_id])
    con.execute("insert into raw_blocks by name select * from blocks")
    con.execute("update raw_activities set raw = null where match_id = ? and raw is not null", [match_id])


class _Blocks:
    """Lines added in seq order, cut into blocks as :func:`pack` cuts them (at most :data:`BLOCK_LINES`
    lines and :data:`BLOCK_BYTES` bytes, a longer line alone) and compressed as each one fills."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.out: dict[str, list[Any]] = {name: [] for name in BLOCK_SCHEMA.names}
        self.seqs: list[int] = []
        self.body: list[bytes] = []
        self.size = 0

    def add(self, seq: int, line: bytes) -> None:
        if self.seqs and (len(self.seqs) >= BLOCK_LINES or self.size + len(line) > BLOCK_BYTES):
            self._flush()
        self.seqs.append(seq)
        self.body.append(line)
        self.size += len(line)

    def _flush(self) -> None:
        out = self.out
        out["match_id"].append(self.match_id)
        out["first_seq"].append(self.seqs[0])
        out["last_seq"].append(self.seqs[-1])
        out["codec"].append(CODEC)
        out["seqs"].append(self.seqs)
        out["lengths"].append([len(b) for b in self.body])
        out["data"].append(_CODEC.compress(b"".join(self.body), asbytes=True))
        self.seqs, self.body, self.size = [], [], 0

    def table(self) -> pa.Table:
        if self.seqs:
            self._flush()
        return pa.table(self.out, schema=BLOCK_SCHEMA)


#: A match is packed again (:func:`repack`) when its blocks hold fewer lines than this on average.  Blocks of
#: 512 lines and more compress within 3 % of full ones (a 1,000-round dealer log: 1.13 MiB a 40,000 lines
#: in blocks of 1,024 lines, 1.16 in blocks of 512, 1.22 of 256, 1.39 of 100, 1.89 of 30), while packing a
#: 140,000-line match again takes about 5 s: a watcher that kept up with a fast match (blocks of about a
#: thousand lines, one a batch) leaves it as it is; one that followed a slow match (a few lines a block) not.
REPACK_BELOW = BLOCK_LINES // 2


def loose(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Matches whose lines sit in more blocks than :func:`repack` would make, of fewer than :data:`REPACK_BELOW`
    lines on average (or still as text)."""
    return [m for (m,) in con.execute(
        f"select match_id from (select match_id, count(*) as n, sum(len(seqs)) as lines from raw_blocks group by 1) "
        f"where n > ceil(lines / {BLOCK_LINES}) and lines < n * {REPACK_BELOW} "
        "union select distinct match_id from raw_activities where raw is not null order by 1").fetchall()]  # fmt: skip
