"""Helpers for rules tests: load real dealer logs as activity dicts, replay, find events."""

from __future__ import annotations

import copy
import functools
import gzip
import json
from collections.abc import Callable
from typing import Any

from rules.core import Violation
from rules.uno.replay import replay
from tests.conftest import fixture_path


@functools.cache
def _load(match: str) -> tuple[str, ...]:
    with gzip.open(fixture_path(match), "rt", encoding="utf-8") as f:
        return tuple(line for line in f.read().split("\n") if line.strip())


def activities(match: str) -> list[dict[str, Any]]:
    """A fresh, mutable copy of a fixture's activities, numbered like the loader does."""
    out = []
    for i, line in enumerate(_load(match)):
        d = json.loads(line)
        out.append({"seq": i + 1, "event": d["event"], "player": d.get("player"), "turn": d.get("turn"),
                    "contents": d.get("contents"), "desk": d.get("desk"), "date_ms": d.get("dateCreated")})  # fmt: skip
    return out


def renumber(acts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for i, a in enumerate(acts):
        a["seq"] = i + 1
    return acts


def findings(acts: list[dict[str, Any]]) -> list[Violation]:
    return [v for fr in replay(acts) for v in fr.violations]


def codes(acts: list[dict[str, Any]], *, min_severity: str = "info") -> set[str]:
    order = {"info": 0, "warning": 1, "error": 2}
    return {v.code for v in findings(acts) if order[v.severity] >= order[min_severity]}


def round_of(acts: list[dict[str, Any]], round_no: int) -> list[dict[str, Any]]:
    """Join-rooms plus one whole round, renumbered."""
    joins = [a for a in acts if a["event"] == "join-room"]
    return renumber(copy.deepcopy(joins + [a for a in acts if a["turn"] == round_no]))


def find(acts: list[dict[str, Any]], pred: Callable[[dict[str, Any]], bool], start: int = 0) -> int:
    """Index of the first activity matching ``pred``."""
    for i in range(start, len(acts)):
        if pred(acts[i]):
            return i
    raise LookupError("no such activity in the fixture")


def c(a: dict[str, Any]) -> dict[str, Any]:
    return a["contents"] if isinstance(a["contents"], dict) else {}


def replay_lines(lines: list[dict[str, Any]]) -> tuple[Any, list[Violation]]:
    """Log lines as written (dicts with the envelope's ``dateCreated``), numbered by position and replayed as a
    loader replays them: the replay (its ``ruleset`` says which profile judged) and every finding."""
    from rules.uno.replay import MatchReplay

    r = MatchReplay(match_id="m")
    frames = []
    for i, d in enumerate(lines, 1):
        frames += r.feed({"seq": i, "event": d["event"], "player": d.get("player"), "turn": d.get("turn"),
                          "contents": d.get("contents"), "desk": d.get("desk"), "date_ms": d.get("dateCreated")})  # fmt: skip
    frames += r.close()
    return r, [v for f in frames for v in f.violations]

