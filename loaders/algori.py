"""ALGORI dealer activities: normalise any known shape, derive typed rows, group into matches.

Accepted shapes (see ``docs/data-model.md``): the 2023 dealer's download log, the same
documents as stored in MongoDB (relaxed or canonical Extended JSON, or pymongo documents),
the official spec's spelling (``player_id``, ``content``, ``total_score``, disconnect
payload as an object), and the 2022 dealer (no ``dealer_code``/``desk``, extra events).

Player-sent payloads are echoed by the dealer *before* it validates them, so fields such as
``card_play`` or ``yell_uno`` may hold anything; typed columns take a value only when it is
well-typed and the raw value always stays in ``contents``.  Only the envelope and the
fields the dealer itself writes are required to be well-formed; a record that breaks them
is quarantined with the reason.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from loaders.assemble import Meta, Piece, assemble, record_key
from loaders.rounds import MatchRounds
from loaders.sources import parse_json
from rules.core import Frame
from rules.uno.boards import encode_state, next_board
from rules.uno.cards import Card, card_label
from rules.uno.profile import PROFILES
from rules.uno.replay import MatchReplay

GAME = "algori-uno"

EVENTS_2023 = frozenset(
    {
        "join-room", "first-player", "next-player", "play-card", "draw-card",
        "play-draw-card", "challenge", "public-card", "pointed-not-say-uno",
        "special-logic", "color-change-request", "color-of-wild", "shuffle-wild",
        "penalty", "finish-turn", "finish-game", "disconnect",
    }
)  # fmt: skip
#: Events of the 2022 dealer that the 2023 one no longer writes; ingested like the others.
EVENTS_2022 = frozenset({"say-uno-and-play-card", "say-uno-and-play-draw-card", "receiver-card"})
KNOWN_EVENTS = EVENTS_2023 | EVENTS_2022
ENVELOPE_ONLY = frozenset({"join-room", "disconnect", "finish-game"})


class RecordError(ValueError):
    """A record that is not a usable activity; the message is the quarantine reason."""


@dataclass(slots=True)
class Activity:
    dealer_code: str | None
    dealer: str
    event: str
    player: str | None
    turn: int | None
    contents: Any
    desk: dict[str, Any] | None
    date_ms: int | None
    contents_json: bytes | str = "null"


# --------------------------------------------------------------------------- normalise


def normalize(doc: Any) -> Activity:
    """Check and normalise one activity document; raise :class:`RecordError` if unusable."""
    if not isinstance(doc, dict):
        raise RecordError(f"not a JSON object (got {_type_name(doc)})")
    if "collection" in doc and "document" in doc and "event" not in doc:
        raise RecordError(f"not an activity: a '{doc.get('collection')}' collection document")
    event = doc.get("event")
    if not isinstance(event, str) or not event:
        if "event" not in doc:
            raise RecordError("missing required field 'event' (not an ALGORI activity?)")
        raise RecordError(f"field 'event' is {_type_name(event)}, expected a non-empty string")
    dealer = doc.get("dealer")
    if not isinstance(dealer, str) or not dealer:
        if "dealer" not in doc:
            raise RecordError("missing required field 'dealer'")
        raise RecordError(f"field 'dealer' is {_type_name(dealer)}, expected a non-empty string")
    dealer_code = doc.get("dealer_code")
    if dealer_code is not None and not isinstance(dealer_code, str):
        raise RecordError(f"field 'dealer_code' is {_type_name(dealer_code)}, expected a string")
    player = _code(doc.get("player"))
    if player is _BAD:
        raise RecordError(f"field 'player' is {_type_name(doc.get('player'))}, expected a string")
    turn = doc.get("turn")
    if turn is not None:
        turn = _as_int(turn)
        if turn is None or turn < 0:
            raise RecordError(f"field 'turn' is {_type_name(doc.get('turn'))}, expected a round number")
        if turn > INT32_MAX:
            raise RecordError(f"field 'turn' is {_short(doc.get('turn'))}, out of range for a round number")
    contents = doc["contents"] if "contents" in doc else doc.get("content")
    if event in KNOWN_EVENTS and event != "disconnect":
        if contents is None:
            contents = {}
        if not isinstance(contents, dict):
            raise RecordError(f"field 'contents' of {event} is {_type_name(contents)}, expected an object")
        if event not in ENVELOPE_ONLY and turn is None and event not in EVENTS_2022:
            raise RecordError(f"{event} without the round number 'turn'")
        _check_dealer_fields(event, contents)
    desk = doc.get("desk")
    if desk is not None and not isinstance(desk, dict):
        raise RecordError(f"field 'desk' is {_type_name(desk)}, expected an object")
    date_ms = _date_ms(doc.get("dateCreated"))
    if date_ms is _BAD:
        raise RecordError(f"field 'dateCreated' is not a date ({_short(doc.get('dateCreated'))})")
    try:
        contents_json = orjson.dumps(contents, default=_json_default)  # UTF-8 bytes, stored as text
    except (TypeError, orjson.JSONEncodeError) as exc:
        raise RecordError(f"field 'contents' cannot be stored ({exc}; nested more than 254 levels?)") from exc
    return Activity(dealer_code, dealer, event, player, turn, contents, desk, date_ms, contents_json)  # type: ignore[arg-type]


def _check_dealer_fields(event: str, c: dict[str, Any]) -> None:
    """Fields the dealer writes itself must be well-formed (player echoes may be anything)."""
    if event == "first-player":
        order = c.get("play_order")
        if not isinstance(order, list) or not order or not all(isinstance(p, str) for p in order):
            raise RecordError("first-player without a 'play_order' list of player codes")
        if not isinstance(c.get("cards_receive"), dict):
            raise RecordError("first-player without the dealt hands 'cards_receive'")
    elif event == "next-player":
        if not isinstance(c.get("next_player"), str):
            raise RecordError("next-player without 'next_player'")
    elif event in ("penalty", "public-card", "shuffle-wild", "color-change-request"):
        if not isinstance(c.get("player"), str):
            raise RecordError(f"{event} without the player code 'player'")
    elif event == "finish-turn":
        for key in ("score", "total_score"):
            if key in c and not _is_score_map(c[key]):
                raise RecordError(f"finish-turn '{key}' is not a map of player code to number")
    elif event == "finish-game":
        for key in ("score", "total_score", "order"):
            if key in c and not _is_score_map(c[key]):
                raise RecordError(f"finish-game '{key}' is not a map of player code to number")
    elif event == "join-room":
        code = c.get("player_code", c.get("player_id"))
        if code is not None and not isinstance(_code(code), str):
            raise RecordError("join-room 'player_code' is not a string")


def _is_score_map(v: Any) -> bool:
    return isinstance(v, dict) and all(_as_int(x) is not None for x in v.values())


class _Bad:
    pass


_BAD: Any = _Bad()


def _code(v: Any) -> Any:
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, dict) and isinstance(v.get("$oid"), str):
        return v["$oid"]
    if type(v).__name__ == "ObjectId":
        return str(v)
    return _BAD


INT32_MAX = 2**31 - 1
#: Dates Kifu stores: 1970-01-01 .. 9999-12-31 (epoch ms); others are kept only in the raw record.
DATE_MS_MAX = 253_402_300_799_999


def _as_int(v: Any) -> int | None:
    """An integral JSON number as int (``5``, ``5.0``); anything else (bools, NaN, ∞, text) is None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def _as_int32(v: Any) -> int | None:
    """Like :func:`_as_int`, but None outside the range of the INTEGER columns it goes to."""
    n = _as_int(v)
    return n if n is not None and -INT32_MAX - 1 <= n <= INT32_MAX else None


