"""Worker processes for an ingest run, shared by every game.

An ingest with ``--jobs N`` hands work to N worker processes: batches of an ALGORI match's rounds
(:mod:`loaders.games.uno.rounds`) and whole Kakomimasu and CHaser games (:class:`GameWrites`).  Workers are
forked from a clean server process (``forkserver``: they inherit no DuckDB threads) and ignore
Ctrl-C (the ingest process stops them).  However the ingest process ends — SIGKILL included —
the workers, the forkserver and the resource tracker end with it at once, and leave the caller's
output pipes (:mod:`loaders.parallel.lifeline`).  Like any ``multiprocessing`` code, a script that calls
``ingest(..., jobs=N)`` needs the ``if __name__ == "__main__":`` guard (the ``kifu`` command has
it), and should use the pool from its main thread (on Linux the forkserver ends when the thread
that started it ends).

Activities travel to the workers as orjson bytes (about 6 µs each), or pickled when orjson would
not give back the same value (non-finite floats, integers beyond 64 bits, non-JSON types).

This module knows no game: a game module that gives the workers work lists its modules in
:data:`PRELOAD` (imported once by the forkserver, not by every worker).
"""

from __future__ import annotations

import copyreg
import multiprocessing
import os
import pickle
import sys
import types
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

import orjson

from loaders.core.interrupts import signals_held
from loaders.parallel.lifeline import Lifeline, worker_start

#: Rounds of an ALGORI match in one worker task (the batch size :mod:`loaders.games.uno.rounds` plans with): each
#: task also replays the round before it (1/16 more work; 8 rounds cost 1/8), and a 1,000-round match
#: still gives 63 tasks — enough to keep 32 workers busy.
ROUNDS_PER_TASK = 16
_EXACT = orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
#: Modules the forkserver imports once for every worker (game modules add theirs when imported).
PRELOAD = ["loaders.parallel.lifeline", "loaders.parallel.workers", "loaders.core.store", "pandas"]

RowsSink = Callable[[str, Any], None]  # (table, its rows: a list of tuples or a pyarrow.Table)


