"""Kifu's rules engine: pure game rules, replay and judgement.

One sub-package per game: ``rules.uno`` (ALGORI and JUA rules as profiles of one model),
``rules.kakomimasu`` and ``rules.chaser``.  This module is the game-independent door to them:
the registered rulesets, and which game a text log belongs to.
Nothing in this package performs I/O or imports streamlit, duckdb, pandas or pymongo; a
test enforces it.

    >>> from rules import get_ruleset
    >>> get_ruleset("algori-2023/skip_bind_2").version
    '1.0'
"""

from __future__ import annotations

from rules.core import REGISTRY, Check, Frame, Ruleset, Violation


def get_ruleset(ruleset_id: str) -> Ruleset:
    """A registered ruleset by id; a UNO profile id may carry options (``jua-2016(rounds=3)``)."""
    _load_games()
    if "(" in ruleset_id:
        from rules.uno.ruleset import ruleset

        try:
            return ruleset(ruleset_id)
        except ValueError as e:
            raise KeyError(str(e)) from None
    return REGISTRY.get(ruleset_id)


def available_rulesets() -> list[str]:
    _load_games()
    return sorted(REGISTRY.rulesets)


def text_kind(head: bytes) -> str | None:
    """The kind of a text log that is not JSON, from its first bytes (read whole by the loaders):
    ``'chaser-log'`` (a CHaser server's Stable Log), ``'chaser-map'`` (a CHaser .map file), or None."""
    from rules.chaser.log import looks_like_log, looks_like_map

    if looks_like_log(head):
        return "chaser-log"
    if looks_like_map(head[:4096]):
        return "chaser-map"
    return None


def _load_games() -> None:
    import rules.uno.ruleset  # noqa: F401  (registers the ALGORI rulesets)


__all__ = ["Check", "Frame", "Ruleset", "Violation", "available_rulesets", "get_ruleset", "text_kind"]