def _date_ms(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, bool):
        return _BAD
    if isinstance(v, (int, float)):
        if v != v or v in (float("inf"), float("-inf")) or not 0 <= v <= DATE_MS_MAX:
            return _BAD
        return int(v)
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=dt.timezone.utc)
        try:
            return _date_ms(int(v.timestamp() * 1000))
        except (OverflowError, ValueError, OSError):
            return _BAD
    if isinstance(v, dict) and "$date" in v:
        return _date_ms(v["$date"])
    if isinstance(v, dict) and "$numberLong" in v:
        try:
            return _date_ms(int(v["$numberLong"]))
        except (TypeError, ValueError):
            return _BAD
    if isinstance(v, str):
        try:
            parsed = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
        except ValueError:
            return _BAD
        return _date_ms(parsed)
    return _BAD


def unwrap_extended_json(v: Any) -> Any:
    """Canonical Extended JSON numbers (``{"$numberInt": "5"}``) to plain values."""
    if isinstance(v, dict):
        if len(v) == 1:
            (k, x), = v.items()
            if k in ("$numberInt", "$numberLong") and isinstance(x, str):
                try:
                    return int(x)
                except ValueError:
                    return v
            if k == "$numberDouble" and isinstance(x, str):
                try:
                    return float(x)
                except ValueError:
                    return v
        return {k: unwrap_extended_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [unwrap_extended_json(x) for x in v]
    return v


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(v), f"a {type(v).__name__}"
    )


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


