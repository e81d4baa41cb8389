"""``kifu export``: every table of a Kifu database as a Hive-partitioned Parquet (or CSV) lake.

Layout (``docs/export.md``)::

    DIR/_kifu_lake.json                                         schema version, Kifu version, tables and columns
    DIR/<table>/game=<game>/match_id=<match_id>/part-0.parquet   tables with a match_id column, one folder per match
    DIR/<table>/part-0.parquet                                  tables without (load_runs, load_issues, kifu_meta …)

The tables are whatever the database holds (``information_schema``), not a list kept here.  DuckDB's own
``COPY … (PARTITION_BY (game, match_id))`` writes the partitions: it percent-encodes the values in the folder
names (``kakomimasu:abc`` → ``match_id=kakomimasu%3Aabc``), which every Hive reader decodes back.

An export writes everything into a hidden staging folder in ``DIR`` first; only when every table is written
does it replace, per exported match, that match's folders in every table (other matches' folders are left as
they are), the tables without ``match_id`` whole, and the description — folder renames, in a moment.  An
export that fails or is interrupted while writing leaves the lake as it was.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from common.words import count
from queries.lake import FORMATS, META_FILE, NULL_PARTITION, PARTITION_COLUMNS, UNKNOWN_GAME, LakeError, data_files, read_meta

#: A staging folder of an export under way (hidden from Hive readers, which skip names starting with "." or "_").
STAGING_PREFIX = ".kifu-export-"
#: Held (flock) by the export writing into a lake, so two exports into one folder take turns.
LOCK_FILE = ".kifu-export.lock"
#: The longest folder name most file systems take (bytes).
NAME_MAX = 255

Progress = Callable[[str, int, int], None]


class ExportError(RuntimeError):
    """An export that cannot be done; the message is one line. ``status``: the exit status it means."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class ExportReport:
    lake: Path
    format: str
    schema_version: str
    tables: int = 0
    matches: int = 0
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    table_names: list[str] = field(default_factory=list)
    #: Matches not written, each with the reason (their folders cannot be made); the rest is written.
    skipped: list[tuple[str | None, str]] = field(default_factory=list)

    def line(self) -> str:
        """The one line ``kifu export`` ends with."""
        return (f"exported {self.tables} tables, {self.matches} matches, {self.files} files, {_size(self.bytes)} "
                f"in {self.seconds:.1f} s → {self.lake} ({self.format}, schema {self.schema_version})")  # fmt: skip


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} B"  # pragma: no cover


# ---- SQL text ------------------------------------------------------------------------------------------


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def folder_value(value: str | None) -> str:
    """A partition value as its folder name holds it (what DuckDB writes: percent-encoding, UTF-8)."""
    return NULL_PARTITION if value is None else quote(value, safe="-_.~")


def value_of_folder(name: str) -> str | None:
    """The value a ``key=value`` folder stands for (:func:`folder_value` undone)."""
    value = name.split("=", 1)[1]
    return None if value == NULL_PARTITION else unquote(value)


# ---- the database side -----------------------------------------------------------------------------------


@dataclass
class Table:
    name: str
    columns: list[tuple[str, str]]  # (name, DuckDB type), in the table's order

    @property
    def partitioned(self) -> bool:
        return any(c == "match_id" for c, _ in self.columns)

    @property
    def has_game(self) -> bool:
        return any(c == "game" for c, _ in self.columns)


def tables_of(con: Any) -> list[Table]:
    """Every table of the database's main schema, with its columns (from ``information_schema``)."""
    rows = con.execute(
        "select c.table_name, c.column_name, c.data_type from information_schema.columns c "
        "join information_schema.tables t on t.table_catalog = c.table_catalog and t.table_schema = c.table_schema "
        "and t.table_name = c.table_name "
        "where t.table_catalog = current_database() and t.table_schema = 'main' and t.table_type = 'BASE TABLE' "
        "order by c.table_name, c.ordinal_position"
    ).fetchall()
    out: dict[str, Table] = {}
    for table, column, kind in rows:
        out.setdefault(str(table), Table(str(table), [])).columns.append((str(column), str(kind)))
    return list(out.values())


def _game_of(con: Any, names: set[str]) -> dict[str | None, str]:
    """Each match's game, from ``matches`` (empty when the database has no such table)."""
    if "matches" not in names:
        return {}
    return {m: str(g) if g is not None else UNKNOWN_GAME
            for m, g in con.execute("select match_id, any_value(game) from main.matches group by match_id").fetchall()}  # fmt: skip


