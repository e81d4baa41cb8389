"""A plug-in bot of ``kifu play`` as a separate party with a clock, as the contest treats a player.

The bot (``path/to/bot.py:function``) runs in its own Python process (:mod:`referee.bot_host`):
the referee sends it each view as a JSON line and waits for its answer at most the clock (the
profile's ``action_ms``, or ``--bot-timeout-ms``).  What can go wrong stays the bot's:

* no answer in time: :class:`~referee.match.BotTimeout` — the table writes the profile's timeout
  penalty (or stops the match, when the rules set no clock).  The bot keeps thinking; its late
  answer is read and thrown away before it is asked again, on the next question's clock;
* an exception: its traceback on standard error, :class:`~referee.match.BotFailed` ``raised …``;
* an exit (``sys.exit``, ``os._exit``, a crash, a kill): ``BotFailed`` with the exit status;
* prints: on standard error, each line prefixed with the bot's name — never in the log.

The clock is a wait on a queue the bot's answers are put in by a thread reading its standard output
(:func:`_lines`), so it runs the same on Linux, macOS and Windows (``select`` on a pipe is POSIX only).
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from referee.match import BotFailed, BotTimeout

HOST = Path(__file__).with_name("bot_host.py")
#: How long a bot's module may take to load (its imports, a model read from disk).
LOAD_S = 30.0


class PluginBot:
    """``bot(view) -> action``, answered by the bot's own process within ``limit_ms``."""

    def __init__(self, path: str, function: str, name: str, limit_ms: int) -> None:
        self.name = name
        self.limit_ms = limit_ms
        self.late = False  # a question it was timed out on is still being answered
        self.gone = False  # its answers ended (the process exited, or closed its standard output)
        self.proc = subprocess.Popen([sys.executable, str(HOST), path, function], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self.relay = threading.Thread(target=_relay, args=(self.proc.stderr, name), daemon=True)
        self.relay.start()
        self.answers: queue.Queue[bytes | None] = queue.Queue()  # its lines, then None at their end
        self.reader = threading.Thread(target=_lines, args=(self.proc.stdout, self.answers), daemon=True)
        self.reader.start()
        try:
            hello = self._answer(time.monotonic() + max(LOAD_S, limit_ms / 1000))
        except BotFailed as exc:
            self.close()
            raise BotFailed(f"{exc} while loading") from None
        if hello is None or "ready" not in hello:
            self.close()
            if hello is not None and hello.get("status") == 2:
                raise ValueError(hello["error"])  # no such function: a bad argument
            raise BotFailed(hello["error"] if hello else f"did not load within {LOAD_S:.0f} s")
        self.idle = bool(hello.get("idle"))  # asked while others play (docs/referee.md)

    def __call__(self, view: dict[str, Any]) -> Any:
        deadline = time.monotonic() + self.limit_ms / 1000
        if self.late:  # the answer to the question it was timed out on comes first, and is thrown away
            late = self._answer(deadline)
            if late is None:
                raise BotTimeout(self.limit_ms)
            self.late = False
            if "raised" in late:
                raise BotFailed(f"raised {late['raised']} (on the question before, after its time was up)")
        try:
            self.proc.stdin.write(json.dumps(view).encode() + b"\n")  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            raise self._gone() from None
        answer = self._answer(deadline)
        if answer is None:
            self.late = True
            raise BotTimeout(self.limit_ms)
        if "raised" in answer:
            raise BotFailed(f"raised {answer['raised']}")
        return answer.get("action")

    def _answer(self, deadline: float) -> dict[str, Any] | None:
        """The bot's next line, or None when the deadline passes first; BotFailed when the process is gone."""
        if self.gone:
            raise self._gone()
        try:
            line = self.answers.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if line is None:
            self.gone = True
            raise self._gone()
        return json.loads(line)  # type: ignore[no-any-return]

    def _gone(self) -> BotFailed:
        try:
            status = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return BotFailed("closed its channel to the referee")
        if status < 0:
            try:
                return BotFailed(f"was killed by signal {-status} ({signal.Signals(-status).name})")
            except ValueError:
                return BotFailed(f"was killed by signal {-status}")
        return BotFailed(f"exited with status {status}")

    def close(self) -> None:
        """Ends the bot's process (asked to stop first: its input closes) and shows the last of its output."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
                self.proc.wait(timeout=0.5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.relay.join(timeout=2)
        self.reader.join(timeout=2)


def _lines(stream: IO[bytes], into: queue.Queue[bytes | None]) -> None:
    """The bot's answers (its host's lines on standard output) into ``into``, then None when they end."""
    try:
        for line in iter(stream.readline, b""):
            if line.endswith(b"\n"):  # a line cut by the end of the output is no answer
                into.put(line)
    except (OSError, ValueError):  # closed under us
        pass
    into.put(None)


def _relay(stream: IO[bytes], name: str) -> None:
    """The bot's standard error (and its prints) on the referee's, each line prefixed with the bot's name."""
    for line in iter(stream.readline, b""):
        sys.stderr.write(f"[{name}] {line.decode(errors='replace').rstrip()}\n")
        sys.stderr.flush()
