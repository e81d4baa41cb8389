"""Kakomimasu (囲みマス) loader: v1 Game JSON, 2020 snapshots and board sets into DuckDB.

The pipeline hands every parsed record to :func:`claims`; records that are Kakomimasu's go
to a :class:`Collector` instead of the ALGORI assembler.  A v1 game is one record and is
written at once; 2020 snapshots are grouped by game id and written when their source ends.

Identity: a game is the match ``kakomimasu:<game id>``.  The same game read again (any
file, any layout) is a no-op; a copy that goes further (more turns logged, a board where
there was none) replaces the stored one; a different copy that goes no further is kept out
and reported in ``load_issues``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from loaders.parallel.workers import GameWrites
from rules.kakomimasu.game import (
    LEGACY, GameLog, GameLogError, boards_from, classify, from_snapshots, from_v1, snapshot_game_id,
)  # fmt: skip
from rules.kakomimasu.replay import RULESET, RULESET_VERSION, Summary, player_codes, replay

GAME = "kakomimasu"
KINDS = ("v1-game", "snapshot", "join", "boards")


def claims(doc: Any) -> str | None:
    """The Kakomimasu record kind of a parsed JSON value, or None when it is not Kakomimasu's."""
    return classify(doc)


def match_id(game_id: str) -> str:
    return f"{GAME}:{game_id}"


def board_key(width: int, height: int, points: Any) -> str:
    text = orjson.dumps([width, height, list(points)])
    return hashlib.blake2b(text, digest_size=8).hexdigest()


def _dumps(v: Any) -> str:
    return orjson.dumps(v).decode()


def _ts(unix: float | None) -> dt.datetime | None:
    if unix is None or not 0 <= unix < 32503680000:  # before year 3000
        return None
    return dt.datetime.fromtimestamp(unix, tz=dt.UTC).replace(tzinfo=None)


def content_hash(game: GameLog) -> str:
    # the notes (contradictions read past) count only where there are any: other games hash as before
    text = repr(game) + (repr(game.notes) if game.notes else "")
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def progress(game: GameLog) -> int:
    """How far a copy of a game goes: logged turns first, then having a board and players."""
    turns = len(game.snapshots) if game.format == LEGACY else len(game.turns)
    return turns * 4 + (2 if game.has_board else 0) + (1 if game.players else 0)


@dataclass
class Collector:
    """Kakomimasu records of one ingest run, written through ``store`` (see ``loaders.core.store``)."""

    claims = staticmethod(claims)  # whose a record is: the pipeline asks each game in turn

    store: Any
    run_id: int
    quarantine: Callable[[str, int, Any, str], None]  # (source, line, raw, reason)
    validate: bool = True
    matches: list[str] = field(default_factory=list)
    new_records: int = 0
    pool: Any = None  # a loaders.parallel.workers.RoundPool: games replayed by its workers
    _snapshots: dict[str, list[tuple[int, Any, Any]]] = field(default_factory=dict)  # game id -> (line, raw, doc)
    _source: str = ""
    _writes: GameWrites = field(init=False)

    def __post_init__(self) -> None:
        self._writes = GameWrites(self.store, self.pool)

    def add(self, kind: str, doc: Any, source: str, line: int, raw: Any) -> None:
        if source != self._source:
            self.close_source()
            self._source = source
        if kind == "v1-game":
            try:
                game = from_v1(doc)
            except GameLogError as exc:
                gid = doc.get("id") if isinstance(doc, dict) else None
                self.quarantine(source, line, raw, f"Kakomimasu game {gid!s:.60}: {exc}")
                return
            self._write(game, source, [(1, line, raw)])
        elif kind == "snapshot":
            try:
                gid = snapshot_game_id(doc)
            except GameLogError as exc:
                self.quarantine(source, line, raw, f"Kakomimasu snapshot: {exc}")
                return
            self._snapshots.setdefault(gid, []).append((line, raw, doc))
        elif kind == "boards":
            try:
                rows = boards_from(doc)
            except GameLogError as exc:
                self.quarantine(source, line, raw, f"Kakomimasu board set: {exc}")
                return
            self._write_boards(rows)
        # 'join' (a join-match answer: game id, player index, user id) holds nothing to replay

    def close_source(self) -> None:
        """Write the 2020 games whose snapshots came from the source just read."""
        groups, self._snapshots = self._snapshots, {}
        for gid, shots in groups.items():
            try:
                game = from_snapshots(doc for _, _, doc in shots)
            except GameLogError as exc:
                line, raw, _ = shots[0]
                self.quarantine(self._source, line, raw, f"Kakomimasu game {gid:.60} (2020 snapshots): {exc}")
                continue
            by_turn = {}
            for line, raw, doc in shots:
                by_turn.setdefault(doc.get("turn"), (line, raw))
            records = [(t, by_turn[t][0], by_turn[t][1]) for t in sorted(by_turn, key=lambda t: (t is None, t))]
            self._write(game, self._source, [(t if isinstance(t, int) else 0, ln, raw) for t, ln, raw in records])

    # -- writing

    def _write(self, game: GameLog, source: str, records: list[tuple[int, int, Any]]) -> None:
        mid = match_id(game.game_id)
        digest = content_hash(game)
        rank = progress(game)
        self._writes.settle(mid)  # another copy still with a worker: written first, then compared
        con = self.store.con
        self.store.flush()
        stored = con.execute("select content_hash, progress from kakomimasu_games where match_id = ?", [mid]).fetchall()
        if stored:
            old_hash, old_rank = stored[0]
            if old_hash == digest:
                self._touch(mid)
                return
            if rank < (old_rank or 0):  # an earlier state of a game stored further: nothing new
                self._touch(mid)
                return
            if rank == (old_rank or 0):
                line = records[0][1] if records else 0
                self.quarantine(source, line, records[0][2] if records else b"",
                                f"Kakomimasu game {game.game_id:.60}: another copy that goes as far is already "
                                "stored (kept the stored one)")  # fmt: skip
                return
            self.store.delete_matches([mid])
        args = (mid, game, digest, rank, source, records, self.run_id, self.validate)
        self._writes.write(mid, game_rows, *args)  # with a pool: replayed by a worker, written in order
        self.new_records += len(records)
        self._touch(mid)

    def finish(self) -> None:
        """Write what the workers still replay (the end of the run)."""
        self.close_source()
        self._writes.finish()

    def _touch(self, mid: str) -> None:
        if mid not in self.matches:
            self.matches.append(mid)

    def _write_boards(self, rows: list[dict[str, Any]]) -> None:
        con = self.store.con
        self.store.flush()
        for r in rows:
            key = board_key(r["width"], r["height"], r["points"])
            same = con.execute(
                "select count(*) from kakomimasu_boards where name = ? and board_key = ? and n_agent is not distinct from ? "
                "and total_turn is not distinct from ? and operation_sec is not distinct from ?",
                [r["name"], key, r["n_agent"], r["total_turn"], r["operation_sec"]],
            ).fetchall()[0][0]  # fmt: skip
            if same:
                continue
            self.new_records += 1
            con.execute("delete from kakomimasu_boards where name = ?", [r["name"]])
            con.execute(
                "insert into kakomimasu_boards values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [key, r["name"], r["width"], r["height"], _dumps(r["points"]), r["n_agent"], r["n_player"],
                 r["total_turn"], r["operation_sec"], self.run_id],
            )  # fmt: skip


