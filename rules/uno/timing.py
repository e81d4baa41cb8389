"""The 5-second rule, judged from the log's timestamps (``dateCreated``).

The dealer runs one turn timer (``TIMEOUT_OF_PLAYER`` = 5,000 ms, rules digest §4.3):

* it starts at each hand-over (just before ``next-player`` is written), at a
  ``color-change-request`` (the colour is due within 5 s), after a playable voluntary draw
  (the ``play-draw-card`` answer is due within 5 s) and again after a successful UNO
  pointing (the player to act gets a fresh 5 s);
* it is *not* restarted by a challenge (the challenger plays on the original clock) nor by
  a refused action;
* an accepted ``special-logic`` replaces it with a timer that never fires (digest X16): the
  player to act can no longer time out for the rest of that turn.

:class:`Clock` follows that timer through a match.  For every action of the player the
clock runs for it reports the *think time* (ms from the clock's start), and it judges the
dealer: a timeout written clearly before 5 s is ``timeout-early``; an action clearly after
5 s that drew no timeout is ``timeout-missed`` — or ``special-logic-timer`` when an
accepted special-logic had disabled the timer (the dealer's departure from the rule).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.core import WARNING, Violation
from rules.uno import events as E
from rules.uno.catalog import finding
from rules.uno.state import GameState
from rules.uno.transitions import TIMEOUTS, is_dealer_color_line
from rules.uno.verdicts import SPECIAL_LOGIC_LIMIT

LIMIT_MS = 5_000
#: A timeout logged this long before the limit is early; an action this long after it is late.
#: (Real timeouts are written 5,011–5,021 ms after the hand-over; the dealer's answers to
#: actions take a few ms.)
TOLERANCE_MS = 100
#: Think times above this are "close to the limit" in the per-bot summaries.
NEAR_LIMIT_MS = 4_000

TIMED_ACTIONS = (E.PlayCard, E.DrawCard, E.PlayDrawCard, E.Challenge, E.ColorOfWild)


@dataclass(slots=True)
class _Timer:
    player: str
    start_ms: int
    start_seq: int
    disabled_by: int | None = None  # seq of the accepted special-logic that disabled it
    doubtful: bool = False  # a line stamped out of order while it ran: its time proves nothing


class Clock:
    """The dealer's turn timer, replayed; one per match."""

    def __init__(self) -> None:
        self.timer: _Timer | None = None
        #: the victim-to-be's clock stopped by their own action: (player, start ms, start seq, action ms, action seq)
        self.stopped: tuple[str, int, int, int, int] | None = None
        #: seqs of lines whose stamp contradicts a neighbour's (time running backwards): no proof of time
        self.doubtful: set[int] = set()

    def observe(self, b: GameState, ev: E.Event, a: GameState) -> tuple[int | None, list[Violation]]:
        """Think time of ``ev`` (None when it is not a timed action) and the timing findings."""
        t = ev.date_ms if type(ev.date_ms) is int else None
        out: list[Violation] = []
        think = None
        timer = self.timer
        if ev.seq in self.doubtful:
            self.doubtful.discard(ev.seq)
            t = None  # neither a start nor an end the log proves
            if timer is not None:
                timer.doubtful = True
            if self.stopped is not None:
                self.stopped = None
        if isinstance(ev, E.NextPlayer):
            self._start(ev.next_player, t, ev.seq)
        elif isinstance(ev, E.ColorChangeRequest):
            self._start(ev.chooser if isinstance(ev.chooser, str) else a.chooser, t, ev.seq)
        elif isinstance(ev, E.FinishTurn):
            self.timer = self.stopped = None
        elif isinstance(ev, E.SpecialLogic):
            if timer is not None and ev.rejected is None and isinstance(ev.player, str) \
                    and b.special_logic.get(ev.player, 0) < SPECIAL_LOGIC_LIMIT and timer.disabled_by is None:  # fmt: skip
                timer.disabled_by = ev.seq
        elif isinstance(ev, E.Penalty):
            if ev.error in TIMEOUTS:
                if timer is not None and t is not None and not timer.doubtful and timer.disabled_by is None \
                        and t - timer.start_ms < LIMIT_MS - TOLERANCE_MS:  # fmt: skip
                    gap = t - timer.start_ms
                    out.append(finding("timeout-early", ev,
                                       f"'{ev.error}' written {gap} ms after {timer.player}'s clock started (seq "
                                       f"{timer.start_seq}); the limit is {LIMIT_MS} ms",
                                       player=ev.victim, expected=f">= {LIMIT_MS} ms", actual=f"{gap} ms"))  # fmt: skip
                self.timer = self.stopped = None
            elif ev.error == "Did not say uno." and timer is not None and a.to_act:
                self._start(a.to_act, t, ev.seq)
        elif isinstance(ev, TIMED_ACTIONS) and timer is not None and ev.player == timer.player:
            if isinstance(ev, E.ColorOfWild) and is_dealer_color_line(b, ev):
                return None, out  # the dealer's own colour line after a wild
            if t is not None and not timer.doubtful and t >= timer.start_ms:
                think = t - timer.start_ms
                if think > LIMIT_MS + TOLERANCE_MS:
                    out.append(finding("response-time", ev,
                                       f"{ev.player} took {think} ms for {ev.kind} (limit {LIMIT_MS} ms; not penalised)",
                                       player=ev.player, expected=f"<= {LIMIT_MS} ms", actual=f"{think} ms",
                                       severity=WARNING))  # fmt: skip
                    out.append(self._late(ev, timer, think))
            if isinstance(ev, E.DrawCard) and ev.can_play is True and ev.cards and a.gate == "play-draw":
                self._start(ev.player, t, ev.seq)  # the play-draw-card answer is due within 5 s
            elif not isinstance(ev, E.Challenge):
                self.timer = None
                if t is not None and not timer.doubtful and isinstance(timer.player, str):
                    self.stopped = (timer.player, timer.start_ms, timer.start_seq, t, ev.seq)
        return think, out

    def timeout_gap(self, ev: E.Penalty) -> tuple[int, int, int | None] | None:
        """What the log proves about a timeout penalty ``ev``, read *before* it is observed.

        ``(gap, start_seq, acted_seq)``: ``gap`` is the ms from the start of the penalised
        player's clock (the hand-over, colour request or playable draw at ``start_seq``) to the
        penalty line.  ``acted_seq`` is None while that clock still runs; when an action of the
        player (at ``acted_seq``) stopped it, ``gap`` is the ms from the start to that action
        instead.  ``None`` when the log cannot decide (a line without a timestamp, or no clock
        of that player).  The player is proven *not* to have used up the 5 s when ``gap`` is
        under ``LIMIT_MS - TOLERANCE_MS`` (the clock still runs), or when they acted within
        ``LIMIT_MS + TOLERANCE_MS``.
        """
        timer, t = self.timer, ev.date_ms if type(ev.date_ms) is int else None
        if t is None or ev.seq in self.doubtful:
            return None
        if timer is not None:
            if type(timer.start_ms) is not int or timer.player != ev.victim or timer.doubtful:
                return None
            return t - timer.start_ms, timer.start_seq, None
        if self.stopped is not None and self.stopped[0] == ev.victim:
            player, start_ms, start_seq, acted_ms, acted_seq = self.stopped
            return acted_ms - start_ms, start_seq, acted_seq
        return None

    def _start(self, player: object, t: int | None, seq: int) -> None:
        self.stopped = None
        self.timer = _Timer(player, t, seq) if isinstance(player, str) and t is not None else None

    @staticmethod
    def _late(ev: E.Event, timer: _Timer, think: int) -> Violation:
        if timer.disabled_by is not None:
            return finding("special-logic-timer", ev,
                           f"{ev.kind} came {think} ms after {timer.player}'s clock started (seq {timer.start_seq}) "
                           f"without a timeout: the special-logic at seq {timer.disabled_by} disabled the dealer's "
                           "5-second timer", player=ev.player, expected=f"timeout at {LIMIT_MS} ms",
                           actual=f"no timeout; acted after {think} ms")  # fmt: skip
        return finding("timeout-missed", ev,
                       f"{ev.kind} came {think} ms after {timer.player}'s clock started (seq {timer.start_seq}), "
                       "but the dealer wrote no timeout", player=ev.player, expected=f"timeout at {LIMIT_MS} ms",
                       actual=f"no timeout; acted after {think} ms")  # fmt: skip
