"""The process a plug-in bot of ``kifu play`` runs in: ``python bot_host.py path/to/bot.py function``.

Run by :mod:`referee.plugin` as a script (the standard library only, nothing of Kifu's), it speaks
JSON lines with the referee: one view in on its standard input, one answer out on its standard
output.  The bot itself never sees those two: its ``print`` and anything written to file
descriptor 1 go to standard error (which the referee shows prefixed with the bot's name), and
its standard input is empty.

Lines out: ``{"ready": true, "idle": bool}`` once the bot is loaded (or ``{"error": text,
"status": 2 or 1}`` — no such function, or a module that failed to import — and exit); then per
view ``{"action": answer}`` or ``{"raised": "Type: message"}`` (the traceback is printed on
standard error).  A bot's ``sys.exit`` or ``os._exit`` ends this process: the referee sees its
answers end and reports the exit status.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path


def main(path: str, name: str) -> int:
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")  # the referee's channel, under another number
    views = os.fdopen(os.dup(0), "r", encoding="utf-8")
    os.dup2(2, 1)  # the bot's prints (Python's or a C library's) go to standard error
    sys.stdout = sys.stderr
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115

    def send(message: dict[str, object]) -> None:
        answers.write(json.dumps(message) + "\n")
        answers.flush()

    file = Path(path).resolve()
    sys.path[0] = str(file.parent)  # the bot imports its own modules as if run as `python bot.py`
    try:
        spec = importlib.util.spec_from_file_location("kifu_bot", file)
        if spec is None or spec.loader is None:
            send({"error": f"{path} cannot be loaded as Python", "status": 2})
            return 2
        module = importlib.util.module_from_spec(spec)
        sys.modules["kifu_bot"] = module
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001  # the module failed to import: its traceback, then the referee is told
        traceback.print_exc()
        send({"error": f"cannot be loaded: {type(exc).__name__}: {exc}", "status": 1})
        return 1
    fn = getattr(module, name, None)
    if not callable(fn):
        send({"error": f"{path} has no function {name!r}", "status": 2})
        return 2
    send({"ready": True, "idle": bool(getattr(fn, "idle", False))})
    for line in views:
        view = json.loads(line)
        try:
            action = fn(view)
        except Exception as exc:  # noqa: BLE001  # its traceback (not this file's frame), then the referee is told
            traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next if exc.__traceback__ else None)
            sys.stderr.flush()
            send({"raised": f"{type(exc).__name__}: {exc}"})
            continue
        try:
            send({"action": action})
        except (TypeError, ValueError):  # not JSON: the referee says what it was
            send({"action": repr(action)[:200]})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
