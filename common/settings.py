"""Kifu's settings from the environment and the command line, checked before they are used.

A setting that cannot be used raises :class:`SettingError` whose message is one line saying which
setting, what it holds and what it should hold; the CLI prints it, the dashboard shows it.  A value
that reaches DuckDB is built only from what the check accepted (and passed as a parameter).

This module has no dependency: the CLI, the loaders, the SQL layer and the dashboard share it.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from common.safe import terminal

__all__ = ["SettingError", "MEMORY_LIMIT", "memory_limit", "database_path", "port", "positive_int", "switch"]

#: The environment variable that caps DuckDB's memory, and its defaults (ingest; dashboard).
MEMORY_LIMIT = "KIFU_MEMORY_LIMIT"
INGEST_MEMORY = "256MB"
DASHBOARD_MEMORY = "512MB"

#: The units DuckDB's ``memory_limit`` takes, spelt as Kifu writes them (KB = 1000 bytes, KiB = 1024).
_UNITS = {u.lower(): u for u in ("KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB")}
_SIZE = re.compile(r"(\d+(?:\.\d+)?|\.\d+) ?([a-z]+)", re.ASCII | re.IGNORECASE)
SIZE_EXAMPLES = "a number and a unit (KB, MB, GB, TB or KiB, MiB, GiB, TiB), e.g. 256MB, 1.5GB or 2GiB"


class SettingError(ValueError):
    """A setting Kifu cannot use; the message is one line saying which and what would do."""


def _shown(value: str) -> str:
    """A value as an error message quotes it: terminal-safe, and cut when long."""
    text = terminal(value)
    return f"'{text[:60]}…'" if len(text) > 60 else f"'{text}'"


def memory_limit(value: str | None = None, *, default: str = INGEST_MEMORY, name: str = MEMORY_LIMIT) -> str:
    """DuckDB's memory limit: ``value`` (else ``$KIFU_MEMORY_LIMIT``, else ``default``) checked and
    written again from its parts, e.g. ``'1.5 gb'`` → ``'1.5GB'``.

    Raises :class:`SettingError` for anything but a number above zero with one of DuckDB's units.
    """
    if value is None:
        value = os.environ.get(name) or default
    m = _SIZE.fullmatch(value.strip())
    unit = _UNITS.get(m.group(2).lower()) if m else None
    if m is None or unit is None:
        raise SettingError(f"{name}={_shown(value)} is not a memory size — give {SIZE_EXAMPLES}")
    number = m.group(1)
    if float(number) <= 0:
        raise SettingError(f"{name}={_shown(value)} must be more than zero — give {SIZE_EXAMPLES}")
    return f"{number}{unit}"


def database_path(value: str, *, name: str = "--db") -> Path:
    """A database file Kifu may create or open: not a folder, in a folder that exists.

    ``name`` says where the value came from (``--db`` or ``KIFU_DB``) in the message."""
    if not value.strip():
        raise SettingError(f"{name} is empty — give a database file, e.g. kifu.duckdb")
    path = Path(value)
    given = f"{name}={terminal(value)}" if name.isupper() else f"{name} {terminal(value)}"
    if path.is_dir():
        raise SettingError(f"{given} is a folder — give a database file in it, e.g. "
                           f"{terminal(path / 'kifu.duckdb')}")  # fmt: skip
    folder = path.resolve().parent
    if not folder.exists():
        mkdir = terminal(shlex.quote(str(folder)))
        raise SettingError(f"{given}: the folder {terminal(folder)} does not exist — create it "
                           f"(mkdir -p {mkdir}) or choose another {name}")  # fmt: skip
    if not folder.is_dir():
        raise SettingError(f"{given}: {terminal(folder)} is not a folder — choose another {name}")
    return path


def port(text: str) -> int:
    """A TCP port to listen on, 1–65535."""
    try:
        n = int(text)
    except ValueError:
        raise SettingError(f"not a port number: {_shown(text)} (1–65535)") from None
    if not 1 <= n <= 65535:
        raise SettingError(f"port {n} is out of range (1–65535)")
    return n


def positive_int(text: str, *, what: str, name: str | None = None) -> int:
    """A whole number above zero (``what`` names it in the message; ``name``: the environment variable)."""
    label = f"{name}={_shown(text)}" if name else _shown(text)
    try:
        n = int(text)
    except ValueError:
        raise SettingError(f"{label} is not a whole number — give {what}, more than zero") from None
    if n < 1:
        raise SettingError(f"{label} must be more than zero — give {what}")
    return n


_ON = ("on", "1", "yes", "true")
_OFF = ("off", "0", "no", "false")


def switch(name: str) -> bool | None:
    """An on/off environment variable: True, False, or None when it is not set (or empty)."""
    value = os.environ.get(name, "")
    if not value:
        return None
    low = value.lower()
    if low in _ON:
        return True
    if low in _OFF:
        return False
    raise SettingError(f"{name}={_shown(value)} is neither on nor off — give {name}=on or {name}=off")
