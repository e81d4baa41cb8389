"""What a replay carries from one round to the next — so rounds can be replayed apart, exactly.

Every ALGORI round starts from a fresh deal; what a :class:`~rules.uno.replay.MatchReplay`
carries across a ``first-player`` line is small: the players and their names, the running
totals and rounds won, the totals history (for the tie-break) and the special-logic titles
seen so far.  :class:`CarryScan` follows exactly those through the log's own lines (joins,
deals, round ends, special-logic titles) without replaying the rounds, and
:meth:`CarryScan.seed` builds a replay that starts from them.

A loader can then replay a batch of rounds anywhere: it starts from the seed one round
*before* the batch (the warm-up round brings every round-local field — the hand matcher,
the clock, the judge's open windows — to where a full replay would have them), compares
:func:`snapshot` of that replay with the snapshot of the replay that really reached the
batch, and keeps the batch only when the two are equal.  A difference (a log the scan
cannot follow) means the batch is replayed again from the true state: the result is always
the one the sequential fold gives; the scan only decides how often that is needed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rules.uno import events as E
from rules.uno import verdicts as V
from rules.uno.replay import MatchReplay
from rules.uno.state import GameState
from rules.uno.transitions import apply

#: Attributes that hold one step's scratch values (overwritten before they are read again).
SCRATCH = frozenset({"out", "before"})


def snapshot(obj: Any) -> Any:
    """A value equal for two replays exactly when they would judge the rest of a log alike.

    Plain objects (the replay, its judge, clock and hand matcher) become dicts of their
    attributes, their dicts, lists and sets copies; values with structural equality (states, events, cards, findings, dicts,
    sets) are compared as they are.  Nothing is left out but per-step scratch.
    """
    kind = type(obj)
    if kind is dict:  # copied: the replay goes on changing its own
        return {k: snapshot(v) for k, v in obj.items()}
    if kind is list:
        return [snapshot(v) for v in obj]
    if kind is set:
        return set(obj)
    if kind.__module__ == "builtins" or dataclasses.is_dataclass(obj) or isinstance(obj, tuple):
        return obj
    attrs = getattr(obj, "__dict__", None)
    if attrs is None:
        return obj
    return (type(obj).__qualname__, {k: snapshot(v) for k, v in attrs.items() if k not in SCRATCH})


class CarryScan:
    """The cross-round part of a replay, followed line by line from the log alone."""

    def __init__(self) -> None:
        self.state = GameState()
        self.history: list[dict[str, int]] = []
        self.titles: dict[str, set[str]] = {}
        self._title: E.SpecialLogic | None = None  # a special-logic line waiting for the dealer's verdict

    def observe(self, activity: dict[str, Any]) -> None:
        kind = activity.get("event")
        ev = None
        if self._title is not None:  # the line after a special-logic says whether the dealer refused it
            ev = E.to_event(activity)
            self._registered(E._with_verdict(self._title, ev))
            self._title = None
        if kind not in ("join-room", "first-player", "finish-turn", "special-logic"):
            return
        ev = ev or E.to_event(activity)
        if isinstance(ev, E.SpecialLogic):
            self._title = ev
            return
        after = apply(self.state, ev)
        if isinstance(ev, E.FinishTurn):
            got = {p: v for p, v in ev.totals.items() if isinstance(v, int)}
            self.history.append(got if ev.totals else dict(after.totals))
        self.state = after

    def _registered(self, ev: E.SpecialLogic) -> None:
        """A title counts towards the registry as the judge counts it: sent, legal and accepted."""
        if V.special_logic(self.state, ev) is None and ev.rejected is None and ev.player is not None:
            self.titles.setdefault(ev.player, set()).add(str(ev.title_raw))

    def mark(self) -> tuple[Any, ...]:
        """What the scan has followed so far, as a value later lines do not change."""
        return self.state, tuple(self.history), {p: frozenset(t) for p, t in self.titles.items()}

    @staticmethod
    def seed(mark: tuple[Any, ...], match_id: str | None = None) -> MatchReplay:
        """A replay starting from a :meth:`mark`, to be fed from the next deal on."""
        s, history, titles = mark
        start = GameState(round_no=s.round_no, players=s.players, names=s.names, totals=s.totals, wins=s.wins)
        r = MatchReplay(match_id=match_id, state=start)
        r.judge.history = [dict(h) for h in history]
        r.judge.titles = {p: set(t) for p, t in titles.items()}
        r.judge.registry_reported = {p for p, t in titles.items() if len(t) > 3}
        return r
