"""A ``kifu watch`` in a process of its own, for the tests of the dashboard reading while it writes.

``python -m tests.app.live_watcher DB LOG OUT.json`` follows ``LOG`` into ``DB`` with
:class:`loaders.live.watch.Watcher` (what ``kifu watch LOG --db DB`` runs) until SIGTERM, which calls
``watcher.stop()``; then it writes what it did to ``OUT.json``: events stored, batches, and how long
each batch waited for the file (``queries.sharing.Writer.batch``: for the dashboard's readers to let go
of it) and wrote.

The watcher runs in another process than the dashboard, as it does in real use: DuckDB keeps
the file to one process at a time, and within one process it refuses a second open of an attached
file outright instead of saying it is locked.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from queries import sharing as live
from loaders.core.feeds import follow_path
from loaders.live.watch import Watcher


def main(db: str, log: str, out: str) -> int:
    waits: list[float] = []
    holds: list[float] = []
    notes: list[str] = []
    batch = live.Writer.batch

    @contextlib.contextmanager
    def timed(self: live.Writer, *args: Any, **kwargs: Any) -> Iterator[Any]:
        asked = time.monotonic()
        with batch(self, *args, **kwargs) as con:  # the file: still open from the last batch, or opened once readers let go
            got = time.monotonic()
            waits.append(got - asked)
            try:
                yield con
            finally:
                holds.append(time.monotonic() - got)

    live.Writer.batch = timed  # type: ignore[method-assign,assignment]
    watcher = Watcher(Path(db), [follow_path(log, settle_s=0.3)], poll_s=0.05, on_note=notes.append)
    signal.signal(signal.SIGTERM, lambda *_: watcher.stop())
    waiting_seen: list[str] = []

    def tick(status: Any) -> None:
        if status.waiting:
            waiting_seen.append(status.waiting)

    watcher.run(on_tick=tick)
    Path(out).write_text(json.dumps({
        "events": watcher.status.events, "batches": watcher.status.batches, "waits": waits, "holds": holds,
        "notes": notes, "waiting": waiting_seen,
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
