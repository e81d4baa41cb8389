"""One loader per game: UNO (``uno/``: ALGORI dealer logs and Kifu referee logs in their shape), Kakomimasu,
CHaser.  This module is what the pipeline and the watcher ask of the games: whose a record is.

Kakomimasu and CHaser records are told apart by content (each game's ``claims(doc)``, asked in turn);
every other record is read as a UNO dealer line (:func:`loaders.games.uno.matches.read`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from loaders.core.sources import Record
from loaders.games import chaser, kakomimasu

#: The games whose records are claimed by content, each with its ``claims(doc)``, in the order asked.
CLAIMED: tuple[Any, ...] = (kakomimasu, chaser)

#: Kinds of record a game recognises and skips, and why.
SKIPPED_KINDS: dict[str, str] = {**chaser.SKIPPED_KINDS}

#: Keys without which no claimed game takes a JSON object carrying an "event" string (a UNO line).
GAME_KEYS = frozenset({"log", "gameId", "file"})


def collectors(store: Any, run_id: int, bad: Callable[..., None], *, validate: bool, pool: Any = None) -> list[Any]:
    """A collector of each claimed game for one run, in the order their claims are asked."""
    return [game.Collector(store, run_id, bad, validate=validate, pool=pool) for game in CLAIMED]


def _maybe_claimed(doc: Any) -> bool:
    return not (type(doc) is dict and type(doc.get("event")) is str and not GAME_KEYS & doc.keys())


def claimed(rec: Record, games: list[Any] | None) -> tuple[Any, str | None]:
    """The collector (of ``games``, from :func:`collectors`) that claims a record, and the record's kind for it."""
    if rec.error is not None or not games or not _maybe_claimed(rec.doc):
        return None, None  # a UNO line (the usual record): no game's claim can apply
    for g in games:
        kind = g.claims(rec.doc)
        if kind is not None:
            return g, kind
    return None, None


def another_game(doc: Any) -> bool:
    """Whether a parsed record is a claimed game's (Kakomimasu, CHaser) rather than a UNO line."""
    return _maybe_claimed(doc) and any(game.claims(doc) is not None for game in CLAIMED)
