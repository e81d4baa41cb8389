"""One database file, one process writing it live and dashboards reading it: who may open it when.

DuckDB lets one process open a database file for writing, and a process that has it open (even
read-only) keeps every writer out.  ``kifu ingest`` lives with that by writing a copy and renaming
it over the file (:mod:`loaders.live.swap`); a watcher cannot copy the whole database for every batch
of a few lines, so it writes the file in place, in short windows, and the dashboard lets go of
the file between page runs while a watcher is there.  Two lock files beside the database say who
is where:

``<db>.watch``
    held (``flock`` exclusive) by the one ``kifu watch`` writing into ``<db>``, for as long as it
    runs; it holds its process id.  :func:`watcher_present` asks whether the lock is held — a
    watcher killed with SIGKILL holds nothing, so a stale file never counts.
``<db>.watch.gate``
    held exclusive by the watcher while it has the file open; a reader takes it shared only for the
    moment it opens the file.  A reader that finds the watcher holding the file waits at the gate.
``<db>.watch.want``
    a reader about to open the file holds it shared while it waits at the gate: the watcher, which
    keeps the file open between its batches while nobody else wants it (opening a database and
    checkpointing cost more than a batch of a second of lines), sees the lock taken at its next
    poll, closes the file and opens the gate.  For its next batch it takes the gate again, waits
    for the page runs already reading to end, and opens the file again.  A page run therefore
    waits at most one poll and one batch, and a batch at most for the runs already under way:
    neither side starves the other.

The dashboard side of the protocol is :func:`read_gate` (used by ``app.ui``); the watcher's side
is :func:`watching` and :class:`Writer`.  Every batch also holds ``<db>.lock``, the lock
``kifu ingest`` and the upload page hold while they swap a new file in, so a swap never loses a
batch and a batch never lands in a file about to be replaced.  (``kifu ingest`` does not swap while a
watcher is there: it hands its files to the watcher, ``loaders.live.handoff``.)
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import duckdb

import queries
from common import settings
from queries import DatabaseError

#: How long a page run waits at the gate for a batch before it reads anyway (it then finds the
#: file locked and says "being updated"; a batch never takes this long).
READ_WAIT_S = 10.0
#: Pause between two tries to open a file that readers still hold.
RETRY_S = 0.02
#: How long a batch waits, the gate closed, for the page runs already reading to let go of the file before it
#: opens the gate again and tries later (:class:`Deferred`): a page run that has just started must not make
#: every page that comes after it wait for it through the watcher.  Once batches have been put off for
#: :data:`DEFER_MAX_S` the watcher waits for the file however long it takes (a batch is never starved).
GRACE_S = 0.3
DEFER_MAX_S = 10.0
#: The write-ahead log's size at which DuckDB checkpoints a watcher's batches into the file.
WAL_CHECKPOINT = "8MB"  # 1MB: checkpoints 8× as often, a database 5× as large before compaction


def watch_file(db: Path) -> Path:
    return db.with_name(db.name + ".watch")


def gate_file(db: Path) -> Path:
    return db.with_name(db.name + ".watch.gate")


def want_file(db: Path) -> Path:
    return db.with_name(db.name + ".watch.want")


def resume_file(db: Path) -> Path:
    """Where ``kifu watch`` keeps the replay state of the matches it follows (``loaders.live.watch``)."""
    return db.with_name(db.name + ".watch.resume")


def watcher_present(db: str | Path) -> bool:
    """Whether a ``kifu watch`` is writing into ``db`` right now (its lock is held)."""
    path = watch_file(Path(db))
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError:
        return False
    try:
        fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        fh.close()  # closing lets go of a lock taken just now
    return False


def watcher_pid(db: str | Path) -> int | None:
    """The process id the watcher of ``db`` wrote in its lock file (None: no watcher)."""
    if not watcher_present(db):
        return None
    try:
        return int(watch_file(Path(db)).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def watching(db: str | Path) -> Iterator[Path]:
    """Be the one watcher of ``db`` while the block runs (DatabaseError when another one is)."""
    db = Path(db)
    path = watch_file(db)
    try:
        fh = open(path, "a+")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise DatabaseError(f"cannot write {path} ({exc.strerror or exc}) — choose a --db in a folder you can write") from None
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        fh.close()
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            pid = watcher_pid(db)
            raise DatabaseError(f"another kifu watch{f' (process {pid})' if pid else ''} is already writing into "
                                f"{db}; stop it first, or watch into another --db file") from None  # fmt: skip
        raise
    try:
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        gate_file(db).touch()
        want_file(db).touch()
        yield path
    finally:
        for p in (gate_file(db), want_file(db), path):  # gone before the lock is let go: a new watcher makes new files
            try:
                p.unlink()
            except OSError:
                pass
        fh.close()


#: A flag for :func:`_gate`: while waiting, say so on ``<db>.watch.want`` (a reader).
_WANT = 1 << 20


@contextmanager
def _gate(db: Path, how: int, timeout: float | None) -> Iterator[bool]:
    """Hold the gate (``how``: LOCK_SH or LOCK_EX, with :data:`_WANT`: holding the want lock shared
    while waiting); yields False when there is no gate (no watcher) or the wait timed out."""
    want: IO[Any] | None = None
    if how & _WANT:
        how &= ~_WANT
        try:
            want = open(want_file(db), "rb")  # noqa: SIM115 - closed below
            fcntl.flock(want, fcntl.LOCK_SH)
        except OSError:
            want = None
    try:
        fh: IO[Any] = open(gate_file(db), "rb")  # noqa: SIM115 - closed below
    except OSError:
        if want is not None:
            want.close()
        yield False
        return
    try:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fh, how | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if deadline is not None and time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.005)
        yield True
    finally:
        fh.close()
        if want is not None:
            want.close()


@contextmanager
def read_gate(db: str | Path, timeout: float = READ_WAIT_S) -> Iterator[bool]:
    """A reader about to open ``db``: wait while a watcher's batch is being written, then open it inside
    the block.  Yields whether a watcher is there (the reader should then let go of the file soon)."""
    db = Path(db)
    if not watcher_present(db):
        yield False
        return
    with _gate(db, fcntl.LOCK_SH | _WANT, timeout):
        yield True


class Deferred(Exception):
    """A batch put off: page runs were still reading after :data:`GRACE_S` (the gate is open again)."""


class Writer:
    """The watcher's hold on the database file: opened for a batch, kept open between batches while no
    reader wants the file (:meth:`yield_to_readers`), closed for readers, for a compaction, and at the end."""

    def __init__(self, db: str | Path, *, waiting: Callable[[str], None] | None = None) -> None:
        self.db = Path(db)
        self.waiting = waiting
        self.con: duckdb.DuckDBPyConnection | None = None
        self._gate: IO[Any] | None = None
        self.identity: tuple[int, int] | None = None  # the file the open connection is on
        self.opened = 0  # times the file was opened (a figure for benchmarks)

    @contextmanager
    def batch(self, insist: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        """The connection for one batch, under ``<db>.lock`` (a swap waits for the batch, and the reverse).

        While another run holds ``<db>.lock`` (an ingest swapping a new file in), the file is let go first:
        readers never wait at the gate for an ingest.  ``insist=False``: raise :class:`Deferred` when page
        runs still read after :data:`GRACE_S` (the gate opened again)."""

        with db_lock(self.db, self.waiting, before_wait=lambda: self.release(checkpoint=False)):
            if self.con is not None and file_identity(self.db) != self.identity:
                self.release(checkpoint=False)  # a swap put another file there: this one is no more
            if self.con is None:
                self._take_gate()
                try:
                    self.con = _open_alone(self.db, self.waiting, None, grace=None if insist else GRACE_S)
                except Deferred:
                    self.release(checkpoint=False)
                    raise
                self.con.execute("set wal_autocheckpoint = ?", [WAL_CHECKPOINT])
                self.identity = file_identity(self.db)
                self.opened += 1
            try:
                yield self.con
            except BaseException:
                self.release(checkpoint=False)
                raise

    def _take_gate(self) -> None:
        try:
            fh = open(gate_file(self.db), "rb")  # noqa: SIM115 - closed in release()
        except OSError:
            return  # no watch files: a writer used outside kifu watch
        fcntl.flock(fh, fcntl.LOCK_EX)
        self._gate = fh

    def readers_waiting(self) -> bool:
        """Whether a reader holds ``<db>.watch.want`` (waits for the file)."""
        try:
            with open(want_file(self.db), "rb") as fh:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return True
        except OSError:
            return False
        return False

    def yield_to_readers(self) -> bool:
        """Close the file if a reader wants it (between batches); returns whether it did."""
        if self.con is not None and self.readers_waiting():
            self.release(checkpoint=False)
            return True
        return False

    def release(self, *, checkpoint: bool) -> None:
        """Close the file (``checkpoint``: fold the write-ahead log into it first) and open the gate."""
        if self.con is not None:
            try:
                if not checkpoint:
                    self.con.execute("pragma disable_checkpoint_on_shutdown")
            except duckdb.Error:
                pass
            self.con.close()
            self.con = None
        if self._gate is not None:
            self._gate.close()
            self._gate = None


@contextmanager
def write_window(db: str | Path, *, waiting: Callable[[str], None] | None = None,
                 stop: Callable[[], bool] | None = None, checkpoint: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:  # fmt: skip
    """The watcher's connection for one batch: the ingest lock, the gate, then the file itself once the
    readers inside have left.  ``waiting`` hears (once per window) what the batch waits for.

    ``checkpoint=False`` leaves the batch in DuckDB's write-ahead log ``<db>.wal`` when the window
    closes; DuckDB checkpoints by itself once the log passes :data:`WAL_CHECKPOINT`.  A checkpoint
    rewrites each table's newest row group whole, so one per small batch would cost the size of the
    match every batch.  Readers replay the log as they open the file; a swap (``kifu ingest``) copies
    it with the file."""

    db = Path(db)
    with db_lock(db, waiting), _gate(db, fcntl.LOCK_EX, None):
        con = _open_alone(db, waiting, stop)
        try:
            con.execute("set wal_autocheckpoint = ?", [WAL_CHECKPOINT])
            yield con
            if not checkpoint:
                con.execute("pragma disable_checkpoint_on_shutdown")
        finally:
            con.close()


def _open_alone(db: Path, waiting: Callable[[str], None] | None,
                stop: Callable[[], bool] | None, grace: float | None = None) -> duckdb.DuckDBPyConnection:  # fmt: skip
    """Open ``db`` for writing once the readers already inside have let go (the gate keeps new ones out);
    ``grace``: raise :class:`Deferred` when they still read after that many seconds."""
    told = False
    started = time.monotonic()
    while True:
        try:
            return queries.connect(db)
        except DatabaseError as exc:
            # "Unique file handle conflict": a reader in this very process has the file attached
            if "locked" not in str(exc) and "file handle conflict" not in str(exc).lower():
                raise
            if stop is not None and stop():
                raise
            if grace is not None and time.monotonic() - started > grace:
                raise Deferred(str(db)) from None
            if waiting is not None and not told and time.monotonic() - started > 2.0:
                told = True
                waiting(f"waiting for readers of {db} to let go of it (a dashboard page still running)")
            time.sleep(RETRY_S)


def open_read_only(db: str | Path) -> duckdb.DuckDBPyConnection:
    """``db`` opened read-only through the gate: a ``kifu watch`` holding the file lets go of it for the
    moment (retried while it is locked by a watcher, up to :data:`READ_WAIT_S`). Raises
    ``queries.DatabaseError`` as ``queries.connect`` does."""
    import queries

    for _ in range(int(READ_WAIT_S / RETRY_S)):
        try:
            with read_gate(db):
                return queries.connect(db, read_only=True)
        except queries.DatabaseError as exc:
            if "locked" not in str(exc) or not watcher_present(db):
                raise
            time.sleep(RETRY_S)
    return queries.connect(db, read_only=True)


@contextmanager
def snapshot(db: str | Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """``db`` read-only for a long read (``kifu export``): while a ``kifu watch`` writes it, a private copy of
    the file and its write-ahead log, taken in the moment the watcher has let go of the file (a copy at disk
    speed), so that the watcher is kept out for that moment only, not for the whole read — and the pages with
    it.  Without a watcher the file itself (an ingest swaps a new file in beside it: the read goes on in the
    old one).  Raises ``queries.DatabaseError`` as :func:`open_read_only` does."""
    db = Path(db)
    if not watcher_present(db):
        con = open_read_only(db)
        try:
            yield con
        finally:
            con.close()
        return
    copy = db.with_name(f"{db.name}.snapshot-{os.getpid()}.tmp")
    wal, copy_wal = db.with_name(db.name + ".wal"), copy.with_name(copy.name + ".wal")
    try:
        held = open_read_only(db)  # through the gate: the watcher lets go; while it is open nothing writes the file
        try:
            shutil.copyfile(db, copy)
            if wal.exists():
                shutil.copyfile(wal, copy_wal)
        finally:
            held.close()
        con = queries.connect(copy, read_only=True)
    except OSError as exc:
        copy.unlink(missing_ok=True)
        copy_wal.unlink(missing_ok=True)
        raise DatabaseError(storage_problem(exc, db) or f"cannot copy {db} for reading ({exc})") from None
    except BaseException:
        copy.unlink(missing_ok=True)
        copy_wal.unlink(missing_ok=True)
        raise
    try:
        yield con
    finally:
        con.close()
        copy.unlink(missing_ok=True)
        copy_wal.unlink(missing_ok=True)


def free_share(con: duckdb.DuckDBPyConnection) -> float:
    """The share of the database file's blocks that are free (space a compaction gives back)."""
    row = con.execute("select free_blocks, total_blocks from pragma_database_size()").fetchone()
    return float(row[0]) / row[1] if row and row[1] else 0.0


