"""UNO matches from dealer records: which match each record belongs to, each match's replay and summary.

Records come normalised (:func:`rules.uno.log.normalize`); the :class:`Assembler` groups them into
matches by identity (:mod:`loaders.core.assemble`), feeds each match's replay (its rounds possibly in
worker processes, :mod:`loaders.games.uno.rounds`) and hands the rows (:mod:`loaders.games.uno.rows`)
to the store; :func:`summary_rows` gives a finished match's summary tables.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from loaders.core.sources import Record
from loaders.core.assemble import Meta, Piece, assemble, record_key
from loaders.games.uno.rounds import MatchRounds
from loaders.games.uno.rows import Boards, RecordParts, frame_rows, record_rows
from common.jsontext import parse_json
from rules.core import Frame
from rules.uno.log import (
    EVENTS_2022, KNOWN_EVENTS, Activity, as_code, as_int, as_int32, dumps, event_target, normalize, replay_activity,
    stored_activity, str_or_none, unwrap_extended_json,
)
from rules.uno.cards import card_label
from rules.uno.catalog import CHECKS
from rules.uno.profile import PROFILES
from rules.uno.replay import MatchReplay

GAME = "algori-uno"


# --------------------------------------------------------------------------- matches


def read(rec: Record) -> Activity:
    """A record no other game claimed, read as a UNO dealer line (MongoDB's Extended JSON numbers unwrapped).
    Raises :class:`rules.uno.log.RecordError` with the reason it is not one."""
    doc = rec.doc
    if isinstance(rec.raw, bytes) and b'"$number' in rec.raw:
        doc = unwrap_extended_json(doc)
    return normalize(doc)


def match_fingerprint(dealer_code: str | None, dealer: str, basis: Any) -> str:
    """Stable id of one match: same match -> same id, whatever the source.

    ``basis`` is the first round's ``first-player`` contents (seat order, first card and
    the 28 dealt cards: a random deal, so distinct matches never share it even when their
    dealer code and name collide).  A match that never dealt falls back to its join-room
    list.  Timestamps are deliberately left out: MongoDB's copy differs by a few ms.
    """
    payload = orjson.dumps([dealer_code, dealer, basis], option=orjson.OPT_SORT_KEYS, default=str)
    return "M-" + hashlib.blake2b(payload, digest_size=8).hexdigest()


@dataclass(slots=True)
class RoundSummary:
    round_no: int
    first_player: str | None = None
    first_card: Any = None
    play_order: Any = None
    white_wild: str | None = None
    winner: str | None = None
    end_kind: str = "incomplete"
    n_turns: int = 0
    n_events: int = 0
    first_seq: int = 0
    last_seq: int = 0
    scores: dict[str, Any] | None = None
    total_scores: dict[str, Any] | None = None
    started_ms: int | None = None
    ended_ms: int | None = None
    prev_kind: str | None = None  # the round's previous event, and whether it was a real draw
    prev_drew: bool = False


@dataclass
class MatchBuilder:
    """One match's activities as they stream in: ``seq``, summaries, replay, and where they go.

    ``mode`` says what happens to the records of this fragment: ``None`` while undecided (held
    in ``pending``, at most :data:`PENDING_CAP`), ``"new"`` (a match whose log starts here),
    ``"anchored"`` (continuing a stored match at ``seq``; records up to ``existing`` are checked
    against the stored keys and skipped), ``"spool"`` (a piece put in place at the end of the
    run by :func:`loaders.core.assemble.assemble`).
    """

    dealer_code: str | None
    dealer: str
    match_id: str | None = None
    pending: list[tuple[Activity, int, bytes | str, Meta]] = field(default_factory=list)
    mode: str | None = None
    seq: int = 0
    existing: int = 0  # events of this match already in the database
    new_events: int = 0
    duplicates: int = 0
    players: dict[str, str | None] = field(default_factory=dict)
    rounds: dict[int, RoundSummary] = field(default_factory=dict)
    finish: dict[str, Any] | None = None
    white_wild: str | None = None
    first_ms: int | None = None
    last_ms: int | None = None
    legacy: bool = False
    current_round: int | None = None
    current_turn: int | None = None
    seen_deal: bool = False
    replay: MatchReplay | MatchRounds | None = None
    ruleset: Any = None
    log_start: str = "partial"
    # routing and placement
    joined: set[str] = field(default_factory=set)
    codes: set[str] = field(default_factory=set)
    last_event: str | None = None
    last_pos: tuple[int, int] | None = None  # (round, turn) of the latest record that had both
    last_hands: dict[str, Any] | None = None
    touched: int = 0
    stored_keys: list[int] = field(default_factory=list)
    stored_from: int = 0  # seq of stored_keys[0]
    piece: int | None = None
    piece_pos: int = 0
    lineage: tuple[int, str, int] | None = None  # (run_id, source, line) of the record being taken, in a rebuild
    resumed: bool = False
    states_from: int | None = None  # boards stored up to this seq (resumed: may trail ``existing``, see _resume)
    boards: Boards = field(default_factory=lambda: Boards())  # which replayed boards are keyframes
    deal_keys: dict[int, tuple[int, int]] = field(default_factory=dict)  # round -> (key, seq) of its deal line
    deal_ms: dict[int, Any] = field(default_factory=dict)  # round -> the deal line's timestamp


#: Seats at one table at the most, over every UNO profile (ALGORI 4, JUA 10): join-rooms beyond it start a match.
MAX_SEATS = max(p.players[1] for p in PROFILES)
#: Records a fragment may hold before its place is decided (a real log deals within 5 lines).
PENDING_CAP = 1000
#: Fragments open at once per run; the least recently used is finished beyond that.
OPEN_CAP = 64


def record_meta(a: Activity, *, keyed: bool = True) -> Meta:
    """What assembling needs of a record; its key (the costliest part) left to :func:`keyed_meta` unless ``keyed``."""
    c = a.contents if isinstance(a.contents, dict) else {}
    codes: list[str] = []
    if a.player:
        codes.append(a.player)
    if a.event == "join-room":
        code = as_code(c.get("player_code", c.get("player_id")))
        if isinstance(code, str):
            codes.append(code)
    elif a.event == "first-player":
        codes.extend(p for p in c.get("play_order") or [] if isinstance(p, str))
    else:
        target = event_target(a)
        if target:
            codes.append(target)
    key = record_key(a.event, a.player, a.turn, a.contents, a.desk) if keyed else None
    return Meta(key, a.event, a.turn, a.date_ms, tuple(dict.fromkeys(codes)))  # type: ignore[arg-type]


def keyed_meta(meta: Meta, a: Activity) -> Meta:
    """``meta`` with its record key (computed now if :func:`record_meta` left it out)."""
    if meta.key is None:
        meta.key = record_key(a.event, a.player, a.turn, a.contents, a.desk)
    return meta


def _progress(a: Activity) -> tuple[int, int] | None:
    """(round, turn) of a record that carries both: never decreases along one match's log."""
    ntp = as_int(a.contents.get("number_turn_play")) if isinstance(a.contents, dict) else None
    return (a.turn, ntp) if a.turn is not None and ntp is not None else None


