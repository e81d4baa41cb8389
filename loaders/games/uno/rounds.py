"""Round-parallel validation: a match's rounds replayed in worker processes, merged in order.

Every ALGORI round starts from a fresh deal, so the loader cuts a match's activities into
batches of :data:`ROUNDS_PER_TASK` rounds and hands each batch to a worker process.  A
worker starts from the cross-round state the log itself shows (:class:`rules.uno.rounds.
CarryScan`), replays the round before its batch as a warm-up, then its batch, and returns
the rows (findings, boards, think times) with a snapshot of the replay as the warm-up left
it.  The loader merges the batches in order: a batch whose warm-up snapshot equals the
snapshot of the replay that really reached it is kept as it is; any other batch is replayed
again, in this process, from the true state.  Either way the rows are exactly those of the
one-process replay (``--jobs 1``); the test suite checks it.

A worker makes every row of the lines it replays, not only the replay's: each line travels with
what its own rows need (:class:`loaders.games.uno.rows.RecordParts`: raw line, where it was read, the
turn the loader counted, and its record key unless the worker is to compute it), and the rows
come back as Arrow tables, so this process only inserts them.  Before the store is searched
(any flush), :meth:`RoundPool.settle` makes the rows of every line taken so far — waiting for
the batches out, and making here those of the lines not sent yet (their batch then skips them).

The worker processes themselves, shared by every game, are :mod:`loaders.parallel.workers`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from loaders.parallel import workers
from loaders.parallel.workers import ROUNDS_PER_TASK, RoundPool, RowsSink, decode, encode
from rules.uno.profile import PROFILE_AUDIT
from rules.uno.replay import MatchReplay
from rules.uno.rounds import CarryScan, snapshot

#: Lines a batch may reach before the deal closing it: beyond, the match is replayed in this
#: process (a real round is 100–300 lines; this keeps memory flat for logs that never deal).
MAX_BATCH_LINES = 20_000
workers.PRELOAD += ["loaders.games.uno.rounds", "loaders.games.uno.matches"]
__all__ = ["MAX_BATCH_LINES", "ROUNDS_PER_TASK", "MatchRounds", "decode", "encode", "replay_batch"]


def _profile_audit(activity: dict[str, Any]) -> bool:
    """The deal names a profile judged by the profile audit (the rounds of such a match are replayed in order)."""
    from rules.uno.replay import _named_profile

    prof = _named_profile(activity)
    return prof is not None and prof.audit == PROFILE_AUDIT


def replay_batch(match_id: str | None, run_id: int, seed: MatchReplay | None, warm: list[bytes], lines: list[bytes],
                 parts: list[Any], last: bool) -> tuple[Any, dict[str, Any], MatchReplay]:  # fmt: skip
    """Worker side: warm up from ``seed``, replay ``lines`` and make their rows (each record's own
    rows from its ``parts``, where not None, and the replay's); (snapshot after the warm-up, rows
    by table as Arrow tables — built here, so the ingest process only inserts them —, replay)."""
    r = seed if seed is not None else MatchReplay(match_id=match_id)
    for data in warm:
        r.feed(decode(data))
    start = snapshot(r) if seed is not None else None
    return start, _replay_rows(match_id, run_id, r, map(decode, lines), parts, last, arrow=True), r


def _replay_rows(match_id: str | None, run_id: int, r: MatchReplay, activities: Iterable[dict[str, Any]],
                 parts: list[Any], last: bool, *, arrow: bool = False, boards: Any = None) -> dict[str, Any]:  # fmt: skip
    """Replay ``activities`` with ``r``: their rows by table, as lists of tuples or (``arrow``) Arrow tables.
    ``boards`` (:class:`loaders.games.uno.rows.Boards`) follows which boards are keyframes (a new one: the
    first board replayed here is one)."""
    from loaders.games.uno.rows import Boards, frame_rows, parts_rows

    if boards is None:
        boards = Boards()
    from loaders.core.store import arrow_table

    out: dict[str, list[tuple[Any, ...]]] = {}
    for activity, part in zip(activities, parts, strict=True):
        if part is not None:
            assert match_id is not None
            _group(out, parts_rows(match_id, activity, part))
        _group(out, frame_rows(match_id, run_id, r.feed(activity, boards.saw(activity)), 0, boards))
    if last:
        _group(out, frame_rows(match_id, run_id, r.close(), 0, boards))
    return {table: arrow_table(table, rows) for table, rows in out.items()} if arrow else out


def _group(out: dict[str, list[tuple[Any, ...]]], rows: Iterable[tuple[str, tuple[Any, ...]]]) -> None:
    """``(table, row)`` pairs added to ``out``'s list for each table."""
    for table, row in rows:
        out.setdefault(table, []).append(row)


