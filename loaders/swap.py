"""Ingest without disturbing readers: write into a copy of the database, then swap it in.

DuckDB allows one writer per file, and a writer locks out readers.  The dashboard keeps
reading the current file while :func:`ingest_swapped` ingests into ``<db>.ingest.tmp`` (a copy
of it), then atomically renames the copy over the original.  Readers that reopen by
modification time pick up the new file; readers with an open connection keep the old one
until they reopen.  A lock file serialises concurrent ingests of the same database.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from kifu import settings
from loaders.pipeline import RunReport, ingest
from queries import DatabaseError


@contextmanager
def db_lock(db: Path, waiting: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Hold ``<db>.lock`` (of the real file); say what we wait for when another run holds it.

    The holder may delete the lock file before it lets go (a run that made no database leaves no lock
    file): a run that was waiting then holds a file no longer in the folder, sees it (the path names
    another file, or none) and locks the path's file again — so two runs never hold the lock at once.
    Yields the lock file's path.
    """
    lock = db.with_name(db.name + ".lock")
    told = False
    while True:
        try:
            fh = open(lock, "a+")  # noqa: SIM115 - closed below, which also lets go of the lock
        except OSError as exc:  # a folder Kifu may not write in: one line, nothing made
            raise DatabaseError(storage_problem(exc, db, db.exists()) or f"cannot write {lock} ({exc.strerror or exc}) — "
                                "choose a --db in a folder you can write") from None
        try:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if waiting is not None and not told:
                    told = True
                    waiting(f"waiting for another Kifu ingest into {db} to finish (lock {lock})")
                fcntl.flock(fh, fcntl.LOCK_EX)
            if _is_file_at(fh, lock):
                break
        except BaseException:
            fh.close()
            raise
        fh.close()  # the lock file was deleted while we waited: lock the one at the path now
    try:
        yield lock
    finally:
        fcntl.flock(fh, fcntl.LOCK_UN)
        fh.close()


def _is_file_at(fh: Any, path: Path) -> bool:
    """Whether the open file ``fh`` is the file ``path`` names now."""
    try:
        at = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fh.fileno())
    return (at.st_dev, at.st_ino) == (held.st_dev, held.st_ino)


def ingest_swapped(sources: list[Any], db: str | Path, *, waiting: Callable[[str], None] | None = None,
                   **kwargs: Any) -> RunReport:  # fmt: skip
    """Ingest into a copy of ``db`` and atomically replace ``db`` with it (serialised by a lock).

    A crash at any point leaves ``db`` untouched (the copy is discarded on the next run); two
    ingests started at once run one after the other, the second on the first's result.  A
    ``db`` reached through a symlink is resolved first: the real file is replaced (the link
    stays a link) and the lock is the real file's, whatever path spelling each run used.

    A run that ingests nothing (no record accepted) changes nothing: an existing ``db`` stays as it
    was, byte for byte (``report.database`` is "unchanged"); when there was none, none is made and
    the lock file goes too ("not made").  Raises :class:`kifu.settings.SettingError` on a bad
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


_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
_NO_ACCESS = (errno.EACCES, errno.EPERM, errno.EROFS)


def storage_problem(exc: BaseException, db: Path, existed: bool = True) -> str | None:
    """One actionable line for a run that failed for lack of disk space, permission or memory.

    Returns None for any other error (it is not ours to explain).  ``existed``: whether ``db`` was there
    before the run (else the line says that no database was made).
    """
    left = "the database is unchanged" if existed else "no database was made"
    text = str(exc)
    low = text.lower()
    code = getattr(exc, "errno", None)
    folder = db.parent
    need = _size(db)
    if code in _DISK_FULL or "no space left" in low or "disk quota" in low:
        return (f"the disk holding {folder} is full ({_human(_free(folder))} free; an ingest needs room for a copy "
                f"of the database, {_human(need)}, plus the new data) — free some space or give --db on "
                f"another disk; {left}")  # fmt: skip
    if code in _NO_ACCESS or "permission denied" in low or "read-only file system" in low:
        where = getattr(exc, "filename", None) or folder
        return (f"cannot write {where}: permission denied or read-only — Kifu writes a copy next to the database "
                f"and renames it; choose a --db in a folder you can write; {left}")  # fmt: skip
    if isinstance(exc, duckdb.OutOfMemoryException):
        free = _free(folder)
        if free < max(need, 256 << 20):  # DuckDB spills to disk: a full disk reads as "out of memory"
            return (f"out of room: DuckDB could not spill to the disk holding {folder} ({_human(free)} free) — "
                    f"free some space or give --db on another disk; {left}")  # fmt: skip
        try:
            limit = settings.memory_limit()
        except settings.SettingError:  # checked before the run: not reached
            limit = settings.INGEST_MEMORY
        return (f"DuckDB reached its memory limit ({limit}) — raise it, e.g. KIFU_MEMORY_LIMIT=1GB kifu ingest …; "
                f"{left}")  # fmt: skip
    return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _free(folder: Path) -> int:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return 0


def _human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n} B"


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

    from loaders import live

    con = live.open_read_only(db)  # a kifu watch holding the file lets go of it for the moment
    try:
        queries.check_schema(con, upgrade=True)
    finally:
        con.close()
