"""Kifu's tables as a lake of Parquet (or CSV) files, and Kifu's SQL over it.

``kifu export`` (:mod:`kifu.export`) writes every table of a database into a folder, one folder per
table; a table with a ``match_id`` column is partitioned Hive-style by game and match::

    DIR/_kifu_lake.json                                        what the lake holds (schema version, columns)
    DIR/<table>/game=<game>/match_id=<match_id>/part-0.parquet  a table with match_id, one folder per match
    DIR/<table>/part-0.parquet                                 a table without (load_runs, kifu_meta, …)

Folder names are DuckDB's percent-encoding of the values (``kakomimasu:abc`` → ``match_id=kakomimasu%3Aabc``;
NULL → ``__HIVE_DEFAULT_PARTITION__``), which Hive readers (DuckDB, pyarrow, Spark, Polars) decode.

:func:`connect_lake` opens the lake as an in-memory DuckDB database with one view per table, its columns in
the table's order and of the table's types, so every read query of ``queries/sql`` runs on it unchanged.

This module must not import streamlit or anything from ``app``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from queries import OFFLINE, SCHEMA_VERSION, DatabaseError

#: The lake's own description, at its root.
META_FILE = "_kifu_lake.json"
#: The Hive partition columns of a table that has a ``match_id`` column, outermost first.
PARTITION_COLUMNS = ("game", "match_id")
#: The ``game=`` folder of rows whose match has no ``matches`` row.
UNKNOWN_GAME = "__unknown__"
#: The folder name of a NULL partition value (DuckDB's, Hive's and pyarrow's convention).
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
FORMATS = ("parquet", "csv")


class LakeError(DatabaseError):
    """A folder Kifu cannot read as its lake (none, not Kifu's, another schema version)."""


def read_meta(lake: str | Path) -> dict[str, Any] | None:
    """The lake's ``_kifu_lake.json`` (None when the folder has none); :class:`LakeError` when it is unreadable."""
    path = Path(lake) / META_FILE
    if not path.is_file():
        return None
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise LakeError(f"{path}: not a Kifu lake description ({exc.__class__.__name__})") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("tables"), dict) or meta.get("format") not in FORMATS:
        raise LakeError(f"{path}: not a Kifu lake description (no tables or format)")
    return meta


def data_files(folder: Path, fmt: str) -> Iterator[Path]:
    """The data files (``*.parquet`` or ``*.csv``) under ``folder``, hidden folders (``.…``) left out."""
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        yield from (Path(root) / f for f in sorted(files) if f.endswith(f".{fmt}") and not f.startswith("."))


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _glob_escaped(path: str) -> str:
    """``path`` with DuckDB's glob characters taken literally (a folder named ``runs[1]`` stays that folder)."""
    return "".join(f"[{c}]" if c in "[]*?" else c for c in path)


def _reader(table_dir: Path, fmt: str, partitioned: bool, types: dict[str, str]) -> str:
    """The table function reading one table's files."""
    pattern = _literal(_glob_escaped(str(table_dir.resolve())) + ("/**/*." if partitioned else "/*.") + fmt)
    opts = ["union_by_name = true", f"hive_partitioning = {'true' if partitioned else 'false'}"]
    if partitioned:
        hive = ", ".join(f"{_literal(c)}: {_literal(types.get(c, 'VARCHAR'))}" for c in PARTITION_COLUMNS)
        opts.append(f"hive_types = {{{hive}}}")
    if fmt == "csv":
        # every value as text (cast to the table's type below); "" is an empty string, an empty field NULL
        opts += ["header = true", "all_varchar = true", "allow_quoted_nulls = false", "delim = ','", "quote = '\"'",
                 "escape = '\"'"]  # fmt: skip
        return f"read_csv({pattern}, {', '.join(opts)})"
    return f"read_parquet({pattern}, {', '.join(opts)})"


def table_view(lake: Path, table: str, columns: list[dict[str, str]], fmt: str) -> str:
    """The SELECT that reads ``table`` from the lake: its columns in order, cast to their types."""
    types = {c["name"]: c["type"] for c in columns}
    partitioned = "match_id" in types
    folder = lake / table
    if next(data_files(folder, fmt), None) is not None:
        cols = ", ".join(f"cast({_ident(c['name'])} as {c['type']}) as {_ident(c['name'])}" for c in columns)
        return f"select {cols} from {_reader(folder, fmt, partitioned, types)}"
    # no file (a table with no rows and a match_id: nothing to partition): the columns, no row
    cols = ", ".join(f"cast(null as {c['type']}) as {_ident(c['name'])}" for c in columns)
    return f"select {cols} where false"


def check_meta(lake: str | Path, meta: dict[str, Any] | None) -> dict[str, Any]:
    """``meta`` when it describes a lake of this Kifu's schema; else :class:`LakeError`, in one line."""
    if meta is None:
        if not Path(lake).is_dir():
            raise LakeError(f"{lake}: no such lake — make one with `kifu export --db FILE --to {lake}`")
        raise LakeError(f"{lake}: not a Kifu lake (no {META_FILE}) — make one with `kifu export --db FILE --to {lake}`")
    version = str(meta.get("schema_version"))
    if version != SCHEMA_VERSION:
        raise LakeError(f"{lake}: the lake holds Kifu schema {version}, this Kifu reads schema {SCHEMA_VERSION}; "
                        "export the database again into another folder")  # fmt: skip
    return meta


def connect_lake(lake: str | Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with one VIEW per table of the lake at ``lake``, so that Kifu's read
    queries (``queries/sql``, :mod:`queries.dashboard`, :mod:`queries.validation`) run on it unchanged.

    The views read the files when queried (a later ``kifu export`` into the folder is seen); their columns are
    the table's, in its order, of its types (the partition columns cast back).  Raises :class:`LakeError` for
    a folder that is not a Kifu lake or holds another schema version."""
    lake = Path(lake)
    meta = check_meta(lake, read_meta(lake))
    fmt = str(meta["format"])
    con = duckdb.connect(":memory:", config=OFFLINE)
    try:
        try:
            con.execute("set enable_progress_bar = false")
        except duckdb.Error:  # Jupyter without ipywidgets
            pass
        for table, columns in sorted(meta["tables"].items()):
            con.execute(f"create view {_ident(table)} as {table_view(lake, table, columns, fmt)}")
    except duckdb.Error as exc:
        con.close()
        raise LakeError(f"{lake}: cannot read the lake ({str(exc).splitlines()[0]})") from exc
    return con