@dataclass
class _Batch:
    future: Future[Any]
    lines: list[bytes]
    parts: list[Any]
    warmed: bool
    last: bool


@dataclass(frozen=True)
class _Deal:
    index: int  # feed index of the first-player line
    carry: tuple[Any, ...]  # CarryScan.mark() before it


class MatchRounds:
    """One match's replay, spread over the pool; stands in for a ``MatchReplay`` in the loader.

    ``feed`` returns no frames: the rows are emitted (through ``emit``) when a batch is merged.
    """

    def __init__(self, pool: RoundPool, match_id: str | None, run_id: int, emit: RowsSink) -> None:
        self.pool = pool
        self.match_id = match_id
        self.run_id = run_id
        self.emit = emit
        self.scan = CarryScan()
        self.lines: list[bytes] = []  # encoded activities from feed index ``base`` on
        self.parts: list[Any] = []  # beside each, what its record's own rows need (None: made already)
        self.base = 0
        self.n = 0
        self.deals: list[_Deal] = []  # deals from the warm-up of the next batch on
        self.start = 0  # feed index of the next batch's first line
        self.start_deal: _Deal | None = None  # the deal the next batch starts after (None: the match's start)
        self.inflight: deque[_Batch] = deque()
        self.true = MatchReplay(match_id=match_id)  # the replay as far as batches are merged
        self.ruleset: Any = None
        self.submitted = 0
        self.sequential = False  # switched to replaying here (see _go_sequential)
        self.due = -1  # feed count at which the next batch can go (-1: not known yet)
        self.boards: Any = None  # replayed here line by line (sequential): which boards are keyframes
        pool.opened(self)

    def feed(self, activity: dict[str, Any], parts: Any = None) -> list[Any]:
        """One line of the match; with ``parts`` (:class:`loaders.games.uno.rows.RecordParts`) the record's own
        rows are made with the replay's, by the worker (or here, when the line is replayed here)."""
        if self.sequential:
            self._emit(_replay_rows(self.match_id, self.run_id, self.true, [activity], [parts], False, boards=self.boards))
            return []
        if activity.get("event") == "first-player":
            if _profile_audit(activity):  # a profile log (JUA, …): its judge carries more across rounds
                self._go_sequential()
                return self.feed(activity, parts)
            self.deals.append(_Deal(self.n, self.scan.mark()))
            self._plan()
        self.scan.observe(activity)
        self.lines.append(encode(activity))
        self.parts.append(parts)
        self.n += 1
        if self.n == self.due:
            self._submit(self.due, last=False)
            self._plan()
        if self.inflight and (self.n & 63 == 0 or len(self.inflight) > self.pool.inflight_limit):
            self._merge(block=False)
        if self.n - self.start > MAX_BATCH_LINES:
            self._go_sequential()
        return []

    def settle(self) -> None:
        """Every row of the lines fed so far, written: before the store is searched for them."""
        self._merge(block=True)
        mine = range(self.start - self.base, len(self.lines))
        if self.sequential or not any(self.parts[i] is not None for i in mine):
            return
        from loaders.games.uno.rows import parts_rows

        assert self.match_id is not None
        out: dict[str, list[tuple[Any, ...]]] = {}
        for i in mine:
            if self.parts[i] is not None:
                _group(out, parts_rows(self.match_id, decode(self.lines[i]), self.parts[i]))
                self.parts[i] = None
        self._emit(out)

    def _go_sequential(self) -> None:
        """No deal for too long (a log that never deals, a round that never ends): the rest of the
        match is replayed here, line by line, so nothing piles up waiting for a batch to close."""
        from loaders.games.uno.rows import Boards

        self._merge(block=True)
        self.boards = Boards()
        lines, parts = self.lines[self.start - self.base :], self.parts[self.start - self.base :]
        self.lines, self.parts, self.deals, self.sequential = [], [], [], True
        self._emit(_replay_rows(self.match_id, self.run_id, self.true, map(decode, lines), parts, False, boards=self.boards))

    def close(self) -> list[Any]:
        if self.sequential:
            self._emit(_replay_rows(self.match_id, self.run_id, self.true, [], [], True, boards=self.boards))
        elif not self.submitted:
            self._merge_rows(self.true, self.lines, self.parts, last=True)  # too short to share: replayed here
        else:
            self._submit(self.n, last=True)
            self._merge(block=True)
        self.ruleset = self.true.ruleset
        self.pool.done(self)
        return []

    # -- batches

    def _plan(self) -> None:
        """When the next batch can go: once the deal closing it, and the line after, are fed."""
        after = [d for d in self.deals if self.start_deal is None or d.index > self.start_deal.index]
        need = self.pool.rounds_per_task + (1 if self.start_deal is None else 0) - 1
        self.due = after[need].index + 2 if len(after) > need else -1

    def _submit(self, end: int, *, last: bool) -> None:
        own = self.lines[self.start - self.base : end - self.base]
        parts = self.parts[self.start - self.base : end - self.base]
        warm: list[bytes] = []
        seed = None
        if self.start_deal is not None:
            before = [d for d in self.deals if d.index < self.start_deal.index]
            w = before[-1] if before else self.start_deal
            warm = self.lines[w.index - self.base : self.start - self.base]
            seed = CarryScan.seed(w.carry, self.match_id)
        if not last:
            self.start_deal = next(d for d in self.deals if d.index == end - 2)
        self.submitted += 1
        self.inflight.append(_Batch(self.pool.submit(replay_batch, self.match_id, self.run_id, seed, warm, own, parts, last), own,
                                    parts, seed is not None, last))  # fmt: skip
        self.start = end
        if not last:  # keep what the next batch's warm-up needs: the deal before its start, onwards
            closing = [d for d in self.deals if d.index <= end - 2]
            keep_from = closing[-2] if len(closing) >= 2 else closing[-1]
            self.deals = [d for d in self.deals if d.index >= keep_from.index]
            del self.lines[: keep_from.index - self.base]
            del self.parts[: keep_from.index - self.base]
            self.base = keep_from.index

    def _merge(self, *, block: bool) -> None:
        while self.inflight and (block or self.inflight[0].future.done() or len(self.inflight) > self.pool.inflight_limit):
            batch = self.inflight.popleft()
            start, rows, end = batch.future.result()
            if not batch.warmed or start == snapshot(self.true):
                for table, group in rows.items():
                    self.emit(table, group)
                self.true = end
            else:  # the warm-up did not reach the true state: replay the batch from it
                self.pool.replayed_again += 1
                self._merge_rows(self.true, batch.lines, batch.parts, last=batch.last)

    def _merge_rows(self, replay: MatchReplay, lines: list[bytes], parts: list[Any], *, last: bool) -> None:
        self._emit(_replay_rows(self.match_id, self.run_id, replay, map(decode, lines), parts, last))

    def _emit(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        for table, group in rows.items():
            self.emit(table, group)
