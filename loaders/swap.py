"""Ingest without disturbing readers: write into a copy of the database, then swap it in.

DuckDB allows one writer per file, and a writer locks out readers.  The dashboard keeps
reading the current file while :func:`ingest_swapped` ingests into ``<db>.ingest.tmp`` (a copy
of it), then atomically renames the copy over the original.  Readers that reopen by
modification time pick up the new file; readers with an open connection keep the old one
until they reopen.  A lock file serialises concurrent ingests of the same database.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from loaders.pipeline import RunReport, ingest


@contextmanager
def db_lock(db: Path, waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold ``<db>.lock`` (of the real file); say what we wait for when another run holds it."""
    lock = db.with_name(db.name + ".lock")
    with open(lock, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting(f"waiting for another Kifu ingest into {db} to finish (lock {lock})")
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ingest_swapped(sources: list[Any], db: str | Path, *, waiting: Callable[[str], None] | None = None,
                   **kwargs: Any) -> RunReport:  # fmt: skip
    """Ingest into a copy of ``db`` and atomically replace ``db`` with it (serialised by a lock).

    A crash at any point leaves ``db`` untouched (the copy is discarded on the next run); two
    ingests started at once run one after the other, the second on the first's result.  A
    ``db`` reached through a symlink is resolved first: the real file is replaced (the link
    stays a link) and the lock is the real file's, whatever path spelling each run used.
    """
    db = Path(db).resolve()
    tmp = db.with_name(db.name + ".ingest.tmp")
    if db.exists():
        _check_usable(db)
    with db_lock(db, waiting):
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
        if db.exists():
            shutil.copy2(db, tmp)
        try:
            report = ingest(sources, tmp, **kwargs)
            os.replace(tmp, db)
            _fsync_dir(db.parent)
        finally:
            tmp.unlink(missing_ok=True)
    report.db = str(db)
    return report


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (the directory entry), where the platform allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _check_usable(db: Path) -> None:
    """Fail early, with the reason, on a file that is not a Kifu database (before copying it)."""
    import queries

    con = queries.connect(db, read_only=True)
    try:
        queries.check_schema(con)
    finally:
        con.close()