def compact(db: str | Path, waiting: Callable[[str], None] | None = None) -> None:
    """Rewrite ``db`` without its free blocks and swap the new file in.

    Small batches written in place leave the file with free space (DuckDB rewrites a table's newest
    row group at every checkpoint and does not shrink the file); the watcher compacts once a match it
    followed has ended and when it stops — never per batch.  Readers are kept out as for a batch; a
    reader that opens the file afterwards reads the new one.
    """

    db = Path(db)
    tmp = db.with_name(db.name + ".compact.tmp")
    with db_lock(db, waiting):
        with _gate(db, fcntl.LOCK_EX, None):
            _open_alone(db, waiting, None).close()  # no reader inside, the log checkpointed into the file
        # Readers may open the file again meanwhile: the copy reads it read-only, as they do, and nothing
        # writes it (a batch or an ingest waits for <db>.lock); they read the new file from their next run.
        for p in (tmp, tmp.with_name(tmp.name + ".wal")):
            p.unlink(missing_ok=True)
        hub = duckdb.connect(":memory:", config=queries.OFFLINE)
        try:
            queries.set_memory_limit(hub, settings.memory_limit())  # the copy in bounded memory ($KIFU_MEMORY_LIMIT)
            src, dst = (str(p).replace("'", "''") for p in (db, tmp))
            hub.execute(f"attach '{src}' as kifu_src (read_only)")
            hub.execute(f"attach '{dst}' as kifu_dst")
            hub.execute("copy from database kifu_src to kifu_dst")
            hub.execute("detach kifu_src")
            _repack(hub)
            hub.execute("detach kifu_dst")
        except BaseException:
            hub.close()
            tmp.unlink(missing_ok=True)
            raise
        hub.close()
        os.replace(tmp, db)
        _fsync_dir(db.parent)


