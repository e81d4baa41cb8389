"""``replay``: the fold over a match's events — apply, judge, diff against the dealer's desk.

:class:`MatchReplay` is push-based so a loader can stream a match through it one activity
at a time (it holds back exactly one event: the dealer's verdict on an action is the
penalty line right after it).  :func:`replay` is the same fold as a generator.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from rules.core import Frame, Violation
from rules.uno import events as E
from rules.uno.checks import Judge
from rules.uno.consistency import HandMatcher, check_snapshot
from rules.uno.state import GameState
from rules.uno.transitions import apply


class MatchReplay:
    """Replays one match. ``feed(activity)`` returns the frames that became final."""

    def __init__(self, *, match_id: str | None = None, ruleset: Any = None, state: GameState | None = None) -> None:
        self.match_id = match_id
        self.fixed_ruleset = ruleset
        self.ruleset = ruleset
        self.state = state or GameState()
        self.judge = Judge(ruleset)
        self.matcher = HandMatcher()
        self.judge.matcher = self.matcher
        self._held: E.Event | None = None

    def feed(self, activity: dict[str, Any]) -> list[Frame]:
        ev = E.to_event(activity)
        held, self._held = self._held, ev
        if held is None:
            return []
        return [self._step(E._with_verdict(held, ev))]

    def close(self) -> list[Frame]:
        out = []
        if self._held is not None:
            out.append(self._step(self._held))
            self._held = None
        final = self.judge.finish(self.state)
        if final:
            out.append(Frame(-1, None, self.state, self.state, tuple(self._stamp(v) for v in final)))
        return out

    def _step(self, ev: E.Event) -> Frame:
        if isinstance(ev, E.FirstPlayer) and self.fixed_ruleset is None:
            from rules.uno.ruleset import select

            self.ruleset = select(ev)
        s = self.state
        after = apply(s, ev)
        found = self.judge.check(s, ev, after)
        snap_found, after = check_snapshot(s, after, ev, self.matcher)
        found.extend(snap_found)
        self.state = after
        return Frame(ev.seq, ev, s, after, tuple(self._stamp(v) for v in found) if found else ())

    def _stamp(self, v: Violation) -> Violation:
        if self.ruleset is None:
            return replace(v, match_id=self.match_id)
        return replace(v, ruleset=self.ruleset.id, ruleset_version=self.ruleset.version, match_id=self.match_id)


def replay(activities: Iterable[dict[str, Any]], ruleset: Any = None, *, match_id: str | None = None) -> Iterator[Frame]:
    """Fold a match's activities (dicts with ``seq, event, player, turn, contents, desk``) into frames.

    The ruleset is taken from the log (``first-player.white_wild``) unless one is given.
    """
    r = MatchReplay(match_id=match_id, ruleset=ruleset)
    for a in activities:
        yield from r.feed(a)
    yield from r.close()
