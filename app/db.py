"""The dashboard's read-only access to the Kifu database (path from ``KIFU_DB``)."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

import queries


def db_path() -> Path:
    return Path(os.environ.get("KIFU_DB", queries.DEFAULT_DB)).resolve()


def connect() -> duckdb.DuckDBPyConnection | None:
    """A read-only connection, or ``None`` when there is no database yet."""
    path = db_path()
    if not path.exists():
        return None
    return queries.connect(path, read_only=True)