def _repack(hub: duckdb.DuckDBPyConnection) -> None:
    """The compacted copy's lines packed in full blocks (batches pack a few lines at a time)."""
    from queries import rawlines

    hub.execute("use kifu_dst")
    hub.execute("begin transaction")
    for match_id in rawlines.loose(hub):
        rawlines.repack(hub, match_id)
    hub.execute("commit")
    hub.execute("use memory")


def file_identity(db: str | Path) -> tuple[int, int] | None:
    """``(device, inode)`` of the database file: a swap (``kifu ingest``) gives the path another one."""
    try:
        st = os.stat(db)
    except OSError:
        return None
    return st.st_dev, st.st_ino


@contextmanager
def db_lock(db: Path, waiting: Callable[[str], None] | None = None,
            before_wait: Callable[[], None] | None = None) -> Iterator[Path]:  # fmt: skip
    """Hold ``<db>.lock`` (of the real file); say what we wait for when another run holds it (and call
    ``before_wait`` first: a watcher lets go of the file so that readers do not wait with it).

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
                if before_wait is not None:
                    before_wait()
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


def _is_file_at(fh: Any, path: Path) -> bool:
    """Whether the open file ``fh`` is the file ``path`` names now."""
    try:
        at = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fh.fileno())
    return (at.st_dev, at.st_ino) == (held.st_dev, held.st_ino)


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


_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


_NO_ACCESS = (errno.EACCES, errno.EPERM, errno.EROFS)
