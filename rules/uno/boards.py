"""Boards between keyframes: the fold that gives every event's board from the nearest keyframe.

The replay (:mod:`rules.uno.replay`) judges every line; most of the time the board after a line
is just the board before it with the line's event applied (:func:`rules.uno.transitions.apply`).
Where it is not — a round's deal, a resync after a snapshot mismatch, an inferred hand-over, a
skipped, repeated or swapped line, a profile's own judge — the loader stores the replayed board
itself: a *keyframe*.  Every other board is derived on demand by :func:`fold_boards`, and the
loader checks at ingest, line by line, that the fold gives exactly the replayed board (else it
keeps a keyframe there), so a derived board always equals the replay.

:func:`encode_state` / :func:`decode_state` store a :class:`GameState` as JSON text that gives
back an equal state.
"""

from __future__ import annotations

import base64
import pickle
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from rules.uno import events as E
from rules.uno.cards import Card
from rules.uno.state import GameState
from rules.uno.transitions import apply

__all__ = ["board_event", "decode_state", "encode_state", "fold_boards", "next_board"]

#: Version of the keyframe encoding (stored with every keyframe).
CODEC = 1


def board_event(activity: dict[str, Any], after: dict[str, Any] | None, to_act: Any,
                parsed: Mapping[int, E.Event] | None = None) -> E.Event:  # fmt: skip
    """A line's event as the fold applies it: with the verdict of the line after it (a penalty
    answering it), as the replay reads it (``to_act``: whose turn it was before the line).
    ``parsed``: lines already parsed, by seq (:func:`rules.uno.events.to_event`; the others are parsed here)."""
    ev = _parsed(activity, parsed)
    if after is None or after.get("event") != "penalty":
        return ev
    return E._with_verdict(ev, _parsed(after, parsed), to_act)


def _parsed(activity: dict[str, Any], parsed: Mapping[int, E.Event] | None) -> E.Event:
    ev = parsed.get(activity.get("seq")) if parsed is not None else None  # type: ignore[arg-type]
    return ev if ev is not None else E.to_event(activity)


def next_board(before: GameState, activity: dict[str, Any], after: dict[str, Any] | None,
               parsed: Mapping[int, E.Event] | None = None) -> tuple[E.Event, GameState]:  # fmt: skip
    """The event of ``activity`` and the board after it, from the board ``before`` it."""
    ev = board_event(activity, after, before.to_act, parsed)
    return ev, apply(before, ev)


def fold_boards(keyframes: Mapping[int, GameState], lines: Iterable[tuple[int, dict[str, Any]]],
                start: GameState | None = None) -> Iterator[tuple[int, E.Event, GameState]]:  # fmt: skip
    """``(seq, event, board after it)`` for every line but the last of ``lines`` (``(seq, activity)``
    in log order; the last one is only read as the line after the one before it).

    A line whose seq has a keyframe takes it; any other line's board is folded from the board
    before it (``start`` for the first line when it has no keyframe).
    """
    board = start
    prev: tuple[int, dict[str, Any]] | None = None
    for item in lines:
        if prev is not None:
            board = yield from _one(keyframes, prev, item[1], board)
        prev = item
    if prev is not None:
        yield from _one(keyframes, prev, None, board)


def _one(keyframes: Mapping[int, GameState], line: tuple[int, dict[str, Any]], after: dict[str, Any] | None,
         board: GameState | None) -> Iterator[tuple[int, E.Event, GameState]]:  # fmt: skip
    seq, activity = line
    kept = keyframes.get(seq)
    if kept is not None:
        ev = E.to_event(activity)
        yield seq, ev, kept
        return kept
    if board is None:
        raise ValueError(f"no keyframe at or before seq {seq}")
    ev, board = next_board(board, activity, after)
    yield seq, ev, board
    return board


# ---------------------------------------------------------------- keyframe encoding

def _enc(v: Any) -> Any:
    kind = type(v)
    if v is None or kind is bool or kind is int or kind is str or kind is float:
        return v
    if kind is Card:
        return {"c": [v.color, v.number, v.special]}
    if kind is tuple:
        return {"t": [_enc(x) for x in v]}
    if kind is list:
        return {"l": [_enc(x) for x in v]}
    if kind is frozenset:
        return {"f": sorted((_enc(x) for x in v), key=repr)}
    if isinstance(v, Mapping):
        return {"m": [[_enc(k), _enc(x)] for k, x in v.items()]}
    # anything else (never in a replay of today's rules): kept exactly, if not readably
    return {"p": base64.b64encode(pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)).decode("ascii")}


def _dec(v: Any) -> Any:
    if type(v) is not dict:
        return v
    (tag, x), = v.items()
    if tag == "c":
        return Card(x[0], x[1], x[2])
    if tag == "t":
        return tuple(_dec(y) for y in x)
    if tag == "l":
        return [_dec(y) for y in x]
    if tag == "f":
        return frozenset(_dec(y) for y in x)
    if tag == "m":
        return MappingProxyType({_dec(k): _dec(y) for k, y in x})
    if tag == "p":
        return pickle.loads(base64.b64decode(x))  # noqa: S301 - written by Kifu's own loader
    raise ValueError(f"unknown keyframe value tag {tag!r}")


def encode_state(state: GameState) -> dict[str, Any]:
    """A JSON-ready value of ``state`` (:func:`decode_state` gives back an equal state)."""
    return {"v": CODEC, "s": {name: _enc(value) for name, value in zip(GameState._fields, state, strict=True)
                              if value != _DEFAULTS[name] or type(value) is not type(_DEFAULTS[name])}}  # fmt: skip


def decode_state(value: dict[str, Any]) -> GameState:
    if value.get("v") != CODEC:
        raise ValueError(f"keyframe encoding {value.get('v')!r} is not {CODEC} (re-ingest the match)")
    fields = value["s"]
    return GameState(**{k: _dec(x) for k, x in fields.items() if k in _DEFAULTS})


_DEFAULTS: dict[str, Any] = dict(zip(GameState._fields, GameState(), strict=True))