def _match_ids(con: Any, tables: list[Table]) -> set[str | None]:
    """Every match id any table holds (None: rows without one)."""
    parts = [f"select distinct match_id from main.{_ident(t.name)}" for t in tables if t.partitioned]
    if not parts:
        return set()
    return {r[0] for r in con.execute(" union ".join(parts)).fetchall()}


def _resolve(match: str, known: set[str | None], con: Any = None) -> str | None:
    """A --match as the database spells it: as given, else with Kifu's ``kakomimasu:``/``chaser:`` prefix,
    else the one match its log file's name or the start of its id names (``kifu.matchref``)."""
    for candidate in (match, f"kakomimasu:{match}", f"chaser:{match}"):
        if candidate in known:
            return candidate
    from kifu.matchref import resolve

    pairs: list[tuple[str, str | None]] = [(m, None) for m in known if m is not None]
    if con is not None:
        try:
            from queries import validation

            pairs += validation.match_sources(con)
        except Exception:  # noqa: BLE001 - a database without those tables: ids only
            pass
    found = resolve(match, pairs)
    return found[0] if len(found) == 1 else None


def _select(con: Any, tables: list[Table], games: Iterable[str] | None,
            matches: Iterable[str] | None) -> tuple[set[str | None], bool]:  # fmt: skip
    """The match ids to export and whether that is a selection (False: every match)."""
    from common.safe import terminal

    names = {t.name for t in tables}
    known = _match_ids(con, tables)
    game_of = _game_of(con, names)
    games = list(games or [])
    matches = list(matches or [])
    chosen = set(known)
    if matches:
        picked: set[str | None] = set()
        for m in matches:
            found = _resolve(m, known, con)
            if found is None:
                raise ExportError(f"no match '{terminal(m)}' in the database ({len(known)} matches; "
                                  "`kifu validate --match X` lists them)")  # fmt: skip
            picked.add(found)
        chosen &= picked
    if games:
        present = sorted({game_of.get(m, UNKNOWN_GAME) for m in known})
        unknown = [g for g in games if g not in present]
        if unknown:
            raise ExportError(f"no match of game '{terminal(unknown[0])}' in the database; its games: "
                              f"{', '.join(terminal(g) for g in present) or 'none'}")  # fmt: skip
        chosen = {m for m in chosen if game_of.get(m, UNKNOWN_GAME) in games}
    return chosen, bool(matches or games)


def _schema_version(con: Any, names: set[str]) -> str:
    if "kifu_meta" not in names:
        raise ExportError("the database holds tables that are not Kifu's; give a database made by `kifu ingest`")
    rows = con.execute("select value from main.kifu_meta where key = 'schema_version'").fetchall()
    return str(rows[0][0]) if rows else "unknown"


@contextmanager
def _open_database(db: Path) -> Iterator[Any]:
    """The database, read-only (a ``kifu watch`` writing it lets go of it meanwhile, as for the dashboard)."""
    import queries
    from common.safe import terminal
    from queries import sharing as live

    if not db.exists():
        raise ExportError(f"{terminal(db)}: no such database — run `kifu ingest LOG --db {terminal(db)}` first")
    if not db.is_file():
        raise ExportError(f"{terminal(db)} is not a database file")
    from common.settings import SettingError, memory_limit

    try:
        limit = memory_limit()
    except SettingError as exc:
        raise ExportError(str(exc)) from None
    try:
        opened = live.snapshot(db)  # a watcher writing it is kept out for a file copy's time, not the export's
        con = opened.__enter__()
    except queries.DatabaseError as exc:
        raise ExportError(terminal(exc), status=1 if "locked" in str(exc) else 2) from None
    try:
        queries.set_memory_limit(con, limit)  # DuckDB's buffer pool, as an ingest's (KIFU_MEMORY_LIMIT)
        try:
            queries.check_schema(con, upgrade=True)
        except queries.DatabaseError as exc:
            raise ExportError(terminal(exc)) from None
        yield con
    finally:
        opened.__exit__(None, None, None)


# ---- the lake side ---------------------------------------------------------------------------------------


