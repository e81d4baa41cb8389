"""Kifu's database layer: schema, connections and one read query per file.

Every SQL statement Kifu runs lives in a ``.sql`` file under ``queries/schema`` (DDL) or
``queries/sql`` (reads).  Python callers load them with :func:`sql` and run them through a
DuckDB connection from :func:`connect`.  Pages and notebooks never hold SQL themselves.

Beside them: the boards derived from keyframes (``boards``), the packed raw lines (``rawlines``),
how processes share one database file (``sharing``) and the exported lake (``lake``).  This package
imports only ``rules`` and ``common`` (docs/architecture.md): no loader, no page, no streamlit.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import duckdb

HERE = Path(__file__).resolve().parent
SCHEMA_DIR = HERE / "schema"
SQL_DIR = HERE / "sql"

#: Bump when a table or column changes; stored in ``kifu_meta``.
SCHEMA_VERSION = "8"
#: Older schema versions this Kifu upgrades in place (new columns are filled in by the next ingest).
#: None since 8: schema 8 stores boards as keyframes and raw lines packed, which an older file
#: cannot be turned into without its logs' replay — such a file is refused, saying so.
UPGRADABLE: tuple[str, ...] = ()

DEFAULT_DB = "kifu.duckdb"


class DatabaseError(RuntimeError):
    """A database file Kifu cannot use (locked, not DuckDB, not Kifu's, too new)."""


@functools.cache
def sql(name: str) -> str:
    """Return the text of ``queries/sql/<name>.sql`` (``name`` may contain ``/``)."""
    path = SQL_DIR / f"{name}.sql"
    return path.read_text(encoding="utf-8")


def schema_statements() -> list[str]:
    """DDL files in apply order."""
    return [p.read_text(encoding="utf-8") for p in sorted(SCHEMA_DIR.glob("*.sql"))]


def apply_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create every Kifu table that does not exist yet, upgrading an older schema (idempotent)."""
    check_schema(con, upgrade=True)
    for text in schema_statements():
        con.execute(text)
    con.execute(
        "insert or replace into kifu_meta values ('schema_version', ?)", [SCHEMA_VERSION]
    )


def check_schema(con: duckdb.DuckDBPyConnection, catalog: str | None = None, *, upgrade: bool = False) -> None:
    """Refuse a database written by another schema version (or by something else)."""
    tables = {
        r[0]
        for r in con.execute(
            "select table_name from information_schema.tables where table_catalog = coalesce(?, current_database())",
            [catalog],
        ).fetchall()
    }
    if not tables:
        return
    if "kifu_meta" not in tables:
        raise DatabaseError("the database file holds tables that are not Kifu's; use another --db file")
    rows = con.execute("select value from kifu_meta where key = 'schema_version'").fetchall()
    version = rows[0][0] if rows else None
    if version != SCHEMA_VERSION and not (upgrade and version in UPGRADABLE):
        older = version is not None and version.isdigit() and int(version) < int(SCHEMA_VERSION)
        raise DatabaseError(
            f"the database was written by an older Kifu (schema {version}; this Kifu uses {SCHEMA_VERSION}, which "
            "stores boards as keyframes and raw lines packed); ingest the logs again into a new --db file"
            if older else
            f"the database was written by another Kifu version (schema {version}, this Kifu uses "
            f"{SCHEMA_VERSION}); ingest into a new --db file"
        )


def not_a_database(path: str | Path) -> str:
    """The message for a --db that is a file but not a DuckDB database (most likely a log)."""
    from common.safe import terminal

    shown = terminal(path)
    return (f"{shown} is not a DuckDB database (is it a log? ingest it with "
            f"`kifu ingest {shown} --db kifu.duckdb`)")  # fmt: skip


def _is_duckdb_file(path: Path) -> bool:
    """Whether ``path`` holds a DuckDB database: its header says "DUCK" at byte 8 (an empty file is a
    database DuckDB has yet to write)."""
    try:
        with path.open("rb") as f:
            head = f.read(12)
    except OSError:
        return True  # let DuckDB say what is wrong
    return not head or head[8:12] == b"DUCK"


#: Every DuckDB connection Kifu opens: nothing is fetched from the network (DuckDB would otherwise download an
#: extension a query needs that its wheel does not bundle; docs/deploy.md "Nothing leaves the machine").
OFFLINE = {"autoinstall_known_extensions": False}


def offline(con: duckdb.DuckDBPyConnection) -> None:
    """No extension downloaded by this connection (see :data:`OFFLINE`)."""
    try:
        con.execute("set autoinstall_known_extensions = false")
    except duckdb.Error:  # pragma: no cover - a DuckDB without the setting downloads nothing either
        pass


def connect(path: str | Path, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open a Kifu database, turning DuckDB's errors into one-line, actionable ones."""
    path = Path(path)
    if read_only and not path.exists():
        raise DatabaseError(
            f"{path}: no such database — run `kifu ingest LOG --db {path}` first"
        )
    if path.is_file() and not _is_duckdb_file(path):
        raise DatabaseError(not_a_database(path))
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as exc:
        text = str(exc)
        if "lock" in text.lower():
            raise DatabaseError(
                f"{path}: the database is locked by another Kifu process "
                "(an ingest is running, or a dashboard holds it for writing); "
                "wait for it to finish or use another --db file"
            ) from exc
        if "No space left on device" in text:  # a full disk, not a file of another kind
            raise DatabaseError(f"{path}: No space left on device") from exc
        raise DatabaseError(f"{path}: not a DuckDB database ({text.splitlines()[0]})") from exc
    except duckdb.Error as exc:
        raise DatabaseError(f"{path}: cannot open database ({str(exc).splitlines()[0]})") from exc
    offline(con)  # set, not given at open: DuckDB refuses two configurations of one file in a process
    try:
        con.execute("set enable_progress_bar = false")  # Kifu shows its own progress; keep stdout clean
    except duckdb.Error:  # inside Jupyter DuckDB refuses to touch the setting without ipywidgets
        pass
    return con


def set_memory_limit(con: duckdb.DuckDBPyConnection, limit: str) -> None:
    """Cap DuckDB's buffer pool at ``limit``, a size checked by :func:`common.settings.memory_limit`
    (passed as a parameter: no setting's text is ever pasted into SQL)."""
    con.execute("set memory_limit = ?", [limit])


def table_count(con: duckdb.DuckDBPyConnection, catalog: str) -> int:
    """How many tables the attached database ``catalog`` holds (0: a file DuckDB made, nothing ingested)."""
    row = con.execute("select count(*) from information_schema.tables where table_catalog = ?", [catalog]).fetchone()
    return int(row[0]) if row else 0


def open_hub(limit: str) -> duckdb.DuckDBPyConnection:
    """The dashboard's in-memory DuckDB, capped at ``limit`` and tried with a first query (closed
    again, the error raised, when DuckDB cannot work in that size)."""
    hub = duckdb.connect(":memory:", config=OFFLINE)
    try:
        set_memory_limit(hub, limit)
        hub.execute("set enable_progress_bar = false")
        hub.execute("select count(*) from duckdb_settings()").fetchall()
    except duckdb.Error:
        hub.close()
        raise
    return hub


def attach_read_only(hub: duckdb.DuckDBPyConnection, path: str | Path, name: str) -> None:
    """ATTACH a Kifu database read-only to ``hub`` as catalog ``name`` (schema checked)."""
    path = Path(path)
    if not path.exists():
        raise DatabaseError(f"{path}: no such database — run `kifu ingest LOG --db {path}` first")
    literal = str(path).replace("'", "''")
    try:
        hub.execute(f"attach '{literal}' as {name} (read_only)")
    except duckdb.Error as exc:
        if "lock" in str(exc).lower():
            raise DatabaseError(
                f"{path}: the database is locked by another program writing it "
                "(a DuckDB shell, or a Kifu older than this one); close it, or wait for it to finish"
            ) from exc
        raise DatabaseError(f"{path}: not a DuckDB database ({str(exc).splitlines()[0]})") from exc
    cur = hub.cursor()
    try:
        cur.execute(f"use {name}")
        check_schema(cur, catalog=name, upgrade=True)
    except DatabaseError:
        hub.execute(f"detach database if exists {name}")
        raise
    finally:
        cur.close()


def fetch_df(con: duckdb.DuckDBPyConnection, name: str, params: Any = None) -> Any:
    """Run ``queries/sql/<name>.sql`` with ``params`` and return a pandas DataFrame."""
    return con.execute(sql(name), params or {}).df()


def scalar(con: duckdb.DuckDBPyConnection, query: str, params: Any = None) -> Any:
    """First column of the first row (or ``None``), fetching the result completely.

    DuckDB 2 refuses further work on a connection while an ``execute()`` result is only
    partly fetched, so single values are always read with ``fetchall()``.
    """
    rows = con.execute(query, params or []).fetchall()
    return rows[0][0] if rows else None