# --------------------------------------------------------------------------- typed rows


def _card_cols(obj: Any) -> tuple[str | None, int | None, str | None]:
    card = Card.from_dealer(obj)
    if card is None:
        return None, None, None
    return card.color, card.number, card.special


def _len(v: Any) -> int | None:
    return len(v) if isinstance(v, list) else None


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def event_target(a: Activity) -> str | None:
    c = a.contents if isinstance(a.contents, dict) else {}
    ev = a.event
    if ev in ("penalty", "public-card", "shuffle-wild", "color-change-request"):
        return _str_or_none(c.get("player"))
    if ev in ("challenge", "pointed-not-say-uno"):
        return _str_or_none(c.get("target"))
    if ev == "next-player":
        return _str_or_none(c.get("next_player"))
    if ev == "first-player":
        return _str_or_none(c.get("first_player"))
    if ev in ("finish-turn", "finish-game"):
        return _str_or_none(c.get("winner"))
    if ev == "join-room":
        return _str_or_none(_code(c.get("player_code", c.get("player_id"))))
    return None


def event_cards(a: Activity) -> tuple[tuple[str | None, int | None, str | None], int | None]:
    c = a.contents if isinstance(a.contents, dict) else {}
    ev = a.event
    if ev in ("play-card", "play-draw-card", "say-uno-and-play-card", "say-uno-and-play-draw-card"):
        return _card_cols(c.get("card_play")), None
    if ev == "draw-card":
        drawn = c.get("card_draw")
        first = drawn[0] if isinstance(drawn, list) and drawn else None
        return _card_cols(first), _len(drawn)
    if ev == "first-player":
        return _card_cols(c.get("first_card")), None
    if ev in ("penalty", "receiver-card"):
        return (None, None, None), _len(c.get("cards_receive"))
    if ev == "challenge":
        result = c.get("result")
        return (None, None, None), _len(result.get("cards_receive")) if isinstance(result, dict) else None
    if ev == "public-card":
        return (None, None, None), _len(c.get("cards"))
    return (None, None, None), None


def penalty_cause(error: Any) -> str | None:
    """The dealer's error text; "Did not say uno." is logged as an object with a message."""
    if isinstance(error, str):
        return error
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if error is None:
        return None
    return orjson.dumps(error).decode()


def js_length(text: str) -> int:
    """String length as JavaScript counts it (UTF-16 code units), which the dealer checks."""
    return len(text.encode("utf-16-le")) // 2


def dumps(v: Any) -> str:
    return orjson.dumps(v, default=_json_default).decode()


def _json_default(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        return v.isoformat()
    return str(v)


# --------------------------------------------------------------------------- matches


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
    run by :func:`loaders.assemble.assemble`).
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
        code = _code(c.get("player_code", c.get("player_id")))
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
    ntp = _as_int(a.contents.get("number_turn_play")) if isinstance(a.contents, dict) else None
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
        self.rounds = rounds  # a loaders.workers.RoundPool: new matches replayed round-parallel
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
        m = self._route(a, meta)
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
                            _as_int32(meta.round_no), meta.t, ",".join(meta.players)))  # fmt: skip

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
            m.boards.saw(act)
            self._frames(m, m.replay.feed(act))
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


