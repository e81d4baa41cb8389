"""One identity for every record, whatever the cut: put pieces of match logs back together.

A contestant may download a running match twice, cut a log in parts, ingest the parts in any
order, mix the dealer's download with the MongoDB copy, or hand Kifu a file where two
matches with the same dealer code and name are interleaved.  Whatever arrives, the stored
match must end up exactly as if its whole log had been ingested once.

Two ideas do it:

* **Record keys.**  :func:`record_key` hashes what the dealer wrote about an event (event,
  player, round, contents, desk) — not the timestamp (MongoDB's copy differs by a few ms),
  not empty objects or null fields (MongoDB drops the first and writes
  ``undefined`` as the second), not the dealer fields (the group key).  Inside a
  match, a first-player line (a random deal) never repeats, and every other line carries the
  whole board, so equal keys mean the same line.
* **Pieces and chains.**  A *piece* is a run of one match's records read contiguously (from
  one source, or a stored run of them).  :func:`assemble` merges pieces that overlap (a
  suffix of one equals a prefix of the other, checked key by key), orders the disjoint
  chains that remain by round and time, and strings them into matches: a chain continues an
  open match of compatible players unless it starts a new one (a join-room after the deal,
  a second round 1).

This module is pure: it sees keys and a few facts per record, never the database.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

_EMPTY_FIELD = re.compile(rb'"(?:[^"\\]|\\.)*":(?:\{\}|null),?')


def record_key(event: str, player: str | None, turn: int | None, contents: Any, desk: Any) -> int:
    """A 63-bit identity of one dealer line, equal for the download and the MongoDB copy."""
    body = orjson.dumps([event, player or None, turn, contents, desk], option=orjson.OPT_SORT_KEYS, default=str)
    if b":{}" in body or b":null" in body:
        body = _EMPTY_FIELD.sub(b"", body).replace(b",}", b"}")
    return int.from_bytes(hashlib.blake2b(body, digest_size=8).digest(), "big") >> 1


@dataclass(slots=True)
class Meta:
    """What assembling needs to know about one record."""

    key: int  # None while a record taken by a worker has not needed it (loaders.games.uno.matches.keyed_meta)
    event: str
    round_no: int | None
    t: int | None  # dealer timestamp (ms)
    players: tuple[str, ...] = ()  # player codes the record names (actor, joiner, seat order)


@dataclass
class Piece:
    """Records of one match read contiguously, with an opaque reference per record."""

    metas: list[Meta]
    refs: list[Any]


@dataclass
class _Chain:
    metas: list[Meta]
    refs: list[Any]
    order: int  # first appearance, for stable ordering

    @property
    def keys(self) -> list[int]:
        return [m.key for m in self.metas]


@dataclass
class _Match:
    chains: list[_Chain] = field(default_factory=list)
    players: set[str] = field(default_factory=set)
    dealt: bool = False
    finished: bool = False
    last_round: int = 0
    last_t: int = 0


def _overlap(a: Sequence[int], b: Sequence[int], where: dict[int, list[int]]) -> int | None:
    """Position in ``a`` where ``b`` starts, if ``b`` continues or lies inside ``a`` (longest overlap)."""
    if not b:
        return None
    for p in where.get(b[0], ()):
        n = min(len(a) - p, len(b))
        if list(a[p : p + n]) == list(b[:n]):
            return p
    return None


def _merge(chains: list[_Chain]) -> list[_Chain]:
    """Merge chains that overlap until none do."""
    changed = True
    while changed:
        changed = False
        for i, a in enumerate(chains):
            where: dict[int, list[int]] = {}
            for pos, k in enumerate(a.keys):
                where.setdefault(k, []).append(pos)
            for j, b in enumerate(chains):
                if i == j:
                    continue
                p = _overlap(a.keys, b.keys, where)
                if p is None:
                    continue
                extra = len(b.metas) - (len(a.metas) - p)
                if extra > 0:
                    a.metas.extend(b.metas[-extra:])
                    a.refs.extend(b.refs[-extra:])
                a.order = min(a.order, b.order)
                del chains[j]
                changed = True
                break
            if changed:
                break
    return chains


def _first_round(c: _Chain) -> int:
    for m in c.metas:
        if m.round_no is not None and m.event not in ("finish-game", "disconnect"):
            return m.round_no
        if m.event == "join-room":
            return 0
    return 1 << 40  # only finish-game / disconnect lines: after everything


def _first_t(c: _Chain) -> int:
    return next((m.t for m in c.metas if m.t is not None), 0)


def _fits(m: _Match, c: _Chain) -> bool:
    starts_join = c.metas[0].event == "join-room"
    round1_deal = any(x.event == "first-player" and x.round_no == 1 for x in c.metas)
    if m.dealt and (starts_join or round1_deal):
        return False  # a new match begins
    only_goodbyes = all(x.event == "disconnect" for x in c.metas)
    if m.finished and not only_goodbyes:
        return False
    players = {p for x in c.metas for p in x.players}
    if len(m.players | players) > 4 and not (players <= m.players):
        return False
    return m.last_round <= _first_round(c) or only_goodbyes


def assemble(pieces: Iterable[Piece]) -> list[list[Any]]:
    """The matches these pieces make, each as its records' refs in log order."""
    chains = [_Chain(list(p.metas), list(p.refs), i) for i, p in enumerate(pieces) if p.metas]
    chains = _merge(chains)
    chains.sort(key=lambda c: (_first_round(c), _first_t(c), c.order))
    matches: list[_Match] = []
    for c in chains:
        fits = [m for m in matches if _fits(m, c)]
        m = max(fits, key=lambda m: (m.last_round, m.last_t)) if fits else None
        if m is None:
            m = _Match()
            matches.append(m)
        m.chains.append(c)
        for x in c.metas:
            m.players.update(x.players)
            if x.event == "first-player":
                m.dealt = True
            if x.event == "finish-game":
                m.finished = True
            if x.round_no is not None and x.event not in ("finish-game", "disconnect"):
                m.last_round = max(m.last_round, x.round_no)
            if x.t is not None:
                m.last_t = max(m.last_t, x.t)
    return [[ref for c in m.chains for ref in c.refs] for m in matches]
