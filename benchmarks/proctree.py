"""CPU seconds and peak memory of a process's descendants (the ingest's worker processes), from /proc.

Workers forked by a ``forkserver`` are not children of the ingest process, so ``getrusage``
does not count them; this samples ``/proc`` instead (Linux only), every ``interval`` seconds,
and keeps the last figures seen for each descendant.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def _hwm_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Descendants:
    """Samples the descendants of ``root`` (default: this process) in a background thread."""

    def __init__(self, root: int | None = None, interval: float = 0.1) -> None:
        self.root = root or os.getpid()
        self.interval = interval
        self.cpu: dict[int, float] = {}
        self.hwm: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Descendants:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> None:
        parents: dict[int, int] = {}
        cpu: dict[int, float] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                st = _stat(int(entry))
                if st is not None:
                    parents[int(entry)], cpu[int(entry)] = st
        for pid, c in cpu.items():
            p, hops = parents.get(pid), 0
            while p and p != self.root and hops < 8:
                p, hops = parents.get(p), hops + 1
            if p == self.root:
                self.cpu[pid] = c
                self.hwm[pid] = max(self.hwm.get(pid, 0), _hwm_kib(pid))

    @property
    def cpu_seconds(self) -> float:
        return sum(self.cpu.values())

    @property
    def peak_rss_mib(self) -> float:
        """Peak RSS of the largest descendant (the forkserver itself is small)."""
        return max(self.hwm.values(), default=0) / 1024