@contextmanager
def _locked(lake: Path) -> Iterator[None]:
    with open(lake / LOCK_FILE, "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def _has_data(lake: Path, fmt: str | None = None) -> bool:
    """Whether the lake's table folders hold any data file."""
    for entry in lake.iterdir():
        if entry.is_dir() and not entry.name.startswith((".", "_")):
            for ext in ([fmt] if fmt else list(FORMATS)):
                if next(data_files(entry, ext), None) is not None:
                    return True
    return False


def _check_lake(lake: Path, fmt: str, version: str) -> dict[str, Any] | None:
    """The lake's description (None: a new lake); :class:`ExportError` for a folder Kifu must not write into."""
    from common.safe import terminal

    shown = terminal(lake)
    if lake.exists() and not lake.is_dir():
        raise ExportError(f"--to {shown} is a file — give a folder (it is made when missing)")
    if not lake.exists():
        return None
    try:
        meta = read_meta(lake)
    except LakeError as exc:
        raise ExportError(terminal(exc)) from None
    if meta is None:
        if any(not e.name.startswith(".") for e in lake.iterdir()):
            raise ExportError(f"--to {shown} is a folder that is not empty and not a Kifu lake (no {META_FILE}); "
                              "give a new or empty folder")  # fmt: skip
        return None
    if not _has_data(lake):
        return meta  # an empty lake takes any version and format
    if str(meta.get("schema_version")) != version:
        raise ExportError(f"--to {shown} holds a lake of Kifu schema {terminal(meta.get('schema_version'))} and the "
                          f"database is schema {terminal(version)}; export into another folder (or empty this one)")  # fmt: skip
    if meta.get("format") != fmt:
        raise ExportError(f"--to {shown} holds a {terminal(meta.get('format'))} lake; export with --format "
                          f"{terminal(meta.get('format'))} or into another folder")  # fmt: skip
    return meta


def _copy_options(fmt: str, partitioned: bool) -> str:
    opts = ["format parquet"] if fmt == "parquet" else ["format csv", "header true"]
    if partitioned:
        opts += [f"partition_by ({', '.join(PARTITION_COLUMNS)})", "filename_pattern 'part-{i}'",
                 "write_partition_columns false"]  # fmt: skip
    return ", ".join(opts)


#: Tables the lake holds by content, not as stored: ``raw_blocks`` (the packed bytes of the raw lines) is
#: written empty, its lines going to ``raw_activities.raw`` as text (compressed by the file format itself).
UNPACKED = {"raw_blocks": "raw_activities"}


#: Raw lines written per file of ``raw_activities`` (a 1,000-round match has some 137,000): what bounds the
#: memory of an export — one window's texts, never a whole match's.
RAW_WINDOW = 10_000


def _write_raw_lines(con: Any, table: Table, stage: Path, fmt: str, selective: bool,
                     failed: dict[str | None, str]) -> None:  # fmt: skip
    """``raw_activities`` with every line's text, packed or not: one window of ``RAW_WINDOW`` lines of one
    match at a time (bounded memory), each window its own ``part-K`` file of the match's folder.  A match whose
    files cannot be written goes into ``failed`` with the reason; the others are written."""
    target = stage / table.name
    target.mkdir()
    where = (" where match_id in (select match_id from kifu_export_selection)" if selective else
             f" where {_not_skipped('match_id')}")  # fmt: skip
    games = dict(con.execute("select match_id, any_value(game) from main.matches group by 1").fetchall()) \
        if con.execute("select count(*) from information_schema.tables where table_name = 'matches'").fetchone()[0] else {}  # fmt: skip
    names = [c for c, _ in table.columns]
    spans = con.execute(f"select match_id, min(seq), max(seq) from main.raw_activities{where} group by 1 order by 1").fetchall()
    for match, first, last in spans:
        folder = target / f"game={folder_value(games.get(match, UNKNOWN_GAME))}" / f"match_id={folder_value(match)}"
        if match in failed:
            continue
        try:
            _write_raw_match(con, match, int(first), int(last), folder, names, fmt)
        except Exception as exc:
            if not _write_failure(exc):
                raise
            shutil.rmtree(folder, ignore_errors=True)
            failed[match] = _cannot_write(exc)


def _write_raw_match(con: Any, match: str | None, first: int, last: int, folder: Path, names: list[str],
                     fmt: str) -> None:  # fmt: skip
    import pyarrow as pa

    from queries.rawlines import lines

    folder.mkdir(parents=True)
    for part_no, lo in enumerate(range(first, last + 1, RAW_WINDOW)):
        hi = lo + RAW_WINDOW - 1
        rows = con.sql("select * from main.raw_activities where match_id is not distinct from $m and seq between "
                       "$lo and $hi order by seq", params={"m": match, "lo": lo, "hi": hi}).to_arrow_table()  # fmt: skip
        if not rows.num_rows:
            continue
        if rows.column("raw").null_count and match is not None:
            packed = lines(con, match, lo, hi)
            raw = [r if r is not None else packed.get(int(q))
                   for q, r in zip(rows.column("seq").to_pylist(), rows.column("raw").to_pylist(), strict=True)]  # fmt: skip
            del packed
            rows = rows.set_column(names.index("raw"), "raw", pa.array(raw, type=pa.string()))
            del raw
        con.register("kifu_export_part", rows.drop_columns(["match_id"]))
        try:
            _copy(con, "select * from kifu_export_part", folder / f"part-{part_no}.{fmt}", _copy_options(fmt, False))
        finally:
            con.unregister("kifu_export_part")
        del rows


#: Registered while an export runs: the matches left out because their folders cannot be written.
SKIPPED_VIEW = "kifu_export_skipped"


def _not_skipped(column: str) -> str:
    """SQL: the row's match is not one left out (rows without a match are kept)."""
    return f"coalesce({column} not in (select match_id from {SKIPPED_VIEW}), true)"


def _copy(con: Any, query: str, to: Path, options: str) -> None:
    """``COPY (query) TO to``: the one place files of the lake are written by DuckDB."""
    con.execute(f"copy ({query}) to {_literal(str(to))} ({options})")


#: How a staged match folder is put in place (and taken back): a rename within the lake's file system.
_move = os.replace


def _write_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is the file system refusing a write (no space, permission, I/O): a match it hits is
    skipped, not the export."""
    import duckdb

    return isinstance(exc, (OSError, duckdb.IOException, duckdb.PermissionException))


def _cannot_write(exc: BaseException) -> str:
    from common.safe import terminal

    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc) or type(exc).__name__
    else:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"its files cannot be written ({terminal(reason)})"


def _write_table(con: Any, table: Table, stage: Path, fmt: str, selective: bool, has_matches: bool,
                 failed: dict[str | None, str] | None = None) -> None:  # fmt: skip
    """One table into ``stage/<table>``: partitioned by (game, match_id) when it has a match_id, else whole.

    A partitioned table the file system refuses to take whole (no space, permission) is written again match by
    match; a match that cannot be written goes into ``failed`` with the reason, the others are written."""
    failed = {} if failed is None else failed
    name = _ident(table.name)
    target = stage / table.name
    if table.name == "raw_activities" and any(c == "raw" for c, _ in table.columns):
        _write_raw_lines(con, table, stage, fmt, selective, failed)
        return
    if table.name in UNPACKED:
        target.mkdir()
        return
    if not table.partitioned:
        target.mkdir()
        _copy(con, f"select * from main.{name}", target / f"part-0.{fmt}", _copy_options(fmt, False))
        return
    if table.has_game:  # its own game column is the partition (for `matches`, the same thing)
        query = f"select t.* from main.{name} t"
    elif has_matches:
        query = (f"select t.*, coalesce(g.game, {_literal(UNKNOWN_GAME)}) as game from main.{name} t left join "
                 "(select match_id, any_value(game) as game from main.matches group by match_id) g "
                 "on g.match_id = t.match_id")  # fmt: skip
    else:
        query = f"select t.*, {_literal(UNKNOWN_GAME)} as game from main.{name} t"
    if selective:
        query += " where t.match_id in (select match_id from kifu_export_selection)"
    else:
        query += f" where {_not_skipped('t.match_id')}"
    try:
        _copy(con, query, target, _copy_options(fmt, True))
        return
    except Exception as exc:
        if not _write_failure(exc):
            raise
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    for (match,) in con.execute(f"select distinct match_id from ({query}) order by 1").fetchall():
        if match in failed:
            continue
        one = stage / f".one-{uuid.uuid4().hex}"
        only = "is null" if match is None else f"= {_literal(match)}"
        try:
            _copy(con, f"select * from ({query}) where match_id {only}", one, _copy_options(fmt, True))
            for match_dir, _m in list(_partition_dirs(one)):
                dest = target / match_dir.parent.name / match_dir.name
                dest.parent.mkdir(exist_ok=True)
                _move(match_dir, dest)
        except Exception as exc:
            if not _write_failure(exc):
                raise
            failed[match] = _cannot_write(exc)
        finally:
            shutil.rmtree(one, ignore_errors=True)


def _partition_dirs(table_dir: Path) -> Iterator[tuple[Path, str | None]]:
    """Every ``game=*/match_id=*`` folder of a table folder, with the match id it holds."""
    if not table_dir.is_dir():
        return
    for game_dir in sorted(table_dir.iterdir()):
        if game_dir.is_dir() and game_dir.name.startswith(f"{PARTITION_COLUMNS[0]}="):
            for match_dir in sorted(game_dir.iterdir()):
                if match_dir.is_dir() and match_dir.name.startswith(f"{PARTITION_COLUMNS[1]}="):
                    yield match_dir, value_of_folder(match_dir.name)


def _swap_in(lake: Path, stage: Path, tables: list[Table], old_partitioned: set[str],
             replaced: set[str | None]) -> dict[str | None, str]:  # fmt: skip
    """Replace, in every partitioned table, the folders of the ``replaced`` matches by the staged ones, match by
    match; the whole tables by theirs.

    A match is replaced in every table or in none: its old folders are moved aside and its new ones moved in, and
    when the file system refuses one of those moves (permission, I/O) the moves made for it are undone, its old
    folders stay as they were, and it is returned with the reason (the other matches are replaced)."""
    aside = stage / ".replaced"
    aside.mkdir(exist_ok=True)
    old: dict[str | None, list[Path]] = {}
    for name in sorted({t.name for t in tables if t.partitioned} | old_partitioned):
        for match_dir, match in list(_partition_dirs(lake / name)):
            if match in replaced:
                old.setdefault(match, []).append(match_dir)
    new: dict[str | None, list[tuple[Path, Path]]] = {}
    for table in tables:
        if table.partitioned:
            for match_dir, match in list(_partition_dirs(stage / table.name)):
                new.setdefault(match, []).append((match_dir, lake / table.name / match_dir.parent.name / match_dir.name))
    failed: dict[str | None, str] = {}
    for match in sorted(set(old) | set(new), key=lambda m: (m is None, str(m))):
        done: list[tuple[Path, Path]] = []  # (from, to) of every move made for this match
        try:
            for match_dir in old.get(match, []):
                out = aside / uuid.uuid4().hex
                _move(match_dir, out)
                done.append((match_dir, out))
            for staged, dest in new.get(match, []):
                dest.parent.mkdir(parents=True, exist_ok=True)
                if dest.exists():  # a folder name the listing above did not read back as this match
                    out = aside / uuid.uuid4().hex
                    _move(dest, out)
                    done.append((dest, out))
                _move(staged, dest)
                done.append((staged, dest))
        except OSError as exc:
            for src, dst in reversed(done):
                try:
                    _move(dst, src)
                except OSError:  # noqa: PERF203 - as much of it put back as the file system lets
                    pass
            failed[match] = f"its folders cannot be replaced ({exc.strerror or exc})"
    for table in tables:
        staged, table_dir = stage / table.name, lake / table.name
        if table.partitioned:
            table_dir.mkdir(exist_ok=True)
            for game_dir in table_dir.iterdir():
                if game_dir.is_dir() and not any(game_dir.iterdir()):
                    try:
                        game_dir.rmdir()
                    except OSError:
                        pass
        else:
            if table_dir.exists():
                shutil.rmtree(table_dir)
            os.replace(staged, table_dir)
    return failed


def _write_meta(lake: Path, meta: dict[str, Any]) -> None:
    tmp = lake / f".{META_FILE}.{uuid.uuid4().hex}"
    tmp.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, lake / META_FILE)


#: The longest path most systems take (bytes); a match's deepest file must fit in it.
PATH_MAX = 4096


def _unwritable(lake: Path, tables: list[Table], chosen: set[str | None], game_of: dict[str | None, str],
                fmt: str) -> dict[str | None, str]:  # fmt: skip
    """The matches whose folders cannot be written, each with the reason: a folder name over ``NAME_MAX``
    bytes once encoded, or a file path over ``PATH_MAX``."""
    longest = max((len(t.name.encode()) for t in tables if t.partitioned), default=0)
    stage = len(str((lake / f"{STAGING_PREFIX}{uuid.uuid4().hex}").absolute()).encode())
    out: dict[str | None, str] = {}
    for m in chosen:
        game = game_of.get(m, UNKNOWN_GAME)
        names = [f"{PARTITION_COLUMNS[0]}={folder_value(game)}", f"{PARTITION_COLUMNS[1]}={folder_value(m)}"]
        sizes = [len(n.encode()) for n in names]
        if max(sizes) > NAME_MAX:
            which = "match id" if sizes[1] > NAME_MAX else "game"
            out[m] = f"its {which} is too long for a folder name ({max(sizes)} bytes once encoded; at most {NAME_MAX})"
        elif stage + longest + sum(sizes) + len(f"/part-99.{fmt}") + 4 >= PATH_MAX:
            out[m] = f"its files' paths would be too long (at most {PATH_MAX} bytes)"
    return out


def export(db: str | Path, to: str | Path, *, fmt: str = "parquet", games: Iterable[str] | None = None,
           matches: Iterable[str] | None = None, progress: Progress | None = None) -> ExportReport:  # fmt: skip
    """Write every table of the Kifu database ``db`` into the lake folder ``to`` (made when missing).

    ``games`` / ``matches`` restrict the partitioned tables to those matches (``matches``: ids as stored, or a
    Kakomimasu/CHaser game id without Kifu's prefix); the tables without ``match_id`` are written whole every
    time.  ``progress(table, done, total)`` is called once before the first table (``done`` 0) and after each.
    Raises :class:`ExportError`."""
    import pandas as pd

    import common
    from common.safe import terminal

    started = time.monotonic()
    if fmt not in FORMATS:
        raise ExportError(f"--format must be one of {', '.join(FORMATS)} (got '{terminal(fmt)}')")
    db, lake = Path(db), Path(to)
    with _open_database(db) as con:
        tables = tables_of(con)
        if not tables:
            raise ExportError(f"{terminal(db)} holds no table yet — run `kifu ingest LOG --db {terminal(db)}` first")
        names = {t.name for t in tables}
        bad = [t.name for t in tables if t.name.startswith((".", "_")) or "/" in t.name or "\\" in t.name]
        if bad:
            raise ExportError(f"the database has a table whose name cannot be a folder: '{terminal(bad[0])}'")
        version = _schema_version(con, names)
        chosen, selective = _select(con, tables, games, matches)
        game_of = _game_of(con, names)
        left_out = _unwritable(lake, tables, chosen, game_of, fmt)
        chosen -= set(left_out)
        meta = _check_lake(lake, fmt, version)
        try:
            lake.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ExportError(f"--to {terminal(lake)}: cannot make the folder ({exc.strerror})") from None
        report = ExportReport(lake, fmt, version, matches=len([m for m in chosen if m is not None]),
                              skipped=sorted(((m, why) for m, why in left_out.items()), key=lambda x: str(x[0])))  # fmt: skip
        with _locked(lake):
            for old in lake.glob(f"{STAGING_PREFIX}*"):  # left by an export that was killed
                shutil.rmtree(old, ignore_errors=True)
            if meta is not None and not _has_data(lake):  # an empty lake of another version: start it afresh
                for entry in lake.iterdir():
                    if entry.is_dir() and not entry.name.startswith("."):
                        shutil.rmtree(entry)
                meta = None
            stage = lake / f"{STAGING_PREFIX}{uuid.uuid4().hex}"
            stage.mkdir()
            try:
                con.register(SKIPPED_VIEW, pd.DataFrame({"match_id": pd.Series(
                    sorted(str(m) for m in left_out if m is not None), dtype=object)}))  # fmt: skip
                if selective:
                    con.register("kifu_export_selection",
                                 pd.DataFrame({"match_id": pd.Series(sorted(m for m in chosen if m is not None),
                                                                     dtype=object)}))  # fmt: skip
                if progress is not None:
                    progress("", 0, len(tables))
                failed: dict[str | None, str] = {}  # matches the file system refused to take, and why
                for i, table in enumerate(tables, 1):
                    _write_table(con, table, stage, fmt, selective, "matches" in names, failed)
                    if progress is not None:
                        progress(table.name, i, len(tables))
                for table in tables:  # a match not written whole is written nowhere: its old folders stay
                    for match_dir, match in list(_partition_dirs(stage / table.name)):
                        if match in failed:
                            shutil.rmtree(match_dir)
                written = list(data_files(stage, fmt))
                report.files = len(written)
                report.bytes = sum(f.stat().st_size for f in written)
                old_partitioned = set((meta or {}).get("partitioned", []))
                failed.update(_swap_in(lake, stage, tables, old_partitioned, chosen - set(failed)))
                if failed:
                    report.skipped = sorted([*report.skipped, *failed.items()], key=lambda x: str(x[0]))
                    report.matches -= len([m for m in failed if m is not None])
                _write_meta(lake, {
                    "schema_version": version,
                    "kifu_version": common.__version__,
                    "format": fmt,
                    "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "partition_by": list(PARTITION_COLUMNS),
                    "partitioned": sorted(t.name for t in tables if t.partitioned),
                    "tables": {t.name: [{"name": c, "type": k} for c, k in t.columns] for t in tables},
                })  # fmt: skip
            except OSError as exc:
                raise ExportError(f"--to {terminal(lake)}: cannot write the lake ({exc.strerror or exc})", status=1) from None
            except Exception as exc:
                import duckdb

                if isinstance(exc, duckdb.Error):
                    raise ExportError(f"cannot export: {terminal(str(exc).splitlines()[0])}", status=1) from None
                raise
            finally:
                shutil.rmtree(stage, ignore_errors=True)
    report.tables = len(tables)
    report.table_names = [t.name for t in tables]
    report.seconds = time.monotonic() - started
    return report


# ---- the command -----------------------------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser, default_db: str) -> None:
    p.add_argument("--db", default=default_db, help="DuckDB database file, made by `kifu ingest` (default: %(default)s)")
    p.add_argument("--to", required=True, metavar="DIR",
                   help="the lake folder (made when missing; an existing lake is updated match by match)")
    p.add_argument("--format", choices=FORMATS, default="parquet", help="file format (default: %(default)s)")
    p.add_argument("--game", action="append", metavar="G",
                   help="only the matches of this game: algori-uno, kakomimasu, chaser (repeatable)")
    p.add_argument("--match", nargs="+", action="extend", metavar="M",
                   help="only these matches (ids as stored; Kakomimasu and CHaser: also the game's id without "
                   "Kifu's kakomimasu:/chaser: prefix); their folders are replaced, other matches' are left as they are")  # fmt: skip
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _progress_bar(enabled: bool, err: Any) -> tuple[Progress | None, Callable[[], None]]:
    if not enabled:
        return None, lambda: None
    from tqdm import tqdm

    from common.safe import terminal

    bar: list[Any] = []

    def step(table: str, done: int, total: int) -> None:
        if not bar:
            bar.append(tqdm(total=total, unit=" table", desc="export", leave=False, file=err, dynamic_ncols=True,
                            mininterval=0.5))  # fmt: skip
        bar[0].set_postfix_str(terminal(table), refresh=False)  # a table name of the database file given
        bar[0].update(done - bar[0].n)

    return step, lambda: bar[0].close() if bar else None


def run(args: argparse.Namespace, out: Any = None, err: Any = None) -> int:
    """Exit 0: the lake is written; 1: the database is locked, the lake cannot be written, or a match was skipped
    (listed; every other one written); 2: a bad argument
    (a missing database or not Kifu's, a --to Kifu must not write into, an unknown --match or --game)."""
    from common.safe import terminal
    from common.settings import SettingError, database_path

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        database_path(args.db, name="KIFU_DB" if os.environ.get("KIFU_DB") == args.db else "--db")
    except SettingError as exc:
        print(f"kifu export: {exc}", file=err)
        return 2
    step, close = _progress_bar(not args.no_progress, err)
    try:
        report = export(args.db, args.to, fmt=args.format, games=args.game, matches=args.match, progress=step)
    except ExportError as exc:
        close()
        print(f"kifu export: {exc}", file=err)
        return exc.status
    close()
    print(terminal(report.line()), file=out)
    for match, why in report.skipped:
        print(f"kifu export: skipped match {terminal(_shortened(match))}: {why}", file=err)
    if report.skipped:
        print(f"kifu export: {count(len(report.skipped), 'match', 'matches')} skipped, every other one written", file=err)
        return 1
    return 0


def _shortened(match: str | None, keep: int = 60) -> str:
    """A match id as a line shows it: whole when short, else its start, its length and its end."""
    if match is None or len(match) <= keep:
        return str(match)
    return f"{match[:40]}…({len(match)} characters)…{match[-12:]}"
