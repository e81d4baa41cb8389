"""Steps an interrupt must not cut in half."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back until the block is done, then delivered to the handlers this
    process had (Ctrl-C: ``KeyboardInterrupt`` as the block ends).

    For steps that leave a mess when interrupted half way: starting a worker process (a child
    forked but not yet known to the pool reads its set-up after this process has cleaned it up,
    and prints a traceback), or rolling a run back while the store's writer thread finishes an
    insert.  Outside the main thread (where handlers cannot be set) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, lambda signum, frame: held.append(signum)) for s in signals}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)  # None: set outside Python
        if held:
            signal.raise_signal(held[0])
