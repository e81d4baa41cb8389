"""CHaser loader: the official server's text logs and .map files into DuckDB.

A server log is read whole (``rules.text_kind`` sniffs ``--Stable Log--``) and replayed at
once (``rules.chaser``); a .map file names maps.  Identity: a game is the match
``chaser:<first timestamp>-<hash of the players and the start map>``; the same log read again
is a no-op, a longer copy of it (a log that was cut off, then read complete) replaces the
stored one, a shorter one changes nothing; a copy with bad lines read past counts one line less
per bad line (the same log without them replaces it).

A bad line after the first round header (not text, not a line the server writes, out of
place: ``rules.chaser.log``) is read past: skipped, or read where it belongs (``ChaserLog.mended``);
the game goes on to its ``[決着]``, the replay reports each such line once (a finding at its turn)
and a line not read goes to ``load_issues`` with its number and the reason.  Only when no line
after it can be read (a file cut off) is the log *cut* there: the game up to its last whole action
is loaded as a game that did not finish (status ``incomplete``, its sentence says where the log
stops and why), its text up to the bad line is the raw record, and the rest of the file goes to
``load_issues``.  A bad line in the header or the map makes the whole log unusable: quarantined
with the line and the reason.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from loaders.core.sources import TextDocument
from loaders.parallel.workers import GameWrites
from rules.chaser.log import ChaserLog, ChaserLogError, ChaserMap, decode, parse_map, read_log
from rules.chaser.replay import RULESET, RULESET_VERSION, Summary, replay

GAME = "chaser"
TEAM_CODES = ("COOL", "HOT")


#: Keys of a game-index entry (a JSON summary per server log: its file, map, players and result).
INDEX_KEYS = {"file", "map", "cool", "hot", "winner"}

#: Kinds of record this module recognises and skips, and why (counted as skipped, not as duplicates).
SKIPPED_KINDS = {"chaser-index": "a CHaser game index: nothing to load"}


def claims(doc: Any) -> str | None:
    """'chaser-log' / 'chaser-map' (text files), 'chaser-index' (a JSON summary of a log; nothing to load)."""
    if isinstance(doc, TextDocument):
        return doc.kind if doc.kind.startswith("chaser-") else None
    if isinstance(doc, dict) and INDEX_KEYS <= doc.keys() and str(doc.get("file", "")).endswith(".txt"):
        return "chaser-index"
    return None


def _hash(*parts: Any) -> str:
    return hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()


def map_key(m: ChaserMap) -> str:
    return _hash(m.width, m.height, m.cells, m.starts)


def _dumps(v: Any) -> str:
    return orjson.dumps(v).decode()


@dataclass
class Collector:
    """CHaser logs and maps of one ingest run, written through ``store`` (see ``loaders.core.store``)."""

    claims = staticmethod(claims)  # whose a record is: the pipeline asks each game in turn

    store: Any
    run_id: int
    quarantine: Callable[..., None]  # (source, line, raw, reason, refused=True)
    validate: bool = True
    matches: list[str] = field(default_factory=list)
    new_records: int = 0
    pool: Any = None  # a loaders.parallel.workers.RoundPool: games replayed by its workers
    _writes: GameWrites = field(init=False)

    def __post_init__(self) -> None:
        self._writes = GameWrites(self.store, self.pool)

    def add(self, kind: str, doc: Any, source: str, line: int, raw: Any) -> None:
        if kind == "chaser-index":  # a summary of a log read on its own; the log itself is the record
            return
        try:
            if kind == "chaser-map":
                self._write_map(parse_map(decode(doc.data).split("\n")), source)
                return
            log, text = read_log(doc.data)
        except ChaserLogError as exc:  # the file is unusable: quarantined whole, at the line that makes it so
            what = "map" if kind == "chaser-map" else "log"
            self.quarantine(source, line + (exc.line or 1) - 1, raw, f"CHaser {what}: {exc}")
            return
        if log.cut is not None:  # the game before the bad line is kept; the rest of the file is quarantined
            rest = doc.data[_offset(doc.data, log.cut.line):]
            kept = (f"the game up to turn {log.last_turn} is kept" if log.result is None
                    else "the game before it is whole and kept")  # fmt: skip
            last = _lines(doc.data)
            rest_lines = f"line {last} is" if last == log.cut.line else f"lines {log.cut.line}–{last} are"
            self.quarantine(source, line + log.cut.line - 1, rest,
                            f"CHaser log cut at {log.cut}; {kept}, {rest_lines} not", refused=False)
        for m in log.mended:  # a line read past: the game goes on; a line not read is reported with its text
            if m.skipped:
                at = _offset(doc.data, m.line)
                end = doc.data.find(b"\n", at)
                self.quarantine(source, line + m.line - 1, doc.data[at: len(doc.data) if end < 0 else end + 1],
                                f"CHaser log: {m}", refused=False)  # fmt: skip
        self._write_game(log, source, text)

    def close_source(self) -> None:
        """Nothing waits for the end of a source (a log is one record)."""

    # -- writing

    def _write_map(self, m: ChaserMap, source: str) -> None:
        con = self.store.con
        self.store.flush()
        name = m.name or source.rsplit("/", 1)[-1].removesuffix(".map")
        key = map_key(m)
        if con.execute("select count(*) from chaser_maps where name = ? and map_key = ? and turns is not distinct from ?",
                       [name, key, m.turns]).fetchall()[0][0]:  # fmt: skip
            return
        con.execute("delete from chaser_maps where name = ?", [name])
        con.execute("insert into chaser_maps values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [key, name, m.width, m.height, m.turns, _dumps(list(m.cells)), _dumps(list(m.starts[0])),
                     _dumps(list(m.starts[1])), self.run_id])  # fmt: skip
        self.new_records += 1

    def _write_game(self, log: ChaserLog, source: str, text: str) -> None:
        mid = f"{GAME}:{log.started or 'undated'}-{_hash(log.cool_name, log.hot_name, map_key(log.map))}"
        parts: tuple[Any, ...] = (log.cool_name, log.hot_name, log.map, log.entries)
        if log.mended:  # a copy with lines read past is another copy of the game; a copy without them replaces it
            parts += (tuple(str(m) for m in log.mended),)
        digest = _hash(*parts)
        progress = len(log.entries) - len(log.mended)
        self._writes.settle(mid)  # another copy still with a worker: written first, then compared
        con = self.store.con
        self.store.flush()
        stored = con.execute("select content_hash, progress from chaser_games where match_id = ?", [mid]).fetchall()
        if stored:
            if stored[0][0] == digest or progress <= (stored[0][1] or 0):
                self._touch(mid)
                return
            self.store.delete_matches([mid])
        args = (mid, log, digest, progress, source, text, self.run_id, self.validate)
        self._writes.write(mid, game_rows, *args)  # with a pool: replayed by a worker, written in order
        self.new_records += 1
        self._touch(mid)

    def _touch(self, mid: str) -> None:
        if mid not in self.matches:
            self.matches.append(mid)

    def finish(self) -> None:
        """Write what the workers still replay (the end of the run)."""
        self._writes.finish()



def game_rows(sink: Any, mid: str, log: ChaserLog, digest: str, progress: int, source: str, text: str, run: int,
              validate: bool) -> None:
    """Replay one game and write its rows to ``sink`` (the store, or a worker's recorder)."""
    add = sink.add
    add("raw_activities", (mid, 1, run, source, 1, text, 0))
    summary = Summary()
    for f in replay(log, match_id=mid, summary=summary):
        x, y = f.after.pos[0 if f.team == "COOL" else 1]
        add("chaser_actions", (mid, f.seq, f.turn, f.remaining, f.team, f.action or (f.raw or "(none)"), f.direction,
                               x, y, f.digits, f.replayed, f.picked, f.taken and not f.picked,
                               f.after.items[0], f.after.items[1]))  # fmt: skip
        if validate:
            for v in f.violations:
                sink.add_violation(v)
    if validate:
        for v in summary.end_violations:
            sink.add_violation(v)
    m = log.map
    add("chaser_games", (
        mid, log.started, m.name, map_key(m), m.width, m.height, m.turns, _dumps(list(m.cells)),
        _dumps(list(m.starts[0])), _dumps(list(m.starts[1])), summary.end_kind, summary.end_turn, summary.winner,
        summary.loser, summary.items[0], summary.items[1], summary.sentence, summary.actions,
        len(log.unknown_lines), log.result is None, digest, progress, run,
    ))  # fmt: skip
    finished = log.result is not None
    scores = {"COOL": summary.items[0], "HOT": summary.items[1]}
    ranks = {"COOL": 1 if summary.winner in ("COOL", None) else 2, "HOT": 1 if summary.winner in ("HOT", None) else 2}
    sink.replace_summary(mid, {
        "matches": [(
            mid, GAME, None, None, None, summary.actions and summary.end_turn or 0, summary.end_turn or 0,
            summary.winner, "finished" if finished else "incomplete", _dumps(scores), _dumps(ranks) if finished else None,
            summary.actions, _ts(log.started), None, "chaser-stable-log", RULESET, RULESET_VERSION, run, run, None,
            summary.end_kind,
        )],
        "players": [
            (mid, code, (log.cool_name if code == "COOL" else log.hot_name) or code, i + 1,
             1 if summary.winner == code else 0, scores[code], ranks[code] if finished else None)
            for i, code in enumerate(TEAM_CODES)
        ],
    })  # fmt: skip


def _offset(data: bytes, line: int) -> int:
    """Where 1-based ``line`` starts in ``data`` (its end when the data has fewer lines)."""
    at = 0
    for _ in range(line - 1):
        at = data.find(b"\n", at) + 1
        if at == 0:
            return len(data)
    return at


def _lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _ts(stamp: str | None) -> Any:
    import datetime as dt

    if not stamp:
        return None
    try:
        return dt.datetime.strptime(stamp, "%Y%m%d%H%M%S")
    except ValueError:
        return None


__all__ = ["GAME", "Collector", "claims", "map_key"]