class RecordParts(NamedTuple):
    """What a record's rows need beyond the activity the replay reads (see :func:`record_rows`)."""

    dealer_code: str | None
    dealer: str
    current_turn: int | None
    where: tuple[int, str, int]  # (run id, source, line) the record was read from
    raw: bytes | str
    rkey: int | None  # the record key (None: not computed yet)


def parts_rows(match_id: str, activity: dict[str, Any], parts: RecordParts) -> list[tuple[str, tuple[Any, ...]]]:
    """:func:`record_rows` of a record known by its replay activity (:func:`replay_activity`) and parts."""
    a = Activity(parts.dealer_code, parts.dealer, activity["event"], activity["player"], activity["turn"],
                 activity["contents"], activity["desk"], activity["date_ms"],
                 orjson.dumps(activity["contents"], default=_json_default))  # fmt: skip
    return record_rows(match_id, activity["seq"], a, parts.current_turn, parts.where, parts.raw, parts.rkey)


def record_rows(mid: str, seq: int, a: Activity, current_turn: int | None, where: tuple[int, str, int],
                raw: bytes | str, rkey: int | None) -> list[tuple[str, tuple[Any, ...]]]:  # fmt: skip
    """The rows one record gives: its raw line, its event, and its penalty / challenge / special-logic row."""
    c = a.contents if isinstance(a.contents, dict) else {}
    ev = a.event
    (color, number, special), n_cards = event_cards(a)
    yell = c.get("yell_uno")
    run_id, source, line = where
    if rkey is None:
        rkey = record_key(a.event, a.player, a.turn, a.contents, a.desk)
    out: list[tuple[str, tuple[Any, ...]]] = [
        ("raw_activities", (mid, seq, run_id, source, line, raw, rkey)),  # bytes stay bytes: converted in C
        ("events", (
            mid, a.dealer_code, seq, a.turn, current_turn if ev != "join-room" else None, ev,
            a.player or None, event_target(a), color, number, special, n_cards,
            _str_or_none(c.get("color_of_wild")), yell if isinstance(yell, bool) else None,
            _str_or_none(c.get("draw_reason")), a.contents_json, a.date_ms, run_id,
        )),
    ]  # fmt: skip
    if ev == "penalty":
        out.append(("penalties", (mid, seq, a.turn, current_turn, _str_or_none(c.get("player")),
                                  penalty_cause(c.get("error")), _len(c.get("cards_receive")))))  # fmt: skip
    elif ev == "challenge":
        result = c.get("result") if isinstance(c.get("result"), dict) else {}
        is_ch = c.get("is_challenge")
        success = result.get("is_challenge_success")
        out.append(("challenges", (
            mid, seq, a.turn, current_turn, a.player or None, _str_or_none(c.get("target")),
            is_ch if isinstance(is_ch, bool) else None, None if isinstance(is_ch, bool) else dumps(is_ch),
            success if isinstance(success, bool) else None, _str_or_none(result.get("player")),
            _len(result.get("cards_receive")),
        )))  # fmt: skip
    elif ev == "special-logic":
        title = c.get("title")
        text = title if isinstance(title, str) else (None if title is None else dumps(title))
        out.append(("special_logic", (mid, seq, a.turn, current_turn, a.player or None, text,
                                      js_length(text) if text is not None else None)))  # fmt: skip
    return out


