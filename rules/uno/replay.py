"""``replay``: the fold over a match's events — apply, judge, diff against the dealer's desk.

:class:`MatchReplay` is push-based so a loader can stream a match through it one activity
at a time (it holds back exactly one event: the dealer's verdict on an action is the
penalty line right after it).  :func:`replay` is the same fold as a generator.
"""

from __future__ import annotations

from datetime import datetime, timezone
from collections.abc import Iterable, Iterator
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from rules.core import Frame, Violation
from rules.uno import events as E
from rules.uno.catalog import finding
from rules.uno.checks import Judge
from rules.uno.consistency import HandMatcher, check_snapshot
from rules.uno.state import GameState
from rules.uno.timing import Clock
from rules.uno.transitions import apply, expected_next, hand_over, handover_due



def _when(ms: int) -> str:
    """A log timestamp (ms since the epoch) as UTC time a person reads, e.g. 2023-07-01 10:00:00.123 UTC."""
    try:
        at = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms"
    return at.strftime("%Y-%m-%d %H:%M:%S.") + f"{at.microsecond // 1000:03d} UTC"

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
        self.clock = Clock()
        self._held: E.Event | None = None
        self._last: tuple[Any, dict[str, Any]] | None = None
        self._log_gaps: dict[int, tuple[str, str]] = {}  # seq -> (what, "skip" the line | "keep" replaying it)
        self._synth: tuple[str, int] | None = None  # a hand-over inferred for a missing next-player
        self._undealt: int | None = None  # a round whose first-player is missing

    def feed(self, activity: dict[str, Any]) -> list[Frame]:
        ev = E.to_event(activity)
        earlier = self._note_log_order(activity, ev)
        held, self._held = self._held, ev
        if held is None:
            return []
        if earlier:  # two lines swapped: replay them in the order they were written
            self._held = held
            return [self._step(E._with_verdict(ev, held))]
        return [self._step(E._with_verdict(held, ev))]

    def _note_log_order(self, activity: dict[str, Any], ev: E.Event) -> bool:
        """Log-order gaps visible from the lines alone: a repeated line, time running backwards.

        Returns True when this line was written before the held one (they are replayed swapped).
        """
        key = (activity.get("event"), activity.get("player"), activity.get("turn"), activity.get("date_ms"))
        last, self._last = self._last, (key, activity)
        if last is None:
            return False
        (lkey, lact) = last
        if key == lkey and key[0] not in REPEATABLE and activity.get("contents") == lact.get("contents") \
                and activity.get("desk") == lact.get("desk"):  # fmt: skip
            self._log_gaps[ev.seq] = (f"{ev.kind} line repeated: identical to the line before it (seq {lact.get('seq')}), "
                                      "timestamp included; the copy is not replayed", "skip")  # fmt: skip
            self._last = last
            return False
        t, lt = activity.get("date_ms"), lact.get("date_ms")
        held = self._held
        if type(t) is int and type(lt) is int and t < lt and held is not None and held.seq == lact.get("seq") \
                and lact.get("seq") not in self._log_gaps:  # fmt: skip
            self._log_gaps[ev.seq] = (f"{ev.kind} written at {_when(t)}, {lt - t} ms before the line before it (seq "
                                      f"{lact.get('seq')}): lines out of order; replayed in time order", "keep")  # fmt: skip
            self._log_gaps[lact["seq"]] = (f"{lact.get('event')} written at {_when(lt)}, after the line that follows it (seq "
                                           f"{ev.seq}): lines out of order; replayed in time order", "keep")  # fmt: skip
            self._last = last  # the later line stays the reference for the next one
            return True
        return False

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
        if isinstance(ev, E.FirstPlayer):
            self.judge.new_deal(ev.seq, ev.round_no)
            if self.fixed_ruleset is None:
                from rules.uno.ruleset import select

                self.ruleset = select(ev)
        s = self.state
        found: list[Violation] = []
        gap = self._log_gaps.pop(ev.seq, None)
        if gap is not None:
            found.append(log_gap(ev, gap[0], s))
            if gap[1] == "skip":
                return Frame(ev.seq, ev, s, s, tuple(self._stamp(v) for v in found))
        late = self._late_next_player(s, ev) or self._undealt_round(s, ev)
        if late is not None:
            found.extend(late)
            return Frame(ev.seq, ev, s, s, tuple(self._stamp(v) for v in found))
        for gap_check in (self._missing_next_player, self._lost_action):
            s, missing = gap_check(s, ev)
            if missing is not None:
                found.append(missing)
        after = apply(s, ev)
        found.extend(self.judge.check(s, ev, after))
        snap_found, after = check_snapshot(s, after, ev, self.matcher)
        found.extend(snap_found)
        think, timed = self.clock.observe(s, ev, after)
        found.extend(timed)
        self.state = after
        return Frame(ev.seq, ev, s, after, tuple(self._stamp(v) for v in found) if found else (), think)

    def _missing_next_player(self, s: GameState, ev: E.Event) -> tuple[GameState, Violation | None]:
        """An action the dealer accepted from the player the rules give the turn to, while the
        ``next-player`` handing it over is not in the log: the line was lost, the player is not
        to blame.  The hand-over is inferred and reported as a consistency finding."""
        if not isinstance(ev, TURN_ACTIONS) or ev.player is None or ev.player == s.to_act:
            return s, None
        if getattr(ev, "rejected", None) is not None or not handover_due(s):
            return s, None
        who, turn_no, _ = expected_next(s)
        if who != ev.player:
            return s, None
        self._synth = (who, turn_no)
        msg = (f"{ev.kind} by {who}, whose turn (turn {turn_no}) is not announced: the next-player line handing "
               f"the turn from {s.to_act or 'the deal'} to {who} is missing; the hand-over is inferred")
        return hand_over(s, who, turn_no), log_gap(ev, msg, s, player=who)

    def _lost_action(self, s: GameState, ev: E.Event) -> tuple[GameState, Violation | None]:
        """A ``next-player`` while the player to act has neither acted nor timed out: the line
        of that action (or of its penalty) was lost.  The turn is closed as the dealer's board
        shows it (the snapshot resynchronises hands and top), and nobody is blamed for it."""
        if not isinstance(ev, E.NextPlayer) or not s.in_round or s.to_act is None or handover_due(s) \
                or s.winner is not None:  # fmt: skip
            return s, None
        what = "automatic draw" if s.auto_draw is not None else \
            {"play-draw": "play-draw-card", "color": "colour choice"}.get(s.gate or "", "action")
        msg = (f"turn handed to {ev.next_player} although no {what} or timeout of {s.to_act} (to act since turn "
               f"{s.turn_no}) is logged: a line is missing before this one")
        bind = s.bind
        if s.owes_draw and s.bind.get(s.to_act, 0) > 0:  # the lost line was a bound turn's forced draw
            bind = MappingProxyType({**s.bind, s.to_act: s.bind[s.to_act] - 1})
        closed = s.replace(prev_actor=s.chooser or s.to_act, pending=0, owes_draw=False, gate=None, drawn_card=None,
                           chooser=None, auto_draw=None, renotify=None, bind=bind)  # fmt: skip
        return closed, log_gap(ev, msg, s, player=s.to_act)

    def _undealt_round(self, s: GameState, ev: E.Event) -> list[Violation] | None:
        """Events of a round whose ``first-player`` (the deal) is missing cannot be replayed."""
        if isinstance(ev, (E.FirstPlayer, E.JoinRoom, E.FinishGame, E.Disconnect, E.Unknown)) or ev.round_no is None:
            self._undealt = None if isinstance(ev, E.FirstPlayer) else self._undealt
            return None
        if s.in_round or ev.round_no == s.round_no:
            return None
        if self._undealt == ev.round_no:
            return []
        self._undealt = ev.round_no
        return [log_gap(ev, f"round {ev.round_no} has no first-player line (the deal is missing): its events are "
                        "kept but not replayed or judged", s)]  # fmt: skip

    def _late_next_player(self, s: GameState, ev: E.Event) -> list[Violation] | None:
        """The next-player of an inferred hand-over, arriving after the action it announces."""
        synth, self._synth = self._synth, (self._synth if not isinstance(ev, E.NextPlayer) else None)
        if not isinstance(ev, E.NextPlayer) or synth is None or (ev.next_player, ev.turn_no) != synth:
            return None
        return [log_gap(ev, f"next-player for {ev.next_player} (turn {ev.turn_no}) comes after that player's "
                        "action: lines out of order; not replayed again", s, player=ev.next_player)]  # fmt: skip

    def _stamp(self, v: Violation) -> Violation:
        if self.ruleset is None:
            return replace(v, match_id=self.match_id)
        return replace(v, ruleset=self.ruleset.id, ruleset_version=self.ruleset.version, match_id=self.match_id)


TURN_ACTIONS = (E.PlayCard, E.PlayDrawCard, E.DrawCard, E.Challenge)
#: Lines a bot may really send twice within one millisecond (no board effect): never taken for a copy.
REPEATABLE = frozenset({"special-logic", "pointed-not-say-uno"})


def log_gap(ev: E.Event, message: str, s: GameState, *, player: str | None = None) -> Violation:
    """A consistency finding about the log itself (a lost, repeated or misplaced line)."""
    return finding("event-sequence", ev, message, player=player if player is not None else ev.player,
                   round_no=s.round_no, turn_no=s.turn_no)


def replay(activities: Iterable[dict[str, Any]], ruleset: Any = None, *, match_id: str | None = None) -> Iterator[Frame]:
    """Fold a match's activities (dicts with ``seq, event, player, turn, contents, desk``) into frames.

    The ruleset is taken from the log (``first-player.white_wild``) unless one is given.
    """
    r = MatchReplay(match_id=match_id, ruleset=ruleset)
    for a in activities:
        yield from r.feed(a)
    yield from r.close()
