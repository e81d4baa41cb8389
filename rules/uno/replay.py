"""``replay``: the fold over a match's events — apply, judge, diff against the dealer's desk."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from rules.core import Frame, Violation
from rules.uno import events as E
from rules.uno.consistency import check_snapshot
from rules.uno.state import GameState
from rules.uno.transitions import apply


def replay_events(
    events: Iterable[E.Event], *, ruleset: Any = None, match_id: str | None = None, state: GameState | None = None
) -> Iterator[Frame]:
    """Yield one Frame per event: state before, state after, and the violations found."""
    from rules.uno.checks import Judge

    s = state or GameState()
    judge = Judge(ruleset)
    for ev in events:
        after = apply(s, ev)
        found = judge.check(s, ev, after)
        snap_found, after = check_snapshot(s, after, ev)
        found.extend(snap_found)
        if found and ruleset is not None:
            found = [_stamp(v, ruleset, match_id) for v in found]
        yield Frame(ev.seq, ev, s, after, tuple(found))
        s = after
    for v in judge.finish(s):
        yield Frame(-1, None, s, s, (_stamp(v, ruleset, match_id) if ruleset is not None else v,))


def _stamp(v: Violation, ruleset: Any, match_id: str | None) -> Violation:
    return replace(v, ruleset=ruleset.id, ruleset_version=ruleset.version, match_id=match_id)