def frame_rows(match_id: str | None, run_id: int, frames: Iterable[Frame], existing: int | None = 0,
               boards: Boards | None = None) -> list[tuple[str, tuple[Any, ...]]]:  # fmt: skip
    """The rows a replay's frames give, in order: findings, the board after each event beyond
    ``existing`` where ``boards`` says the fold cannot give it (a keyframe; every board without
    ``boards``), ``None``: no boards, a replay resumed over stored events) and think times."""
    out: list[tuple[str, tuple[Any, ...]]] = []
    for fr in frames:
        for v in fr.violations:
            out.append(("violations", (
                match_id, _as_int32(v.round_no), _as_int32(v.turn_no),
                v.seq if v.seq is not None and v.seq > 0 else None, v.player, v.code, v.family, v.severity,
                v.ruleset, v.ruleset_version, v.message, v.expected, v.actual, v.penalty_seq, run_id,
            )))  # fmt: skip
        if existing is not None and fr.event is not None:
            keep = boards.keep(fr) if boards is not None else True
            if fr.seq > existing:
                if keep:
                    out.append(("board_keyframes", keyframe_row(match_id, fr)))
                if fr.think_ms is not None:
                    ev = fr.event
                    out.append(("think_times", (match_id, fr.seq, ev.round_no, ev.turn_no, ev.player, ev.kind, fr.think_ms)))
    return out


class Boards:
    """Which of a replay's boards are stored: the loader's side of :mod:`rules.uno.boards`.

    A board is a keyframe unless the fold gives it exactly from the board of the line before it
    (in the same round) with that line and the one after it — checked here, line by line, with the
    very function pages derive boards with.  The first board a replay gives here, a round's first,
    a line replayed out of order and the last line (its next line is not known yet) are keyframes.
    """

    __slots__ = ("acts", "prev")

    def __init__(self) -> None:
        self.acts: dict[Any, dict[str, Any]] = {}  # the latest lines fed, by seq
        self.prev: tuple[int, Any, Any] | None = None  # (seq, round, board) of the latest frame

    def saw(self, activity: dict[str, Any]) -> None:
        acts = self.acts
        acts[activity["seq"]] = activity
        if len(acts) > 16:
            low = activity["seq"] - 8
            for k in [k for k in acts if not (type(k) is int and k >= low)]:
                del acts[k]

    def keep(self, fr: Frame) -> bool:
        seq, ev = fr.seq, fr.event
        prev, self.prev = self.prev, (seq, ev.round_no, fr.after)
        if prev is None or prev[0] != seq - 1 or prev[1] != ev.round_no:
            return True
        act, nxt = self.acts.get(seq), self.acts.get(seq + 1)
        if act is None or nxt is None:
            return True
        try:
            _, derived = next_board(prev[2], act, nxt)
        except Exception:  # noqa: BLE001 - a line the fold cannot read: the replay's board is kept
            return True
        return derived != fr.after


def keyframe_row(match_id: str | None, fr: Frame) -> tuple[Any, ...]:
    ev = fr.event
    return (match_id, fr.seq, ev.round_no if ev.round_no is not None else fr.after.round_no,
            orjson.dumps(encode_state(fr.after), default=_json_default))  # fmt: skip


def stored_activity(raw: str) -> Activity:
    """A stored raw line read again as the loader read it."""
    doc = parse_json(raw)
    if '"$number' in raw:
        doc = unwrap_extended_json(doc)
    return normalize(doc)


def activity_from_raw(raw: str, seq: int) -> dict[str, Any]:
    """A stored raw line as the rules engine reads it (what the loader fed the replay)."""
    return replay_activity(stored_activity(raw), seq)


def replay_activity(a: Activity, seq: int) -> dict[str, Any]:
    """The activity as the rules engine reads it."""
    return {"seq": seq, "event": a.event, "player": a.player, "turn": a.turn, "contents": a.contents,
            "desk": a.desk, "date_ms": a.date_ms}  # fmt: skip


_LABELS: dict[Card, str] = {}


def _label(card: Card | None) -> str | None:
    if card is None:
        return None
    label = _LABELS.get(card)
    if label is None:
        label = _LABELS[card] = str(card)
    return label


_HAND_JSON: dict[tuple[Card, ...], bytes] = {}
_KEY_JSON: dict[str, bytes] = {}


def _hand_json(hand: tuple[Card, ...]) -> bytes:
    """JSON list of a hand's card labels, cached (a hand rarely changes between two events)."""
    text = _HAND_JSON.get(hand)
    if text is None:
        if len(_HAND_JSON) > 200_000:
            _HAND_JSON.clear()
        text = _HAND_JSON[hand] = orjson.dumps([_label(c) for c in hand])
    return text


