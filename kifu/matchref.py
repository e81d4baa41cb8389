"""A match as a person names it on the command line: its id as stored, a Kakomimasu or CHaser game's id
without Kifu's ``kakomimasu:``/``chaser:`` prefix, the start of an id as ``kifu watch`` prints it
(``M-1e9573c58f1a44``), a CHaser game's logged timestamp (``20261122045903``), or its log file's name."""

from __future__ import annotations

import os
from collections.abc import Iterable

PREFIXES = ("", "kakomimasu:", "chaser:")
#: The shortest start of an id taken for the id (shorter ones name too many matches to mean one).
MIN_PREFIX = 6


def resolve(ref: str, sources: Iterable[tuple[str, str | None]]) -> list[str]:
    """The matches ``ref`` names, best kind first: an exact id (with or without the game prefix) → that one;
    else every match whose log file is ``ref`` (a path or a file name); else every match whose id starts
    with ``ref``.  One item: the match; several: ``ref`` is ambiguous; none: no such match."""
    pairs = list(sources)
    ids = sorted({m for m, _ in pairs})
    known = set(ids)
    for prefix in PREFIXES:
        if prefix + ref in known:
            return [prefix + ref]
    by_file: set[str] = set()
    given = os.path.abspath(ref) if os.sep in ref else None
    for m, source in pairs:
        if not source:
            continue
        if source == ref or os.path.basename(source) == ref or (given is not None and os.path.abspath(source) == given):
            by_file.add(m)
    if by_file:
        return sorted(by_file)
    if len(ref) < MIN_PREFIX:
        return []
    return [m for m in ids if any(m.startswith(p + ref) for p in PREFIXES)]
