"""``replay``: the fold over a match's events — apply, judge, diff against the dealer's desk.

:class:`MatchReplay` is push-based so a loader can stream a match through it one activity
at a time (it holds back exactly one event: the dealer's verdict on an action is the
penalty line right after it).  :func:`replay` is the same fold as a generator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any

from rules.core import PLAYER_RULE, Frame, Violation
from rules.uno import events as E
from rules.uno import verdicts as V
from rules.uno.cards import Card
from rules.uno.catalog import finding
from rules.uno.checks import Judge
from rules.uno.consistency import HandMatcher, check_snapshot
from rules.uno.ledger import CardLedger, not_cards
from rules.uno.audit import ProfileReplay
from rules.uno.profile import PROFILE_AUDIT, Profile, get, select
from rules.uno.state import HAND_CAP, GameState
from rules.uno.timing import Clock
from rules.uno.transitions import (
    apply, draw_into, expected_next, hand_over, handover_due, is_dealer_color_line, played,
)
from rules.uno.verdicts import truthy



def _when(ms: int) -> str:
    """A log timestamp (ms since the epoch) as UTC time a person reads, e.g. 2023-07-01 10:00:00.123 UTC."""
    try:
        at = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms"
    return at.strftime("%Y-%m-%d %H:%M:%S.") + f"{at.microsecond // 1000:03d} UTC"

def _named_profile(activity: dict[str, Any]) -> Profile | None:
    """The profile a deal line names (``contents.ruleset``), if it names a known one."""
    c = activity.get("contents")
    named = c.get("ruleset") if isinstance(c, dict) else None
    if not isinstance(named, str):
        return None
    try:
        return get(named)
    except ValueError:
        return None


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
        self.judge.clock = self.clock  # a timeout penalty is the player's fault only if the clock proves it
        self.ledger = CardLedger()
        self._held: E.Event | None = None
        self._last: tuple[Any, dict[str, Any]] | None = None
        self._unordered: set[int] = set()  # seqs of lines whose order the stamps contradict
        self._adjacent: list[tuple[str, str, bool]] = []  # (player, next player, direction) the round's hand-overs prove
        self._misfits: list[tuple[str, str, bool]] = []  # the same, of hand-overs the replay's seating does not explain
        self._adjacent_round: int | None = None
        self._rules_turn: str | None = None  # the rules' player, when the last next-player named another seat
        self._no_draw_stated: str | None = None  # the player a next-player said owes no draw, the replay says does
        self._log_gaps: dict[int, tuple[str, str]] = {}  # seq -> (what, "skip" the line | "keep" replaying it)
        self._synth: tuple[str, int] | None = None  # a hand-over inferred for a missing next-player
        self._undealt: int | None = None  # a round whose first-player is missing
        self._lost_penalty: tuple[Any, Any, int] | None = None  # (player, error, action seq) of a lost penalty line
        self._not_cards: dict[int, list[str]] = {}  # seq -> what a dealer line gives as a card but is not one
        #: a profile judged by the profile audit (named by the log's deal, or given): the replay hands over to it
        self.audit: ProfileReplay | None = None
        prof = getattr(ruleset, "profile", ruleset)
        if isinstance(prof, Profile) and prof.audit == PROFILE_AUDIT:
            self.audit = ProfileReplay(prof, match_id=match_id, state=self.state)
            self.ruleset = prof

    def feed(self, activity: dict[str, Any], event: E.Event | None = None) -> list[Frame]:
        """The frames one line completes; ``event``: the line already parsed (:func:`rules.uno.events.to_event`),
        by a caller that reads it too (the loader's keyframe check)."""
        if self.audit is not None:
            return self.audit.feed(activity, event)
        if activity.get("event") == "first-player" and self.fixed_ruleset is None:
            prof = _named_profile(activity)
            if prof is not None and prof.audit == PROFILE_AUDIT:
                out = self.close_held()
                self.audit = ProfileReplay(prof, match_id=self.match_id, state=self.state)
                self.ruleset = prof
                return out + self.audit.feed(activity, event)
        ev = event if event is not None else E.to_event(activity)
        if bad := not_cards(activity):
            self._not_cards[ev.seq] = bad
        self._note_log_order(activity, ev)
        held, self._held = self._held, ev
        if held is None:
            return []
        return [self._step(E._with_verdict(held, ev, self.state.to_act))]

    def _note_log_order(self, activity: dict[str, Any], ev: E.Event) -> None:
        """Log-order gaps visible from the lines alone: a repeated line, time running backwards.

        Lines are replayed in the order they were written.  A line stamped before the line above
        it is reported once, at that line: either the two were written swapped or one stamp is
        wrong, and the log does not say which.  So neither action is judged on its order (no
        player finding at either line) and neither stamp is taken as proof of time
        (:attr:`Clock.doubtful`).
        """
        key = (activity.get("event"), activity.get("player"), activity.get("turn"), activity.get("date_ms"))
        last, self._last = self._last, (key, activity)
        if last is None:
            return
        (lkey, lact) = last
        if key == lkey and key[0] not in REPEATABLE and activity.get("contents") == lact.get("contents") \
                and activity.get("desk") == lact.get("desk"):  # fmt: skip
            self._log_gaps[ev.seq] = (f"{ev.kind} line repeated: identical to the line before it (seq {lact.get('seq')}), "
                                      "timestamp included; the copy is not replayed", "skip")  # fmt: skip
            self._last = last
            return
        t, lt = activity.get("date_ms"), lact.get("date_ms")
        if type(t) is not int or type(lt) is not int or t >= lt:
            return
        seqs = {x for x in (ev.seq, lact.get("seq")) if type(x) is int}
        self._unordered |= seqs
        self.clock.doubtful |= seqs
        self._log_gaps[ev.seq] = (f"{ev.kind} written at {_when(t)}, {lt - t} ms before the line above it (seq "
                                  f"{lact.get('seq')}, {lact.get('event')}): timestamps out of order — two lines "
                                  "swapped or a wrong stamp; replayed in the order written, neither action judged on "
                                  "its order, neither stamp taken as proof of time", "keep")  # fmt: skip

    def close_held(self) -> list[Frame]:
        """The frame of the line held back (nothing follows it in this replay)."""
        if self._held is None:
            return []
        held, self._held = self._held, None
        return [self._step(held)]

    def close(self) -> list[Frame]:
        if self.audit is not None:
            return self.audit.close()
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
        cause: Violation | None = None  # a lost line this line reveals: what differs here follows from it
        if self._lost_penalty is not None:
            who, err, at = self._lost_penalty
            self._lost_penalty = None
            cause = log_gap(ev, f"the penalty line answering seq {at} ('{err}' for {who}) is missing: this line's desk "
                            f"shows {who}'s hand kept whole (nothing played) plus the penalty cards; the refusal is inferred",
                            s, player=who)  # fmt: skip
            found.append(cause)
            snap = ev.snapshot  # the penalty cards are unknown: take that hand and the draw pile from this desk
            if snap is not None and who in snap.hands:
                hand = snap.hands[who]
                if isinstance(ev, E.PlayCard) and ev.player == who and ev.card is not None:
                    hand = hand + (ev.card,)
                s = s.replace(hands=MappingProxyType({**s.hands, who: hand}),
                              draw_pile=snap.draw if type(snap.draw) is int else s.draw_pile)  # fmt: skip
        rules_turn, self._rules_turn = self._rules_turn, None
        if isinstance(ev, E.NextPlayer) and s.in_round:
            who = expected_next(s)[0]
            self._rules_turn = who if who is not None and who != ev.next_player else None
        elif rules_turn is not None and ev.player == rules_turn != s.to_act and isinstance(ev, TURN_ACTIONS) \
                and s.gate is None and getattr(ev, "rejected", None) != "Next player invalid.":  # fmt: skip
            # the dealer named another seat (a next-seat finding at that line), then took the action of the player
            # the rules give the turn to (or refused it for another cause than the turn): the log proves that
            # player acted in turn
            s = s.replace(to_act=rules_turn, owes_draw=s.pending > 0 or s.bind.get(rules_turn, 0) > 0)
        elif rules_turn is not None and (ev.player != rules_turn or not isinstance(ev, TURN_ACTIONS)):
            self._rules_turn = rules_turn  # (other lines between the hand-over and that player's action)
        s = self._owed_draw(s, ev)
        refused = self._refused_without_penalty(s, ev)
        if refused is not None:
            ev = refused
            self._lost_penalty = (ev.player, ev.rejected, ev.seq)
        for gap_check in (self._missing_next_player, self._lost_action, self._lost_draw, self._lost_shuffle_play):
            s, missing = gap_check(s, ev)
            if missing is not None:
                found.append(missing)
                cause = missing
        if isinstance(ev, E.NextPlayer) and cause is None:  # (a hand-over after a lost line proves no seating)
            s, seating = self._seating(s, ev)
            if seating is not None:
                found.append(seating)
        after = apply(s, ev)
        if refused is not None:  # the refusal's effect on the turn, as the lost penalty line would show it
            after = apply(after, E.Penalty(seq=-1, round_no=ev.round_no, turn_no=ev.turn_no, player=None, desk=None,
                                           date_ms=None, victim=ev.player, cards=(), error=ev.rejected))  # fmt: skip
        found.extend(self.judge.check(s, ev, after))
        stated = after  # the board as this line states it, before the dealer's desk is adopted
        snap_found, after = check_snapshot(s, after, ev, self.matcher)
        found.extend(snap_found)
        if isinstance(ev, E.NextPlayer):  # the turn it opens, as the log states it: judge the next action on that
            after = follow_next_player(after, ev, s.top, lost=cause is not None, diverged=cause is not None or bool(snap_found))
            self._no_draw_stated = ev.next_player if ev.must_call_draw_card is False and after.owes_draw else None
        found.extend(self.ledger.observe(s, ev, stated, after))
        if (bad := self._not_cards.pop(ev.seq, None)) is not None:
            found.append(finding("conservation", ev, f"{ev.kind} gives or shows what is not a card of the deck: "
                                 f"{'; '.join(bad)} (left out of the replay)", round_no=s.round_no,
                                 turn_no=s.turn_no, expected="cards of the deck", actual="; ".join(bad)))  # fmt: skip
        think, timed = self.clock.observe(s, ev, after)
        found.extend(timed)
        if ev.seq in self._unordered:  # the stamps contradict the order: no action is proven out of place
            self._unordered.discard(ev.seq)
            found = [v for v in found if v.family != PLAYER_RULE or v.seq != ev.seq]
        found = one_per_cause(found, ev, cause)
        self.state = after
        return Frame(ev.seq, ev, s, after, tuple(self._stamp(v) for v in found) if found else (), think)

    def _owed_draw(self, s: GameState, ev: E.Event) -> GameState:
        """The replay owes the player to act a draw, the dealer's ``next-player`` said none is owed, and the
        dealer takes a card of theirs: the log proves no draw was owed (the stack and the bind are cleared).
        A forced draw, or the dealer refusing the play, proves the replay right instead."""
        stated, self._no_draw_stated = self._no_draw_stated, None
        if stated is None or ev.player != stated:
            self._no_draw_stated = stated if stated is not None and ev.player != stated else None
            return s
        if not isinstance(ev, (E.PlayCard, E.PlayDrawCard)) or getattr(ev, "rejected", None) is not None \
                or ev.player != s.to_act or not s.owes_draw:  # fmt: skip
            return s
        bind = MappingProxyType({**s.bind, stated: 0}) if s.bind.get(stated, 0) else s.bind
        return s.replace(owes_draw=False, pending=0, bind=bind)

    def _seating(self, s: GameState, ev: E.NextPlayer) -> tuple[GameState, Violation | None]:
        """The seating the hand-overs prove.  Every plain hand-over (no skip, no first-card effect)
        says who sits next to whom.  When a second one contradicts the seating of the deal
        (``play_order``) and the seating with two players exchanged explains every plain
        hand-over of the round, the replay takes that seating: one finding at that line, not one
        at every later hand-over.  (A single wrong ``next-player`` is that line's own finding.)"""
        if self._adjacent_round != s.round_no:
            self._adjacent, self._misfits, self._adjacent_round = [], [], s.round_no
        plain = s.in_round and not s.skip and s.first_turn is None and s.renotify is None and handover_due(s) \
            and isinstance(s.prev_actor, str) and isinstance(ev.next_player, str) and ev.next_player in s.seats  # fmt: skip
        if not plain:
            return s, None
        direction = ev.turn_right if isinstance(ev.turn_right, bool) else s.direction
        fact = (s.prev_actor, ev.next_player, direction)
        if s.next_of(s.prev_actor, direction) == ev.next_player:
            self._adjacent.append(fact)
            return s, None
        self._misfits.append(fact)
        if len(self._misfits) < 2:
            return s, None
        proved = (*self._adjacent, *self._misfits)
        seats = s.seats
        for i in range(len(seats)):
            for j in range(i + 1, len(seats)):
                other = list(seats)
                other[i], other[j] = other[j], other[i]
                moved = s.replace(seats=tuple(other))
                if all(moved.next_of(a, d) == b for a, b, d in proved):
                    self._adjacent, self._misfits = [*proved], []
                    msg = (f"turn given to {ev.next_player}, the seating of the deal gives it to "
                           f"{s.next_of(s.prev_actor, direction)} (after {s.prev_actor}); every hand-over of the round "
                           f"fits the seating {', '.join(other)} ({seats[i]} and {seats[j]} exchanged): the replay "
                           "follows that seating from here")  # fmt: skip
                    return moved, finding("next-seat", ev, msg, player=ev.next_player, round_no=s.round_no,
                                          turn_no=s.turn_no, expected=s.next_of(s.prev_actor, direction),
                                          actual=ev.next_player)  # fmt: skip
        return s, None

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

    def _refused_without_penalty(self, s: GameState, ev: E.Event) -> E.Event | None:
        """An action the rules refuse, answered by no penalty line, while the next line's desk shows
        the actor's whole hand still there plus cards (the refused card back, the penalty cards):
        the dealer did refuse it and the penalty line was lost.  The action, marked refused."""
        nxt = self._held
        check = REFUSABLE.get(type(ev))
        if check is None or nxt is None or getattr(ev, "rejected", None) is not None or ev.player is None \
                or not s.in_round or isinstance(nxt, E.Penalty) or nxt.desk is None:  # fmt: skip
            return None
        if isinstance(ev, E.ColorOfWild) and is_dealer_color_line(s, ev):
            return None
        err = check(s, ev)
        if err is None or len(s.hand(ev.player)) >= HAND_CAP:
            return None
        snap = nxt.snapshot
        shown = Counter(snap.hands.get(ev.player, ())) if snap is not None else Counter()
        if isinstance(nxt, E.PlayCard) and nxt.player == ev.player and nxt.card is not None and shown:
            shown[nxt.card] += 1  # that line's desk shows the hand without the card it plays (hybrid)
        hand = Counter(s.hand(ev.player))
        if not shown or hand - shown or sum(shown.values()) < sum(hand.values()) + 1:
            return None
        return replace(ev, rejected=err)

    def _lost_draw(self, s: GameState, ev: E.Event) -> tuple[GameState, Violation | None]:
        """A ``play-draw-card`` the dealer accepted from the player to act, with no drawn card to
        answer for: the ``draw-card`` line before it was lost.  The draw is inferred (the
        dealer's ``card_play`` names the drawn card; a declined one is unknown until the next
        snapshot) and nobody is blamed for it."""
        if not isinstance(ev, E.PlayDrawCard) or ev.rejected is not None or ev.player is None \
                or ev.player != s.to_act or s.drawn_card is not None or not s.in_round or s.gate is not None:  # fmt: skip
            return s, None
        if self.judge.prev_kind == "draw-card" and s.prev_actor == ev.player and s.hand(ev.player):
            # the draw is right there: its can_play_draw_card said no (a voluntary-draw finding at that line),
            # the dealer took the play of the drawn card anyway — judge it as the play of that card
            return s.replace(drawn_card=s.hand(ev.player)[-1], gate="play-draw", owes_draw=False), None
        card = ev.card if isinstance(ev.card, Card) and truthy(ev.is_play_raw) else None
        if card is None:  # declined: the desk shows the hand whole, the drawn card included
            snap = ev.snapshot
            extra = Counter(snap.hands.get(ev.player, ())) - Counter(s.hand(ev.player)) if snap is not None else Counter()
            card = next(iter(extra)) if sum(extra.values()) == 1 else None
        msg = (f"play-draw-card by {ev.player} without a drawn card to answer for: the draw-card line before it is "
               f"missing; the draw{f' of {card}' if card is not None else ''} is inferred")
        if card is None:
            return s, log_gap(ev, msg, s)
        ch = draw_into(s, ev.player, (card,))
        return s.replace(**ch, drawn_card=card, gate="play-draw", owes_draw=False, stall=0), log_gap(ev, msg, s)

    def _lost_shuffle_play(self, s: GameState, ev: E.Event) -> tuple[GameState, Violation | None]:
        """A ``shuffle-wild`` while no wild shuffle was played: the play line of the player to act
        was lost.  The play is inferred from the shuffle line (its ``player``)."""
        who = ev.shuffler if isinstance(ev, E.ShuffleWild) else None
        if who is None or s.gate == "color" or not s.in_round or who != s.to_act:
            return s, None
        shuffle = Card("black", None, "wild_shuffle")
        msg = (f"shuffle-wild of {who} although no wild shuffle was played: the line of {who} playing it is "
               "missing; the play is inferred")
        return played(s, who, shuffle, None, False), log_gap(ev, msg, s, player=who)

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
#: Actions the dealer validates, with the rules' verdict on each.
REFUSABLE: dict[type, Any] = {
    E.PlayCard: V.play_card, E.PlayDrawCard: V.play_draw_card, E.ColorOfWild: V.color_of_wild,
    E.SpecialLogic: V.special_logic,
    E.PointedNotSayUno: lambda s, ev: err if (err := V.pointing(s, ev)) in E.POINT_ERRORS else None,
}  # fmt: skip
#: What a lost line makes differ at the line that reveals it: folded into the gap finding.
CONSEQUENCES = frozenset({"next-seat", "turn-counter", "next-player-contents", "cards-played-counter",
                          "snapshot-mismatch", "conservation", "event-sequence", "echo-fields", "predicted-next"})
#: Board comparisons: several findings of one of these codes at one line are one finding.
BOARD_CODES = frozenset({"snapshot-mismatch", "echo-fields", "next-player-contents"})
_RANK = {"info": 0, "warning": 1, "error": 2}


def one_per_cause(found: list[Violation], ev: E.Event, cause: Violation | None) -> list[Violation]:
    """One finding per divergence at a line.

    A line that reveals a lost line (``cause``) differs from the replay *because of* it: the
    turn counters, payload and desk differences at that line are folded into the gap finding.
    Otherwise the board comparisons of one code at one line (a draw-card's ``draw_desk`` and its
    desk, say) are one finding naming every difference; different checks stay apart.
    """
    if not found or (cause is None and len(found) < 2):
        return found
    here = [v for v in found if v.seq == ev.seq and v is not cause]
    if cause is not None:
        folded = [v for v in here if v.code in CONSEQUENCES]
        if not folded:
            return found
        extra = "; ".join(f"{v.code}: {v.message}" for v in folded)
        merged = replace(cause, message=f"{cause.message} — at this line the log then differs from the replay "
                                        f"(taken from the log): {extra}")  # fmt: skip
        return [merged if v is cause else v for v in found if not any(v is f for f in folded)]
    for code in BOARD_CODES:
        same = [v for v in here if v.code == code]
        if len(same) < 2:
            continue
        head = same[0]
        severity = max((v.severity for v in same), key=lambda x: _RANK.get(x, 0))
        merged = replace(head, severity=severity, message=f"{head.message}; also " + "; ".join(v.message for v in same[1:]),
                         expected="; ".join(str(v.expected) for v in same), actual="; ".join(str(v.actual) for v in same))  # fmt: skip
        found = [merged if v is head else v for v in found if not any(v is x for x in same[1:])]
    return found


def follow_next_player(s: GameState, ev: E.NextPlayer, old_top: Card | None, *, lost: bool, diverged: bool = True) -> GameState:
    """After a reported divergence, take what a ``next-player`` states about the turn it opens
    (the draw it owes, and why) from the log, so the lines after it compare with the log.

    ``old_top`` is the replay's top before this line: when the log shows a wild draw 4 the
    replay did not see played, it is the card a challenge is judged against.  When a lost line
    played a wild, the dealer's colour line may still follow (after a play-draw-card it comes
    after the hand-over): it is expected from the player who closed the turn."""
    ch: dict[str, Any] = {}
    nxt = ev.next_player
    reason = ev.draw_reason
    owed_for = reason in ("bind_2", "skip_bind_2", "draw_2", "wild_draw_4") or s.pending > 0 \
        or (isinstance(nxt, str) and s.bind.get(nxt, 0) > 0)  # fmt: skip
    if isinstance(ev.must_call_draw_card, bool) and isinstance(nxt, str) and diverged \
            and (owed_for or not ev.must_call_draw_card):  # fmt: skip
        # (a draw owed for no reason the log gives is not taken: the line contradicts itself; a single odd
        # must_call_draw_card is weighed against the player's next action, MatchReplay._owed_draw)
        ch["owes_draw"] = ev.must_call_draw_card
        if not ev.must_call_draw_card:
            ch.update(pending=0)
            if s.bind.get(nxt, 0) > 0:
                ch["bind"] = MappingProxyType({**s.bind, nxt: 0})
        elif reason in ("bind_2", "skip_bind_2") and s.bind.get(nxt, 0) == 0 and s.pending == 0:
            ch["bind"] = MappingProxyType({**s.bind, nxt: 2})
        elif reason in ("draw_2", "wild_draw_4") and s.pending == 0 and s.bind.get(nxt, 0) == 0:
            ch["pending"] = 2 if reason == "draw_2" else 4
            if reason == "wild_draw_4":
                ch["wd4_base"] = old_top
    if isinstance(ev.turn_right, bool) and diverged:  # (a single odd field is that line's own finding)
        ch["direction"] = ev.turn_right
    # the top card is taken only when the dealer's desk or a lost line shows the replay astray: otherwise the
    # replay's top and the line's card_before are two statements, and the next play is judged on both
    top = ev.card_before if ev.card_before is not None and diverged else s.top
    if top is not None and s.top != top:
        ch["top"] = top
    if lost and top is not None and top.special in ("wild", "wild_draw_4") and top != old_top \
            and isinstance(s.prev_actor, str) and s.color_echo is None:  # fmt: skip
        ch["color_echo"] = s.prev_actor
    return s.replace(**ch) if ch else s
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