def _hands_json(hands: Any) -> bytes:
    """The hands as a JSON object, in UTF-8 bytes (stored as text; the store converts bytes in C)."""
    parts = []
    for p, h in hands.items():
        key = _KEY_JSON.get(p)
        if key is None:
            key = _KEY_JSON[p] = orjson.dumps(p)
        parts.append(key + b":" + _hand_json(h))
    return b"{" + b",".join(parts) + b"}"


_YELL_JSON: dict[tuple[tuple[str, bool], ...], bytes] = {}


def _yell_json(yell: Any) -> bytes:
    """The UNO flags as a JSON object, cached (the flags are booleans and rarely change)."""
    key = tuple(yell.items())
    text = _YELL_JSON.get(key)
    if text is None:
        if len(_YELL_JSON) > 10_000:
            _YELL_JSON.clear()
        text = _YELL_JSON[key] = orjson.dumps(dict(yell), default=_json_default)
    return text


def state_row(match_id: str | None, fr: Frame) -> tuple[Any, ...]:
    s = fr.after
    ev = fr.event
    return (
        match_id, fr.seq, ev.round_no if ev.round_no is not None else s.round_no, s.turn_no, s.to_act,
        s.prev_actor, _label(s.top), s.direction, s.draw_pile, s.discard, s.pending, s.owes_draw,
        orjson.dumps(dict(s.bind), default=_json_default) if s.bind else None, _hands_json(s.hands),
        _yell_json(s.yell), s.gate, s.stall,
        s.cards_played,
    )  # fmt: skip


def _summarise(m: MatchBuilder, a: Activity, seq: int) -> None:
    """Keep the per-match and per-round facts the summary tables need."""
    c = a.contents if isinstance(a.contents, dict) else {}
    if a.date_ms is not None:
        m.first_ms = a.date_ms if m.first_ms is None else m.first_ms
        m.last_ms = a.date_ms
    if a.dealer_code is None or a.event in EVENTS_2022:
        m.legacy = True
    if a.event == "join-room":
        code = _code(c.get("player_code", c.get("player_id"))) or a.player
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
        turn_no = _as_int32(c.get("number_turn_play"))
        if turn_no is not None:
            m.current_turn = turn_no
            r.n_turns = max(r.n_turns, turn_no)
        if a.event == "first-player":
            m.seen_deal = True
            r.first_player = _str_or_none(c.get("first_player"))
            r.first_card = c.get("first_card")
            r.play_order = c.get("play_order")
            r.white_wild = _str_or_none(c.get("white_wild"))
            if m.white_wild is None:
                m.white_wild = r.white_wild
            for code in r.play_order or []:
                m.players.setdefault(code, None)
        elif a.event == "finish-turn":
            r.winner = _str_or_none(c.get("winner"))
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
            value = _as_int32(totals.get(code)) if isinstance(totals, dict) else None
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
        final = {k: int(_as_int32(v) or 0) for k, v in fin_score.items()}
    elif totals_history:
        final = {k: int(_as_int32(v) or 0) for k, v in totals_history[-1].items()}
    else:
        for r in rounds:
            for k, v in (r.scores or {}).items():
                final[k] = final.get(k, 0) + int(_as_int32(v) or 0)
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
        _str_or_none(finish.get("winner")), "finished" if m.finish is not None else "incomplete",
        dumps(fin_score) if fin_score is not None else None,
        dumps(order) if order is not None else None,
        m.seq, m.first_ms, m.last_ms, "algori-2022" if m.legacy else "algori-2023",
        getattr(m.ruleset, "id", None), getattr(m.ruleset, "version", None), run_id, run_id, m.log_start,
        None,  # end_kind: how a match ends is per round for ALGORI (rounds.end_kind)
    )  # fmt: skip
    players = [
        (mid, code, name, i + 1,
         int(_as_int32(order.get(code)) or 0) if order else wins.get(code, 0),
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
                (mid, r.round_no, code, _as_int32(score), _as_int32(total), code == r.winner)
            )
    return {"matches": [match_row], "players": players, "rounds": round_rows, "round_scores": score_rows}