def _hands(desk: Any) -> dict[str, Any] | None:
    hands = desk.get("card_of_player") if isinstance(desk, dict) else None
    return hands if isinstance(hands, dict) else None


def _hand_distance(a: dict[str, Any], b: dict[str, Any]) -> int:
    """How many cards differ between two boards (a small number for consecutive lines)."""
    def cards(hand: Any) -> Counter[str]:
        return Counter(dumps(c) for c in hand) if isinstance(hand, list) else Counter()

    total = 0
    for p in set(a) | set(b):
        x, y = cards(a.get(p)), cards(b.get(p))
        total += sum(((x - y) + (y - x)).values())
    return total


RowSink = Callable[[str, tuple[Any, ...]], None]


class Assembler:
    """Groups a stream of activities into matches and emits table rows.

    Records are routed to a fragment per match (matches of the same dealer code and name,
    even interleaved line by line, are told apart by their players and boards).  Each
    fragment is then placed: a log that starts at the first join-room with every seat joined
    becomes a new match; a fragment whose first deal (or first line) is already stored
    continues that match, its known lines skipped after a key-by-key check; anything else —
    a tail, a part that starts earlier than what is stored, a copy that disagrees — is
    spooled and put in place at the end of the run (:meth:`reassemble`).
    """

    def __init__(
        self,
        *,
        source: str,
        run_id: int,
        store: Any,
        on_match_done: Callable[[MatchBuilder], None],
        validate: bool = True,
        rounds: Any = None,
        ruleset: Any = None,
    ) -> None:
        self.store = store
        self.validate = validate
        self.ruleset = ruleset  # a rules.uno.profile.Profile every match is judged by (kifu ingest --ruleset)
        self.rounds = rounds  # a loaders.parallel.workers.RoundPool: new matches replayed round-parallel
        self.source = source
        self.run_id = run_id
        self.emit: RowSink = store.add
        self.on_match_done = on_match_done
        self.open: dict[tuple[str | None, str], list[MatchBuilder]] = {}
        self.unknown: dict[str, int] = {}
        self.clock = 0
        self.open_count = 0
        self._rebuilt_ids: set[str] = set()  # ids given to rebuilt matches in this run

    # -- routing

    def add(self, a: Activity, line: int, raw: bytes | str) -> None:
        if a.event not in KNOWN_EVENTS:
            self.unknown[a.event] = self.unknown.get(a.event, 0) + 1
        # with workers, the key of a record taken into a new match is made by the worker replaying it
        meta = record_meta(a, keyed=self.rounds is None or not self.validate)
        deal_key = keyed_meta(meta, a).key if a.event == "first-player" and isinstance(a.turn, int) else None
        if deal_key is not None and self._repeated_deal(a, line, deal_key):
            return
        m = self._route(a, meta)
        if deal_key is not None:
            m.deal_keys[a.turn] = (deal_key, m.seq + len(m.pending) + 1)  # type: ignore[index]
            m.deal_ms[a.turn] = a.date_ms  # type: ignore[index]
        self.clock += 1
        m.touched = self.clock
        m.codes.update(meta.players)
        if a.event == "join-room" and meta.players:
            m.joined.add(meta.players[-1])
        m.last_event = a.event
        pos = _progress(a)
        if pos is not None:
            m.last_pos = pos
        hands = _hands(a.desk)
        if hands is not None:
            m.last_hands = hands
        if a.event == "first-player":
            m.seen_deal = True
        self._feed(m, a, line, raw, meta)

    def _repeated_deal(self, a: Activity, line: int, key: int) -> bool:
        """A deal line that repeats the deal of a round an open match of this run has already had
        (the same line, perhaps with another timestamp): not a new match, and not the stored copy
        read again.  It is reported on that match as a consistency finding and not stored again."""
        group = self.open.get((a.dealer_code, a.dealer), [])
        if any(not m.seen_deal for m in group):  # seats joined again first: a copy of the log, read as such
            return False
        for m in group:
            seen = m.deal_keys.get(a.turn)  # type: ignore[arg-type]
            if seen is None or seen[0] != key or m.match_id is None:
                continue
            if m.seq < m.existing:  # within the stored part of the match: reported when it was stored
                return True
            check = CHECKS["event-sequence"]
            msg = (f"first-player of round {a.turn} written again after round {m.current_round} (line {line} of "
                   f"{self.source or 'the log'}): the same deal as seq {seen[1]}"
                   f"{'' if a.date_ms == m.deal_ms.get(a.turn) else ' but for its timestamp'}; the copy is not "
                   "stored or replayed")  # fmt: skip
            self.emit("violations", (m.match_id, as_int32(m.current_round), as_int32(m.current_turn), m.seq or None,
                                     None, check.code, check.family, check.severity, None, None, msg,
                                     f"round {(m.current_round or 0) + 1} or the end", f"round {a.turn} again",
                                     None, self.run_id))  # fmt: skip
            return True
        return False

    def _route(self, a: Activity, meta: Meta) -> MatchBuilder:
        key = (a.dealer_code, a.dealer)
        group = self.open.setdefault(key, [])
        if a.event == "join-room":
            joiner = meta.players[-1] if meta.players else None
            for m in reversed(group):
                if not m.seen_deal and len(m.joined) < MAX_SEATS and joiner not in m.joined:
                    return m
            return self._start(key)
        if a.event == "first-player" and a.turn == 1:
            waiting = [m for m in group if not m.seen_deal]
            return waiting[-1] if waiting else self._start(key)
        if not group:
            return self._start(key)
        if len(group) == 1:
            return group[0]
        codes = set(meta.players)
        cands = [m for m in group if codes <= m.codes] or group
        pos = _progress(a)
        if pos is not None and len(cands) > 1:  # a log never goes back in (round, turn) ...
            # ... except a colour choice, logged with the turn before the next-player it follows
            ahead = (pos[0], pos[1] + 1) if a.event == "color-of-wild" else pos
            cands = [m for m in cands if m.last_pos is None or ahead >= m.last_pos] or cands
        if len(cands) > 1 and a.event == "first-player":
            cands = [m for m in cands if m.last_event == "finish-turn" and m.current_round == (a.turn or 0) - 1] or cands
        hands = _hands(a.desk)
        if len(cands) > 1 and hands is not None:
            scored = [(_hand_distance(m.last_hands, hands), -m.touched, i) for i, m in enumerate(cands)
                      if m.last_hands is not None]  # fmt: skip
            if scored:
                return cands[min(scored)[2]]
        return max(cands, key=lambda m: m.touched)

    def _start(self, key: tuple[str | None, str]) -> MatchBuilder:
        group = self.open.setdefault(key, [])
        if self.open_count >= OPEN_CAP:
            oldest = min((x for g in self.open.values() for x in g), key=lambda x: x.touched)
            self._finish(oldest)
        m = MatchBuilder(key[0], key[1])
        group.append(m)
        self.open_count += 1
        self.store.groups_touched.add(key)
        return m

    def close(self) -> None:
        for group in list(self.open.values()):
            for m in list(group):
                self._finish(m)
        self.open.clear()
        self.open_count = 0

    # -- placement

    def _feed(self, m: MatchBuilder, a: Activity, line: int, raw: bytes | str, meta: Meta) -> None:
        if m.mode is None:
            m.pending.append((a, line, raw, keyed_meta(meta, a)))
            if a.event == "first-player" or len(m.pending) >= PENDING_CAP:
                self._place(m)
            return
        self._put(m, a, line, raw, meta)

    def _put(self, m: MatchBuilder, a: Activity, line: int, raw: bytes | str, meta: Meta) -> None:
        if m.mode == "spool":
            self._spool(m, a, line, raw, keyed_meta(meta, a))
        elif m.mode == "anchored" and m.seq < m.existing:
            stored = self._stored_key(m, m.seq + 1)
            if stored == keyed_meta(meta, a).key:
                m.seq += 1
                m.duplicates += 1
                return
            self._diverge(m)
            self._spool(m, a, line, raw, meta)
        else:
            self._take(m, a, line, raw, meta.key)

    def _place(self, m: MatchBuilder) -> None:
        """Decide where a fragment's records go (its first records are in ``pending``)."""
        pending, m.pending = m.pending, []
        keys = [meta.key for _, _, _, meta in pending]
        deal = next((i for i, (a, *_rest) in enumerate(pending) if a.event == "first-player"), None)
        anchor = deal if deal is not None else 0
        known = self.store.group_known((m.dealer_code, m.dealer))
        for match_id, seq in self.store.find_key(m.dealer_code, m.dealer, keys[anchor]) if known else ():
            start = seq - anchor  # seq of pending[0]
            if start < 1:
                continue  # the fragment starts before what is stored: put in place at the end
            stored = self.store.keys(match_id, start, start + len(keys) - 1)
            if stored != keys[: len(stored)]:
                continue
            m.mode, m.match_id = "anchored", match_id
            m.existing = self.store.existing_seq(match_id)
            m.seq = start - 1
            m.log_start = "start" if start == 1 and self._complete_head(pending) else self.store.log_start(match_id)
            break
        else:
            if self._complete_head(pending):
                m.mode, m.log_start = "new", "start"
                basis = pending[deal][0].contents if deal is not None else {
                    "join-room": [a.contents for a, *_ in pending if a.event == "join-room"]}
                m.match_id = match_fingerprint(m.dealer_code, m.dealer, basis)
                m.existing = self.store.existing_seq(m.match_id)
                if m.existing:  # same first deal, other lines: let the end of the run sort it out
                    m.mode, m.match_id = "spool", None
            else:
                m.mode = "spool"
        for a, line, raw, meta in pending:
            self._put(m, a, line, raw, meta)

    @staticmethod
    def _complete_head(pending: list[tuple[Activity, int, bytes | str, Meta]]) -> bool:
        """The log starts here: join-rooms first, and every seat of the first deal joined before it."""
        if not pending or pending[0][0].event != "join-room":
            return False
        joined: set[str] = set()
        for a, _, _, meta in pending:
            if a.event == "join-room":
                joined.update(meta.players[-1:])
            elif a.event == "first-player":
                order = a.contents.get("play_order") if isinstance(a.contents, dict) else None
                return isinstance(order, list) and set(order) <= joined
        return len(joined) >= 4

    def _stored_key(self, m: MatchBuilder, seq: int) -> int:
        i = seq - m.stored_from
        if not 0 <= i < len(m.stored_keys):
            assert m.match_id is not None
            m.stored_from = seq
            m.stored_keys = self.store.keys(m.match_id, seq, seq + 9_999)
            i = 0
        return m.stored_keys[i] if i < len(m.stored_keys) else -1

    def _diverge(self, m: MatchBuilder) -> None:
        """This copy disagrees with the stored match: spool it (the stored part it matched included)."""
        assert m.match_id is not None
        m.mode = "spool"
        m.piece = self.store.new_piece((m.dealer_code, m.dealer))
        first = m.seq - m.duplicates + 1
        m.piece_pos = self.store.spool_stored(m.piece, m.match_id, first, m.seq)
        m.duplicates = 0

    def _spool(self, m: MatchBuilder, a: Activity, line: int, raw: bytes | str, meta: Meta) -> None:
        if m.piece is None:
            m.piece = self.store.new_piece((m.dealer_code, m.dealer))
        m.piece_pos += 1
        self.emit("spool", (m.piece, m.piece_pos, self.run_id, self.source, line,
                            raw, meta.key, meta.event,
                            as_int32(meta.round_no), meta.t, ",".join(meta.players)))  # fmt: skip

    def _finish(self, m: MatchBuilder) -> None:
        group = self.open.get((m.dealer_code, m.dealer))
        if group is not None and m in group:
            group.remove(m)
            self.open_count -= 1
            if not group:
                del self.open[(m.dealer_code, m.dealer)]
        if m.mode is None:
            if not m.pending:
                return
            self._place(m)
        if m.mode == "spool" or m.match_id is None:
            return
        if m.replay is not None:
            self._frames(m, m.replay.close())
            m.ruleset = m.replay.ruleset
        self.on_match_done(m)

    def _take(self, m: MatchBuilder, a: Activity, line: int, raw: bytes | str, rkey: int | None) -> None:
        if m.existing and not m.resumed:
            self._resume(m)
        m.seq += 1
        seq = m.seq
        _summarise(m, a, seq)
        m.new_events += 1
        mid = m.match_id
        assert mid is not None
        if self.validate:
            if m.replay is None:
                m.replay = MatchReplay(match_id=m.match_id, ruleset=self.ruleset) \
                    if self.rounds is None or self.ruleset is not None else \
                    MatchRounds(self.rounds, m.match_id, self.run_id, self.store.extend)  # fmt: skip
            if isinstance(m.replay, MatchRounds):
                # round-parallel: the worker that replays this line also makes its rows (and its key)
                self.store.note_seq(mid, seq)
                m.replay.feed(replay_activity(a, seq), RecordParts(
                    a.dealer_code, a.dealer, m.current_turn, m.lineage or (self.run_id, self.source, line), raw, rkey))
                return
            act = replay_activity(a, seq)
            self._frames(m, m.replay.feed(act, m.boards.saw(act)))
        where = m.lineage or (self.run_id, self.source, line)
        for table, row in record_rows(mid, seq, a, m.current_turn, where, raw, rkey):
            self.emit(table, row)

    def _resume(self, m: MatchBuilder) -> None:
        """Before appending to a stored match: its summary and replay state from the stored events."""
        assert m.match_id is not None
        m.resumed = True
        m.rounds, m.players, m.finish, m.current_round, m.current_turn = {}, {}, None, None, None
        m.replay = MatchReplay(match_id=m.match_id, ruleset=self.ruleset) if self.validate else None
        if self.validate:
            self.store.delete_violations(m.match_id)  # they are found again below
        for row in self.store.stored_activities(m.match_id):
            a = stored_activity(row["raw"])
            _summarise(m, a, row["seq"])
            if m.replay is not None:
                self._frames(m, m.replay.feed(replay_activity(a, row["seq"])), states=False)
        m.seq = m.existing
        m.boards = Boards()  # the resumed replay's first board is a keyframe
        # A replay holds an event's board back until the next line has been seen: a match written batch
        # by batch (kifu watch) may end a batch with its newest boards not stored yet; they come now.
        m.states_from = self.store.max_state_seq(m.match_id) if m.replay is not None else None

    def _frames(self, m: MatchBuilder, frames: list[Frame], *, states: bool = True) -> None:
        first = m.states_from if m.states_from is not None else m.existing
        for table, row in frame_rows(m.match_id, self.run_id, frames, first if states else None, m.boards if states else None):
            self.emit(table, row)

    # -- the end of the run: pieces put in place

    def reassemble(self) -> list[str]:
        """Put spooled pieces in place, rebuilding every match of the dealer groups concerned.

        A group is reassembled when this run spooled a piece of it, or when it holds a match
        whose stored log does not start at its beginning (a part ingested earlier).  All
        rebuilt matches are staged, deleted and written again together.  Returns their ids.
        """
        spooled = self.store.spooled_pieces()

        def piece(p: int) -> Piece:
            rows = self.store.piece_rows(p)
            return Piece([Meta(int(k), ev, rn, t, tuple(x for x in (pl or "").split(",") if x))
                          for _, _, k, ev, rn, t, pl in rows], [("p", p, pos) for _, pos, *_ in rows])  # fmt: skip

        groups = sorted(self.store.groups_touched | set(spooled), key=repr)
        stored_by_group = self.store.group_matches_many([g for g in groups if self.store.group_known(g)])
        plan: list[tuple[tuple[str | None, str], list[Any]]] = []
        whole: list[tuple[tuple[str | None, str], int]] = []  # a group's only piece, nothing stored: as it is
        absorbed_all: list[str] = []
        for group in groups:
            stored = stored_by_group.get(group, [])
            if group not in spooled and not (len(stored) > 1 and any(start != "start" for _, start in stored)):
                continue
            if not stored and len(spooled.get(group, [])) == 1:
                whole.append((group, spooled[group][0]))
                continue
            pieces = [piece(p) for p in spooled.get(group, [])]
            current: dict[str, int] = {}
            for match_id, _ in stored:
                n = 0
                for rows in self.store.stored_pieces(match_id):
                    pieces.append(Piece(
                        [Meta(int(k) if k is not None else -1, ev, rn, t, tuple(x for x in (actor, target) if x))
                         for _, k, ev, rn, t, actor, target in rows],
                        [("s", match_id, seq) for seq, *_ in rows]))  # fmt: skip
                    n += len(rows)
                current[match_id] = n
            matches = assemble(pieces)
            unchanged = [
                refs for refs in matches
                if refs and refs[0][0] == "s" and current.get(refs[0][1]) == len(refs)
                and all(r[0] == "s" and r[1] == refs[0][1] and r[2] == i + 1 for i, r in enumerate(refs))
            ]  # fmt: skip
            kept = {refs[0][1] for refs in unchanged}
            absorbed_all.extend(sorted(set(current) - kept))  # rebuilt, or merged into another match
            plan.extend((group, refs) for refs in matches if refs not in unchanged)
        if not plan and not absorbed_all and not whole:
            return []
        order = [(mi, k, kind, a, b) for mi, (_, refs) in enumerate(plan) for k, (kind, a, b) in enumerate(refs)]
        self.store.stage_rebuild(order, [(len(plan) + i, p) for i, (_, p) in enumerate(whole)])
        self.store.delete_matches(absorbed_all)
        return self._rebuild([g for g, _ in plan] + [g for g, _ in whole])

    def _rebuild(self, groups: list[tuple[str | None, str]]) -> list[str]:
        ids: list[str] = []
        current: int | None = None
        m: MatchBuilder | None = None
        for mi, _, run_id, source, line, raw in self.store.rebuild_rows():
            if mi != current:
                if m is not None:
                    ids.append(self._close_rebuilt(m))
                current = mi
                m = MatchBuilder(*groups[mi])
                m.mode = "rebuild"
            doc = parse_json(raw)
            if '"$number' in raw:
                doc = unwrap_extended_json(doc)
            a = normalize(doc)
            assert m is not None
            lineage = (int(run_id), source, int(line))
            if m.match_id is None:
                m.pending.append((a, lineage, raw, record_meta(a)))  # type: ignore[arg-type]
                if a.event == "first-player" or len(m.pending) >= PENDING_CAP:
                    self._identify_rebuilt(m)
                continue
            m.lineage = lineage
            self._take(m, a, int(line), raw, record_meta(a).key)
        if m is not None:
            ids.append(self._close_rebuilt(m))
        return ids

    def _identify_rebuilt(self, m: MatchBuilder) -> None:
        pending, m.pending = m.pending, []
        deal = next((a for a, *_ in pending if a.event == "first-player"), None)
        basis = deal.contents if deal is not None else {"join-room": [a.contents for a, *_ in pending
                                                                      if a.event == "join-room"]}  # fmt: skip
        m.match_id = self._unused_id(match_fingerprint(m.dealer_code, m.dealer, basis))
        m.log_start = "start" if self._complete_head(pending) else "partial"
        for a, lineage, raw, meta in pending:
            m.lineage = lineage  # type: ignore[assignment]
            self._take(m, a, lineage[2], raw, meta.key)  # type: ignore[index]

    def _unused_id(self, base: str) -> str:
        """``base``, or ``base~2``, ``~3``… when another match already has it: two logs that share a
        first deal yet disagree line by line are kept apart rather than mixed."""
        taken = self._rebuilt_ids
        mid, n = base, 1
        while mid in taken or self.store.existing_seq(mid):
            n += 1
            mid = f"{base}~{n}"
        taken.add(mid)
        return mid

    def _close_rebuilt(self, m: MatchBuilder) -> str:
        if m.match_id is None:
            self._identify_rebuilt(m)
        if m.replay is not None:
            self._frames(m, m.replay.close())
            m.ruleset = m.replay.ruleset
        self.on_match_done(m)
        assert m.match_id is not None
        return m.match_id


