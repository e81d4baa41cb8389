"""A match played live for the browser tests and the README's screenshots: a recorded dealer log written
line by line at its recorded pace × ``speed`` (``kifu.replay_log.replay_to_file``) into a file that a
:class:`loaders.live.watch.Watcher` follows into a database, in threads of this process (``kifu serve`` reads
the database from its own process, as it does in real use)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from kifu.replay_log import ReplayInterrupted, replay_to_file
from queries import sharing as live
from loaders.core.feeds import follow_path
from loaders.live.watch import Watcher


class LivePlay:
    """``start()``: the watcher, then the replay; ``wait_events(n)``: until the watcher stored n events;
    ``stop()``: both end (the watcher's last batch says no match is live any more)."""

    def __init__(self, db: Path, log: Path, src: Path, *, speed: float = 10.0) -> None:
        self.db, self.log, self.src, self.speed = db, log, src, speed
        self._stop = threading.Event()
        self.watcher: Watcher | None = None
        self.errors: list[BaseException] = []
        self._threads: list[threading.Thread] = []
        self.lines = 0

    def _sleep(self, seconds: float) -> None:
        if self._stop.wait(max(0.0, seconds)):
            raise KeyboardInterrupt  # replay_to_file finishes the line and ends (ReplayInterrupted)

    def _replay(self) -> None:
        try:
            self.lines = replay_to_file(self.src, self.log, speed=self.speed, sleep=self._sleep, append=True,
                                        max_gap_s=1.0)  # fmt: skip
        except ReplayInterrupted as stop:
            self.lines = stop.lines
        except BaseException as exc:  # noqa: BLE001 - said by the test
            self.errors.append(exc)

    def _watch(self) -> None:
        assert self.watcher is not None
        try:
            self.watcher.run()
        except BaseException as exc:  # noqa: BLE001
            self.errors.append(exc)

    def start(self) -> LivePlay:
        self.log.touch()
        self.watcher = Watcher(self.db, [follow_path(self.log, settle_s=0.5)], poll_s=0.1)
        for target in (self._watch, self._replay):
            t = threading.Thread(target=target, daemon=True)
            t.start()
            self._threads.append(t)
            if target == self._watch:
                self._until(lambda: live.watcher_present(self.db), 30, "the watcher did not start")
        return self

    def _until(self, ok: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not ok():
            if self.errors:
                raise RuntimeError(f"{what}: {self.errors[0]!r}")
            if time.monotonic() > deadline:
                raise TimeoutError(what)
            time.sleep(0.05)

    def events(self) -> int:
        return self.watcher.status.events if self.watcher is not None else 0

    def wait_events(self, n: int, timeout: float = 120) -> None:
        self._until(lambda: self.events() >= n, timeout, f"the watcher did not store {n} events")

    def replaying(self) -> bool:
        return self._threads[1].is_alive() if len(self._threads) > 1 else False

    def stop(self) -> None:
        self._stop.set()
        if self.watcher is not None:
            self.watcher.stop()
        for t in self._threads:
            t.join(60)
