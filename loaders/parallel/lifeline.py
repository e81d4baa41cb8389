"""The helper processes of an ingest end with it, however it ends — SIGKILL included.

``--jobs`` starts, through ``multiprocessing``'s ``forkserver`` start method, a resource tracker
and a forkserver (children of the ingest process) and the workers (children of the forkserver).
All three kinds end when the ingest process does, within milliseconds (one still starting: as soon
as its interpreter is up, a tenth of a second or so):

- the workers watch a :class:`Lifeline`, a pipe whose write end only the ingest process holds:
  its read end reaches EOF the moment that process is gone, even while it waits, a zombie, for
  its caller to reap it (a caller that reads the output pipes to EOF before it reaps, as
  ``subprocess.run`` does, would wait for ever on workers that probe the process with signal 0,
  which a zombie answers);
- the forkserver, which imports this module first of all it preloads, asks the kernel to kill it
  when the ingest process dies (Linux ``PR_SET_PDEATHSIG``), even while it still preloads and
  cannot see its own pipe from the ingest process close; elsewhere it ends once the workers are
  gone, after preloading;
- the resource tracker ends by itself once the ingest process and the workers are gone (they
  hold the only write ends of its pipe).

Neither the forkserver nor the workers keep the caller's stdin or stdout (they never read or
print); stderr stays theirs, for warnings and a crash's last words, and is released as they end.
(The resource tracker, started by ``multiprocessing`` itself, keeps all three until it ends.)  The
forkserver dies with the *thread* that started it: the pool is to be used from the main thread
(as ``kifu ingest`` and the upload job do).

This module imports only the standard library, so that the forkserver reaches its guard at once.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
from multiprocessing import reduction
from types import FrameType
from typing import Any

PR_SET_PDEATHSIG = 1


class Lifeline:
    """A pipe whose write end only this process holds; each worker gets its own copy of the read end.

    The write end is close-on-exec and never handed to any process (the forkserver and the resource
    tracker are started with only the descriptors ``multiprocessing`` names); pickled while a worker
    is started (the pool's initializer argument), the object becomes the worker's read end."""

    def __init__(self) -> None:
        self.read, self.write = os.pipe()

    def __reduce__(self) -> tuple[Any, ...]:
        return _inherited_fd, (reduction.DupFd(self.read),)

    def close(self) -> None:
        """Cut it: any worker still watching exits."""
        for fd in (self.write, self.read):
            os.close(fd)


def _inherited_fd(dup: Any) -> int:
    return int(dup.detach())


def quiet_stdio() -> None:
    """stdin and stdout on /dev/null: a helper never reads or prints, and must not keep the caller's pipes."""
    if sys.stdout is not None:
        sys.stdout.flush()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)


def worker_start(lifeline: int) -> None:
    """A worker's initializer: Ctrl-C is the ingest process's to handle (it stops the workers); exit
    as soon as the ingest process is gone (the lifeline's EOF), rather than linger with its work."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    quiet_stdio()

    def watch() -> None:
        try:
            while os.read(lifeline, 1):  # nothing is ever written: only EOF (or an error) ends the wait
                pass
        finally:
            os._exit(1)

    threading.Thread(target=watch, name="kifu-lifeline", daemon=True).start()


def die_with_parent() -> None:
    """Linux: the kernel sends SIGKILL when the thread that started this process ends."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    arg = ctypes.c_ulong
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, arg(signal.SIGKILL), arg(0), arg(0), arg(0))
    except (OSError, AttributeError):  # pragma: no cover - no prctl: the forkserver ends after preloading
        pass


def guard_forkserver() -> None:
    """In the forkserver, while it preloads this module: ignore Ctrl-C like the workers, leave the
    caller's stdin and stdout, die with the ingest process.  Anywhere else: nothing."""
    from multiprocessing import forkserver

    frame: FrameType | None = sys._getframe()
    while frame is not None and frame.f_code is not forkserver.main.__code__:
        frame = frame.f_back
    if frame is None:
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    quiet_stdio()
    die_with_parent()
    alive = frame.f_locals.get("alive_r")
    if isinstance(alive, int) and _gone(alive):  # died before the prctl: no signal will come
        os._exit(0)


def _gone(alive: int) -> bool:
    """Whether the ingest process that started this forkserver has ended (or is ending).

    ``alive`` is the read end of the pipe whose write end ``multiprocessing`` gives the ingest
    process and every worker; while preloading, before any worker exists, it reaches EOF when
    the ingest process ends — unless a request for a worker, sent just before, is still on its way
    here: the descriptors it carries (that write end among them) stay open with it.  On Linux,
    then, the parent is asked whether it still holds that write end: the ingest process does
    until it dies; whoever adopted this process after it never did."""
    if select.select([alive], [], [], 0)[0]:
        return True
    if not sys.platform.startswith("linux"):
        return False
    pipe = f"pipe:[{os.fstat(alive).st_ino}]"
    folder = f"/proc/{os.getppid()}/fd"
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, ProcessLookupError):
        return True
    except OSError:  # not ours to look at: cannot tell, the forkserver ends after preloading
        return False
    for name in names:
        try:
            if os.readlink(f"{folder}/{name}") == pipe:
                return False
        except OSError:
            continue
    return True


guard_forkserver()
