"""Ingest without disturbing readers: write into a copy of the database, then swap it in.

DuckDB allows one writer per file, and a writer locks out readers.  The dashboard keeps
reading the current file while :func:`ingest_swapped` ingests into ``<db>.ingest.tmp`` (a copy
of it), then atomically renames the copy over the original.  Readers that reopen by
modification time pick up the new file; readers with an open connection keep the old one
until they reopen.  A lock file serialises concurrent ingests of the same database.

While a ``kifu watch`` writes the database in place, ``kifu ingest`` does not come here: it hands its
files to the watcher (:mod:`loaders.live.handoff`), and comes here only when the watcher could not read
them (a swap holds ``<db>.lock`` for its whole run, and the watcher's batches wait for it).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from common import settings
from loaders.pipeline import RunReport, ingest
from queries import DatabaseError
from queries.sharing import _fsync_dir, db_lock, storage_problem


def ingest_swapped(sources: list[Any], db: str | Path, *, waiting: Callable[[str], None] | None = None,
                   **kwargs: Any) -> RunReport:  # fmt: skip
    """Ingest into a copy of ``db`` and atomically replace ``db`` with it (serialised by a lock).

    A crash at any point leaves ``db`` untouched (the copy is discarded on the next run); two
    ingests started at once run one after the other, the second on the first's result.  A
    ``db`` reached through a symlink is resolved first: the real file is replaced (the link
    stays a link) and the lock is the real file's, whatever path spelling each run used.

    A run that ingests nothing (no record accepted) changes nothing: an existing ``db`` stays as it
    was, byte for byte (``report.database`` is "unchanged"); when there was none, none is made and
    the lock file goes too ("not made").  Raises :class:`common.settings.SettingError` on a bad
    ``KIFU_MEMORY_LIMIT`` before anything is touched.
    """
    settings.memory_limit()
    db = Path(db).resolve()
    tmp = db.with_name(db.name + ".ingest.tmp")
    if db.exists():
        _check_usable(db)
    # the copy, its WAL and DuckDB's spill folder (``<file>.tmp``), all left behind by a killed run
    leftovers = (tmp, tmp.with_name(tmp.name + ".wal"), tmp.with_name(tmp.name + ".tmp"))
    with db_lock(db, waiting) as lock:
        existed = db.exists()  # under the lock: a run that waited sees what the one before it made
        for leftover in leftovers:
            _remove(leftover)
        try:
            wal = db.with_name(db.name + ".wal")  # a watcher killed between commit and checkpoint left one
            if existed:
                shutil.copy2(db, tmp)
                if wal.exists():
                    shutil.copy2(wal, tmp.with_name(tmp.name + ".wal"))
            report = ingest(sources, tmp, **kwargs)
            if report.status == "empty" or (not existed and not report.ingested and not report.matches):
                report.database = "unchanged" if existed else "not made"  # a new file with nothing in it: none
            else:
                os.replace(tmp, db)
                wal.unlink(missing_ok=True)  # folded into the new file by the ingest
                _fsync_dir(db.parent)
        except (OSError, duckdb.Error) as exc:
            problem = storage_problem(exc, db, existed)
            if problem is None:
                raise
            raise DatabaseError(problem) from None
        finally:
            for leftover in leftovers:
                _remove(leftover)
            if not existed and not db.exists():
                lock.unlink(missing_ok=True)  # still held: a run waiting for it locks the path's next file
    report.db = str(db)
    return report


def _remove(path: Path) -> None:
    """Delete a file or a folder of ours (a symlink is removed, never followed)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _check_usable(db: Path) -> None:
    """Fail early, with the reason, on a file that is not a Kifu database (before copying it)."""
    import queries

    from queries import sharing as live

    con = live.open_read_only(db)  # a kifu watch holding the file lets go of it for the moment
    try:
        queries.check_schema(con, upgrade=True)
    finally:
        con.close()