# replay states hold read-only mappings; they travel between processes as their contents
def _mapping(d: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(d)


copyreg.pickle(types.MappingProxyType, lambda m: (_mapping, (dict(m),)))


def default_jobs() -> int:
    """Worker processes by default: every core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def encode(activity: dict[str, Any]) -> bytes:
    """One activity for a worker, in bytes that give back exactly the same value."""
    try:
        data = orjson.dumps(activity, option=_EXACT)
    except (TypeError, orjson.JSONEncodeError):
        return b"p" + pickle.dumps(activity, protocol=pickle.HIGHEST_PROTOCOL)
    if b"null" in data and orjson.loads(data) != activity:  # NaN / Infinity are written as null
        return b"p" + pickle.dumps(activity, protocol=pickle.HIGHEST_PROTOCOL)
    return b"j" + data


def decode(data: bytes) -> dict[str, Any]:
    return orjson.loads(memoryview(data)[1:]) if data[:1] == b"j" else pickle.loads(memoryview(data)[1:])


#: multiprocessing's resource tracker, after a SIGKILL of the ingest process, removes the pool's semaphores
#: itself and warns "There appear to be N leaked semaphore objects to clean up at shutdown" on the user's
#: terminal: noise (nothing is left behind). The tracker is started with this process's ``-W`` options.
TRACKER_QUIET = "ignore::UserWarning:multiprocessing.resource_tracker"


def quiet_resource_tracker() -> None:
    """Silence the resource tracker's UserWarnings (its "leaked semaphore objects" notice), in the tracker
    only: before it starts, add the filter to the ``-W`` options it inherits (this process's own warning
    filters are unchanged)."""
    if TRACKER_QUIET not in sys.warnoptions:
        sys.warnoptions.append(TRACKER_QUIET)


class RoundPool:
    """The worker processes of one ingest run (started on first use) and what they did."""

    def __init__(self, jobs: int, rounds_per_task: int = ROUNDS_PER_TASK) -> None:
        self.jobs = max(1, jobs)
        self.rounds_per_task = max(1, rounds_per_task)
        self._executor: ProcessPoolExecutor | None = None
        self._lifeline: Lifeline | None = None
        self.batches = 0
        self.replayed_again = 0
        self.games = 0  # whole games (Kakomimasu, CHaser) replayed by the workers
        self._open: list[Any] = []  # work fed and not closed yet (anything with ``settle()``): see :meth:`opened`

    def _start(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # forkserver: workers do not inherit this process's DuckDB threads and locks. pandas is
            # preloaded because pyarrow imports it on its first conversion of Python objects, which
            # would otherwise cost every worker ~0.27 CPU-s in its first batch.
            ctx = multiprocessing.get_context("forkserver")
            quiet_resource_tracker()
            # loaders.parallel.lifeline first: importing it ties the forkserver's life to this process's.
            ctx.set_forkserver_preload(list(dict.fromkeys(PRELOAD)))
            self._lifeline = Lifeline()
            self._executor = ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx,
                                                 initializer=worker_start, initargs=(self._lifeline,))  # fmt: skip
        return self._executor

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """A batch of a match's rounds: ``fn(*args)`` in a worker (a module-level function)."""
        self.batches += 1
        return self._submit(fn, *args)

    def call(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """Any module-level function in a worker (a whole Kakomimasu or CHaser game's replay)."""
        self.games += 1
        return self._submit(fn, *args)

    def _submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        # a submit may start a worker: not to be cut in half by Ctrl-C or SIGTERM
        with signals_held():
            return self._start().submit(fn, *args)

    @property
    def inflight_limit(self) -> int:
        """Results waiting to be written, at most, before the loader waits for the oldest (bounded memory)."""
        return 2 * self.jobs + 2

    def opened(self, m: Any) -> None:
        """``m`` (whose ``settle()`` writes the rows of what it was fed) is open until :meth:`done`."""
        self._open.append(m)

    def done(self, m: Any) -> None:
        if m in self._open:
            self._open.remove(m)

    def settle(self) -> None:
        """Every row of every line fed so far, written (before the store is searched)."""
        for m in list(self._open):
            m.settle()

    def close(self) -> None:
        try:
            if self._executor is not None:
                self._executor.shutdown(wait=True, cancel_futures=True)
                self._executor = None
        finally:
            if self._lifeline is not None and self._executor is None:  # the workers are gone: cut it
                self._lifeline.close()
                self._lifeline = None


class GameWrites:
    """A game module's writes, one game at a time: made here, or — with a pool — made by a worker
    (replay included) into a :class:`loaders.core.store.Recorder` and written here in the games' order."""

    def __init__(self, store: Any, pool: RoundPool | None) -> None:
        self.store = store
        self.pool = pool
        self.queue: deque[tuple[str, Future[Any]]] = deque()  # (match id, its recorder to come), in order

    def write(self, match_id: str, fn: Callable[..., None], *args: Any) -> None:
        """``fn(sink, *args)`` with the store (or a recorder) as ``sink``: a module-level function."""
        if self.pool is None:
            fn(self.store, *args)
            return
        from loaders.core.store import recorded

        self.queue.append((match_id, self.pool.call(recorded, fn, *args)))
        self._drain(block=False)

    def settle(self, match_id: str) -> None:
        """Before a game's stored copy is looked up: a copy still with a worker is written first."""
        if any(mid == match_id for mid, _ in self.queue):
            self._drain(block=True)

    def finish(self) -> None:
        self._drain(block=True)

    def _drain(self, *, block: bool) -> None:
        limit = self.pool.inflight_limit if self.pool is not None else 0
        while self.queue and (block or self.queue[0][1].done() or len(self.queue) > limit):
            _, future = self.queue.popleft()
            future.result().apply(self.store)