def game_rows(sink: Any, mid: str, game: GameLog, digest: str, rank: int, source: str,
              records: list[tuple[int, int, Any]], run: int, validate: bool) -> None:
    """Replay one game and write its rows to ``sink`` (the store, or a worker's recorder)."""
    add = sink.add
    for seq, line, raw in records:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        add("raw_activities", (mid, seq, run, source, line, text, 0))  # rkey: ALGORI's record identity, unused
    codes = player_codes(game)
    summary = Summary()
    n_player = max(game.n_player, len(game.players))
    if game.has_board:
        for frame in replay(game, match_id=mid, summary=summary):
            for pos, view in enumerate(frame.actions):
                a = view.action
                add("kakomimasu_actions", (mid, frame.turn, view.player, a.agent_id, a.type, a.x, a.y, view.res,
                                           None if view.inferred else view.res_replayed, view.why or None,
                                           view.inferred, view.undetermined, pos))  # fmt: skip
            for p in range(n_player):
                logged = frame.logged_points[p] if p < len(frame.logged_points) else None
                got = frame.points[p] if p < len(frame.points) else (None, None)
                add("kakomimasu_points", (mid, frame.turn, p, logged[0] if logged else None,
                                          logged[1] if logged else None, got[0], got[1]))  # fmt: skip
            if validate:
                for v in frame.violations:
                    sink.add_violation(v)
        if validate:
            for v in summary.end_violations:
                sink.add_violation(v)
    totals = [a + w for a, w in summary.points]
    finished = game.finished
    winners = summary.winners if finished else []
    winner = codes[winners[0]] if len(winners) == 1 and winners[0] < len(codes) else None
    ranks = _ranks(totals, [w for _, w in summary.points])
    status = "finished" if finished else ("waiting" if not game.turns and not game.snapshots else "incomplete")
    started = _ts(game.started_at)
    finished_at = None
    if started is not None and game.operation_sec is not None and game.turns:
        span = len(game.turns) * game.operation_sec + (len(game.turns) - 1) * (game.transition_sec or 0)
        finished_at = started + dt.timedelta(seconds=span)
    fill = "as-written" if game.format == LEGACY or not summary.server_fill else "server-2.0.1"
    add("kakomimasu_games", (
        mid, game.game_id, game.name, game.kind, game.status,
        board_key(game.width, game.height, game.points) if game.has_board else None,
        game.width, game.height, _dumps(list(game.points)) if game.points else None, n_player, game.n_agent,
        game.total_turn, summary.turns, game.operation_sec, game.transition_sec, started,
        _dumps(winners) if finished else None, summary.decided_by if finished else None,
        fill if game.has_board else None,
        _dumps([list(p) for p in summary.written_rules_points]) if summary.written_rules_points else None,
        digest, rank, run,
    ))  # fmt: skip
    scores = {codes[p]: totals[p] for p in range(min(len(codes), len(totals)))}
    add_summary = {
        "matches": [(
            mid, GAME, None, None, None, summary.turns, len(game.turns) or len(game.snapshots), winner, status,
            _dumps(scores) if scores else None, _dumps({codes[p]: ranks[p] for p in range(min(len(codes), len(ranks)))}) if ranks else None,
            summary.turns, started, finished_at, game.format,
            f"{RULESET}/{fill}" if game.has_board else RULESET, RULESET_VERSION, run, run, None,
            summary.decided_by if finished else None,
        )],
        "players": [
            (mid, code, game.players[p].id or code, p + 1, 1 if finished and p in winners else 0,
             totals[p] if p < len(totals) else None, ranks[p] if p < len(ranks) else None)
            for p, code in enumerate(codes)
        ],
    }  # fmt: skip
    sink.replace_summary(mid, add_summary)


def _ranks(totals: list[int], walls: list[int]) -> list[int]:
    """Rank per player by the rules' order (total, then wall points); equal results share a rank."""
    keys = [(t, w) for t, w in zip(totals, walls, strict=True)]
    return [1 + sum(1 for k in keys if k > mine) for mine in keys]


__all__ = ["GAME", "KINDS", "Collector", "board_key", "claims", "match_id"]
