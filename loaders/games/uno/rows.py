"""The rows of UNO records and replay frames: raw line, event, penalty / challenge / special-logic,
findings, board keyframes and think times.

A board is stored only where the fold over the lines cannot give it (:class:`Boards`); pages derive
every other board from the keyframes (:mod:`queries.boards`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import orjson

from loaders.core.assemble import record_key
from rules.core import Frame
from rules.uno.boards import encode_state, next_board
from rules.uno.events import Event, to_event
from rules.uno.log import Activity, as_int32, event_cards, event_target, js_length, json_default, length_of, dumps, penalty_cause, str_or_none

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
                 orjson.dumps(activity["contents"], default=json_default))  # fmt: skip
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
            str_or_none(c.get("color_of_wild")), yell if isinstance(yell, bool) else None,
            str_or_none(c.get("draw_reason")), a.contents_json, a.date_ms, run_id,
        )),
    ]  # fmt: skip
    if ev == "penalty":
        out.append(("penalties", (mid, seq, a.turn, current_turn, str_or_none(c.get("player")),
                                  penalty_cause(c.get("error")), length_of(c.get("cards_receive")))))  # fmt: skip
    elif ev == "challenge":
        result = c.get("result") if isinstance(c.get("result"), dict) else {}
        is_ch = c.get("is_challenge")
        success = result.get("is_challenge_success")
        out.append(("challenges", (
            mid, seq, a.turn, current_turn, a.player or None, str_or_none(c.get("target")),
            is_ch if isinstance(is_ch, bool) else None, None if isinstance(is_ch, bool) else dumps(is_ch),
            success if isinstance(success, bool) else None, str_or_none(result.get("player")),
            length_of(result.get("cards_receive")),
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
                match_id, as_int32(v.round_no), as_int32(v.turn_no),
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

    __slots__ = ("acts", "events", "prev")

    def __init__(self) -> None:
        self.acts: dict[Any, dict[str, Any]] = {}  # the latest lines fed, by seq
        self.events: dict[Any, Event] = {}  # the same lines parsed, by seq
        self.prev: tuple[int, Any, Any] | None = None  # (seq, round, board) of the latest frame

    def saw(self, activity: dict[str, Any]) -> Event:
        """Note a line about to be replayed; returns it parsed, for the replay to take (one parse for both)."""
        acts, events = self.acts, self.events
        seq = activity["seq"]
        acts[seq] = activity
        ev = events[seq] = to_event(activity)
        if len(acts) > 16:
            low = seq - 8
            for k in [k for k in acts if not (type(k) is int and k >= low)]:
                del acts[k]
                events.pop(k, None)
        return ev

    def keep(self, fr: Frame) -> bool:
        seq, ev = fr.seq, fr.event
        prev, self.prev = self.prev, (seq, ev.round_no, fr.after)
        if prev is None or prev[0] != seq - 1 or prev[1] != ev.round_no:
            return True
        act, nxt = self.acts.get(seq), self.acts.get(seq + 1)
        if act is None or nxt is None:
            return True
        try:
            _, derived = next_board(prev[2], act, nxt, self.events)
        except Exception:  # noqa: BLE001 - a line the fold cannot read: the replay's board is kept
            return True
        return derived != fr.after


def keyframe_row(match_id: str | None, fr: Frame) -> tuple[Any, ...]:
    ev = fr.event
    return (match_id, fr.seq, ev.round_no if ev.round_no is not None else fr.after.round_no,
            orjson.dumps(encode_state(fr.after), default=json_default))  # fmt: skip