def _summarise(m: MatchBuilder, a: Activity, seq: int) -> None:
    """Keep the per-match and per-round facts the summary tables need."""
    c = a.contents if isinstance(a.contents, dict) else {}
    if a.date_ms is not None:
        m.first_ms = a.date_ms if m.first_ms is None else m.first_ms
        m.last_ms = a.date_ms
    if a.dealer_code is None or a.event in EVENTS_2022:
        m.legacy = True
    if a.event == "join-room":
        code = as_code(c.get("player_code", c.get("player_id"))) or a.player
        if isinstance(code, str) and code not in m.players:
            name = c.get("player_name", c.get("player"))
            m.players[code] = name if isinstance(name, str) else None
        return
    if a.turn is not None and a.event not in ("finish-game", "disconnect"):
        if a.turn != m.current_round:
            m.current_round = a.turn
            m.current_turn = None
        r = m.rounds.get(a.turn)
        if r is None:
            r = m.rounds[a.turn] = RoundSummary(a.turn, first_seq=seq, started_ms=a.date_ms)
        r.n_events += 1
        r.last_seq = seq
        r.ended_ms = a.date_ms
        turn_no = as_int32(c.get("number_turn_play"))
        if turn_no is not None:
            m.current_turn = turn_no
            r.n_turns = max(r.n_turns, turn_no)
        if a.event == "first-player":
            m.seen_deal = True
            r.first_player = str_or_none(c.get("first_player"))
            r.first_card = c.get("first_card")
            r.play_order = c.get("play_order")
            r.white_wild = str_or_none(c.get("white_wild"))
            if m.white_wild is None:
                m.white_wild = r.white_wild
            for code in r.play_order or []:
                m.players.setdefault(code, None)
        elif a.event == "finish-turn":
            r.winner = str_or_none(c.get("winner"))
            r.scores = c.get("score") if isinstance(c.get("score"), dict) else None
            r.total_scores = c.get("total_score") if isinstance(c.get("total_score"), dict) else None
            if r.winner:
                r.end_kind = "won"
            else:
                if r.prev_kind == "draw-card" and r.prev_drew:
                    r.end_kind = "deck-exhausted"
                elif r.prev_kind == "next-player":
                    r.end_kind = "no-progress"
                else:
                    r.end_kind = "no-winner"
        r.prev_kind = a.event
        r.prev_drew = c.get("is_draw") is True
    elif a.event == "finish-game":
        m.finish = c


