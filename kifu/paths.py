"""Paths given on the command line, refused in one line before any work is done.

Every ``kifu`` command names the files and folders it reads or writes in its arguments.  :func:`check`
looks at each once, before the command starts, and says what the system would refuse: a name longer than the
file system takes, a folder where a file is wanted (or a file where a folder is), a device where a database
is wanted, a folder that cannot be written (no permission, a read-only file system).  :func:`refusal` turns
the same problems met later (no space left on ``/dev/full``, an I/O error) into the same one line::

    kifu <command>: <path>: <reason>

Exit status 2 when the path given is wrong (too long, a folder, not a folder, a device, missing), 1 when
the system refuses the work (no permission, read-only, no space, an I/O error).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Problems with the path as given (exit 2); every other OSError is a failure of the work (exit 1).
BAD_ARGUMENT = frozenset({errno.ENAMETOOLONG, errno.EISDIR, errno.ENOTDIR, errno.ENOENT, errno.ELOOP,
                          errno.ENXIO, errno.ENODEV, errno.EINVAL, errno.EEXIST})  # fmt: skip

#: What a path argument must be: a file read or written, a database file, a folder written, a path followed.
KINDS = ("read", "write", "replace", "log", "database", "database-read", "folder", "follow", "input")


@dataclass
class Refused(Exception):
    """A path the command cannot use; ``line(prog)`` is the one line that says why."""

    path: str
    reason: str
    status: int
    message: str | None = None  # said as it is (a message of common.settings), instead of path: reason

    def line(self, prog: str) -> str:
        from common.safe import terminal

        if self.message is not None:
            return f"{prog}: {self.message}"
        if not self.path:  # an error about no path (a socket, a descriptor): the reason alone
            return f"{prog}: {self.reason}"
        return f"{prog}: {terminal(self.path)}: {self.reason}"


def _reason(exc: OSError) -> str:
    text = exc.strerror or os.strerror(exc.errno or 0) or exc.__class__.__name__
    if exc.errno == errno.ENAMETOOLONG:
        text += " (longer than the file system takes)"
    elif exc.errno == errno.EACCES:
        text += " (no permission)"
    return text


def refusal(exc: OSError, path: Any = None) -> Refused:
    """The one line for an OSError the system raised about ``path`` (else the path the error names)."""
    where = path if path is not None else (exc.filename if exc.filename is not None else "")
    if isinstance(where, bytes):
        where = os.fsdecode(where)
    status = 2 if exc.errno in BAD_ARGUMENT else 1
    return Refused(str(where), _reason(exc), status)


def _err(code: int) -> OSError:
    return OSError(code, os.strerror(code))


def _name_max(folder: Path) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return 255


def _existing_ancestor(path: Path) -> Path:
    """The nearest folder above ``path`` that exists as something (or the root / the current folder)."""
    for parent in path.parents:
        try:
            os.stat(parent)
            return parent
        except OSError:
            continue
    return Path(".")


def _writable(folder: Path) -> OSError | None:
    """EROFS or EACCES when nothing can be made in ``folder`` (root passes EACCES, never EROFS)."""
    if os.access(folder, os.W_OK | os.X_OK):
        return None
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    return _err(errno.EROFS if read_only else errno.EACCES)


def problem(value: str, kind: str) -> OSError | None:
    """What the system would refuse about the path ``value`` used as ``kind`` (None: nothing seen).

    ``database``: a folder, or a missing or unusable parent folder, is left to the command's own message
    (``common.settings.database_path``); only what it cannot say is reported here."""
    if kind not in KINDS:
        raise ValueError(kind)
    reading = kind == "database-read"
    if reading:
        kind = "database"
    recorded = kind == "input"  # a recorded log read to its end: a regular file (a FIFO waits, /dev/zero never ends)
    if recorded:
        kind = "read"
    path = Path(value)
    encoded = os.fsencode(value)
    if len(encoded) >= 4096:
        return _err(errno.ENAMETOOLONG)
    limit = _name_max(_existing_ancestor(path.absolute()))
    if any(len(os.fsencode(part)) > limit for part in path.parts):
        return _err(errno.ENAMETOOLONG)
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            return exc if not (kind == "database" and exc.errno == errno.ENOTDIR) else None
        st = None
    if st is None:  # nothing there yet
        if kind == "read":
            return _err(errno.ENOENT)
        parent = path.absolute().parent
        if kind == "database":
            return None if reading or not parent.is_dir() else _writable(parent)
        ancestor = _existing_ancestor(path.absolute())
        if not ancestor.is_dir():
            return _err(errno.ENOTDIR)
        if kind == "follow":
            return None  # waited for
        if kind in ("write", "replace") and not parent.is_dir():
            return None  # a missing folder: the command says which (``--out X: there is no folder Y``)
        return _writable(ancestor if kind == "folder" else parent)
    if kind == "folder":
        if not stat.S_ISDIR(st.st_mode):
            return _err(errno.ENOTDIR)
        return _writable(path)
    if stat.S_ISDIR(st.st_mode):
        return None if kind in ("database", "follow") else _err(errno.EISDIR)
    if kind == "database" and not stat.S_ISREG(st.st_mode):
        return OSError(errno.ENODEV, "a device or special file, not a database file")
    if kind == "replace" and not stat.S_ISREG(st.st_mode):  # written whole under a new name, then renamed
        return OSError(errno.ENODEV, "a device or special file: give a file name (- for standard output)")
    if recorded and not stat.S_ISREG(st.st_mode):
        return OSError(errno.ENODEV, "a device or special file: give a log file")
    if kind == "follow" and not stat.S_ISREG(st.st_mode):  # a FIFO would hold the watcher, /dev/zero never ends
        return OSError(errno.ENODEV, "a device or special file: give a log file or a folder")
    if kind == "log" and not stat.S_ISREG(st.st_mode):  # kifu dealer's log, read back into the database as written
        return OSError(errno.ENODEV, "a device or special file: the log is followed into the database — give a file name")
    if kind in ("replace", "log"):
        kind = "write"
    if (kind == "write" or kind == "database" and not reading) and not os.access(path, os.W_OK):
        return _writable(path.parent) or _err(errno.EACCES)
    return None


def check(items: list[tuple[str, str | None, str]]) -> Refused | None:
    """The first refusal among ``(argument, value, kind)`` items (None values are skipped; ``-`` is stdout)."""
    for name, value, kind in items:
        if value is None or value == "-" or not str(value):
            continue
        exc = problem(str(value), kind)
        if exc is not None:
            refused = refusal(exc, value)
            refused.reason = f"{refused.reason} ({name})" if name else refused.reason
            return refused
        if kind.startswith("database"):  # a folder, a missing folder, a file as the folder: said as ever
            from common.settings import SettingError, database_path

            label = "KIFU_DB" if name == "--db" and os.environ.get("KIFU_DB") == value else name
            try:
                database_path(str(value), name=label)
            except SettingError as exc2:
                return Refused(str(value), str(exc2), 2, message=str(exc2))
    return None


def command_paths(command: str, args: Any) -> list[tuple[str, str | None, str]]:
    """The path arguments of a ``kifu`` command, each with what it must be."""
    db = getattr(args, "db", None)
    if command == "ingest":
        return [("--db", db, "database")]
    if command == "validate":
        return [("--db", db, "database-read")]
    if command == "play":
        return [("--out", args.out, "replace")] + ([("--db", db, "database")] if args.ingest else [])
    if command == "dealer":
        out = args.out or f"kifu-dealer-{args.room}.jsonl"
        return [("--out", out, "log"), ("--db", db, "database")]
    if command == "watch":
        follow = [t for t in args.targets if not t.startswith(("http://", "https://")) and not args.kakomimasu_api]
        return [("--db", db, "database")] + [("", t, "follow") for t in follow]
    if command == "export":
        return [("--db", db, "database-read"), ("--to", args.to, "folder")]
    if command == "serve":
        return [("--db", db, "database-read"), ("--upload-token-file", args.upload_token_file, "read")]
    if command == "replay-log":
        return [("", args.file, "input"), ("--to", args.to, "write")]
    return []


#: Errors of writing that name no file (raised by a write on an open descriptor): said about the file written.
WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def written(command: str, args: Any, exc: OSError | None = None) -> str | None:
    """The file a command writes (for an error of writing, which names no path), else its database; None for
    an ``exc`` that is not an error of writing (a refused connection is not about a file)."""
    if exc is not None and exc.errno not in WRITE_ERRORS:
        return None
    items = command_paths(command, args)
    for name, value, kind in items:
        if kind in ("write", "replace", "folder") and value not in (None, "-"):
            return str(value)
    for name, value, kind in items:
        if kind == "database" and value:
            return str(value)
    return None
