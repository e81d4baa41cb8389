"""Counts said in words on a terminal: ``count(1, "finding")`` is ``1 finding``, ``count(2, "finding")``
``2 findings``."""

from __future__ import annotations


def count(n: int, word: str, plural: str | None = None) -> str:
    """``n`` (with thousands separators) and ``word``, singular for one, plural (``word + "s"`` unless given) else."""
    return f"{n:,} {word if n == 1 else plural or word + 's'}"