def rank_players(final: dict[str, int], history: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Rank by final score; a tie goes to whoever reached that score first (contest rules)."""
    history = list(history)

    def reached(code: str) -> int:
        target = final[code]
        for i, totals in enumerate(history):
            value = as_int32(totals.get(code)) if isinstance(totals, dict) else None
            if value is not None and value >= target:
                return i
        return len(history)

    order = sorted(final, key=lambda code: (-final[code], reached(code), code))
    return {code: i + 1 for i, code in enumerate(order)}


def summary_rows(m: MatchBuilder, run_id: int) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of ``matches``, ``players``, ``rounds`` and ``round_scores`` for one match."""
    mid = m.match_id
    rounds = [m.rounds[k] for k in sorted(m.rounds)]
    finish = m.finish or {}
    totals_history = [r.total_scores for r in rounds if r.total_scores]
    final: dict[str, int] = {}
    fin_score = finish.get("score", finish.get("total_score"))
    if isinstance(fin_score, dict):
        final = {k: int(as_int32(v) or 0) for k, v in fin_score.items()}
    elif totals_history:
        final = {k: int(as_int32(v) or 0) for k, v in totals_history[-1].items()}
    else:
        for r in rounds:
            for k, v in (r.scores or {}).items():
                final[k] = final.get(k, 0) + int(as_int32(v) or 0)
    wins: dict[str, int] = {}
    for r in rounds:
        if r.winner:
            wins[r.winner] = wins.get(r.winner, 0) + 1
    order = finish.get("order") if isinstance(finish.get("order"), dict) else None
    for code in final:
        m.players.setdefault(code, None)
    ranks = rank_players(final, totals_history) if final else {}
    match_row = (
        mid, GAME, m.dealer_code, m.dealer, m.white_wild,
        sum(1 for r in rounds if r.end_kind != "incomplete"), len(rounds),
        str_or_none(finish.get("winner")), "finished" if m.finish is not None else "incomplete",
        dumps(fin_score) if fin_score is not None else None,
        dumps(order) if order is not None else None,
        m.seq, m.first_ms, m.last_ms, "algori-2022" if m.legacy else "algori-2023",
        getattr(m.ruleset, "id", None), getattr(m.ruleset, "version", None), run_id, run_id, m.log_start,
        None,  # end_kind: how a match ends is per round for ALGORI (rounds.end_kind)
    )  # fmt: skip
    players = [
        (mid, code, name, i + 1,
         int(as_int32(order.get(code)) or 0) if order else wins.get(code, 0),
         final.get(code), ranks.get(code))
        for i, (code, name) in enumerate(m.players.items())
    ]  # fmt: skip
    round_rows = []
    score_rows = []
    for r in rounds:
        round_rows.append(
            (mid, r.round_no, r.first_player, dumps(r.first_card) if r.first_card is not None else None,
             card_label(r.first_card), dumps(r.play_order) if r.play_order is not None else None,
             r.white_wild, r.winner, r.end_kind, r.n_turns, r.n_events, r.first_seq, r.last_seq,
             dumps(r.scores) if r.scores is not None else None, r.started_ms, r.ended_ms)
        )  # fmt: skip
        for code, score in (r.scores or {}).items():
            total = (r.total_scores or {}).get(code)
            score_rows.append(
                (mid, r.round_no, code, as_int32(score), as_int32(total), code == r.winner)
            )
    return {"matches": [match_row], "players": players, "rounds": round_rows, "round_scores": score_rows}
