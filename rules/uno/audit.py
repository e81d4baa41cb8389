"""The profile audit: a UNO log judged from its profile alone (the JUA competition rules, …).

:class:`ProfileReplay` folds a log through :mod:`rules.uno.model` and judges every line:

* each player action against the profile (:func:`rules.uno.model.refusal`), compared with the
  referee's answer — the ``penalty`` line right after it (a refusal), or none (accepted);
* each referee decision (hand-overs, forced draws and stack totals, challenge verdicts and
  outcomes, UNO pointings, round ends, scores, the next round's start player) re-derived;
* each field a line states about the board (``next-player`` contents, ``desk``) against the
  replayed board, which then follows the log, so one difference is one finding.

It trusts nothing of the program that wrote the log: Kifu's own referee is judged like any
other.  Which checks it reports is :data:`rules.uno.catalog.PROFILE_CHECKS`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from rules.core import ERROR, PLAYER_RULE, Frame, Violation
from rules.uno import events as E
from rules.uno import model as M
from rules.uno import profile as P
from rules.uno.cards import Card
from rules.uno.catalog import CHECKS
from rules.uno.profile import Profile
from rules.uno.state import GameState, frozen
from rules.uno.verdicts import truthy

#: Penalty texts and the check each one names (the referee's refusals, docs/rules/jua.md).
ERROR_CODE = {
    "Next player invalid.": "turn-owner",
    "Card play invalid.": "card-object-valid",
    "Card play not exist of player.": "card-owned",
    "Card play invalid with card before.": "card-legal-on-top",
    "Color of wild is required.": "wild-colour-given",
    "Color wild invalid.": "wild-colour-valid",
    "Pair invalid.": "pair-identical",
    "Can not answer draw stack.": "stack-answer",
    "Can not play draw card.": "play-draw-allowed",
    "Only the drawn card may be played.": "play-draw-allowed",
    "Can not challenge.": "challenge-eligible",
    "Card play is required.": "challenge-must-play",
    "Already changed color.": "colour-choice-eligible",
    "Did not say uno.": "uno-call-missed",
}

#: Lines only the player to act may write.
TURN_LINES = (E.PlayCard, E.PlayDrawCard, E.DrawCard, E.Challenge)
#: Actions a penalty line right after them answers.
ACTIONS = (E.PlayCard, E.PlayDrawCard, E.DrawCard, E.Challenge, E.ColorOfWild, E.PointedNotSayUno)


def _cards(cards: Any) -> str:
    return "[" + ", ".join(sorted(map(str, cards))) + "]"


def _stack_text(stack: tuple[Card, ...]) -> str:
    return f"+{M.stack_total(stack)} ({' '.join(map(str, stack))})" if stack else "+0"


class ProfileReplay:
    """Replays one match under ``profile``. ``feed(activity)`` returns the frames that became final."""

    def __init__(self, profile: Profile, *, match_id: str | None = None, state: GameState | None = None) -> None:
        self.profile = profile
        self.ruleset = profile
        self.match_id = match_id
        self.state = state or GameState()
        self._held: E.Event | None = None
        self.out: list[Violation] = []
        self.rounds_done = 0
        self.last_winner: str | None = None
        self.circle: tuple[str, ...] | None = None
        self.history: list[dict[str, int]] = []
        self.deck = profile.deck.copies()
        self.discards: list[Card] = []  # printed faces in the discard pile (follows rebuilds)
        self.reported_faces: set[Card] = set()
        self._prev: E.Event | None = None
        self._gaps: dict[int, str] = {}  # seq -> a log-order finding of that line
        self._unordered: set[int] = set()  # seqs of two lines whose stamps contradict their order
        self.rules_turn: str | None = None  # the seat the rules give the turn to, when a next-player named another
        self.misdirected: dict[int, str] = {}  # penalty seq -> the sender of the refused action it answers
        self.lost_refusal: tuple[str, str] | None = None  # (player, rule) of a refusal whose penalty line is lost
        self.turn_log: int | None = None  # the last number_turn_play a next-player wrote (the log's own count)
        self.line_diffs: list[tuple[str, Any, Any]] = []  # this line's board differences (one finding per line)
        self.desk_removed: dict[str, Counter[Card]] = {}  # cards a differing desk took from a hand the lines gave
        self.desk_faces: set[Card] = set()  # faces a desk showed more often than the deck holds them (reported once)
        self.unyelled: dict[str, tuple[int, Any, Any]] = {}  # player -> (seq, round, turn) of a play left on one card
        self.unfit: str | None = None  # why the log does not fit the profile (then only that is reported)
        self.pair_cut: str | None = None  # the player whose pair finish without the call played one card (R13)

    # ------------------------------------------------------------------ feeding

    def feed(self, activity: dict[str, Any], event: E.Event | None = None) -> list[Frame]:
        ev = event if event is not None else E.to_event(activity)
        held = self._held
        if held is not None and type(ev.date_ms) is int and type(held.date_ms) is int and ev.date_ms < held.date_ms \
                and held.seq not in self._gaps:  # fmt: skip
            # written before the line held back: the two are replayed in the order they were written
            self._gaps[ev.seq] = (f"{ev.kind} written {held.date_ms - ev.date_ms} ms before the line before it (seq "
                                  f"{held.seq}): lines out of order; replayed in time order")  # fmt: skip
            self._gaps[held.seq] = f"{held.kind} written after the line that follows it (seq {ev.seq})"
            self._unordered |= {ev.seq, held.seq}  # the log does not prove the order of the two: no player finding
            return [self._step(ev, held)]
        self._held = ev
        if held is None:
            return []
        return [self._step(held, ev)]

    def close(self) -> list[Frame]:
        out = []
        if self._held is not None:
            out.append(self._step(self._held, None))
            self._held = None
        return out

    # ------------------------------------------------------------------ one line

    def _misfit(self, ev: E.Event) -> str | None:
        """Why the log cannot be a log of this profile (a deal of another rule set, cards outside its deck, lines
        its games never have), or ``None``: the fit test of a profile given from outside (``--ruleset``)."""
        prof = self.profile
        if isinstance(ev, E.FirstPlayer):
            named = ev.ruleset
            if isinstance(named, str):
                try:
                    other = P.get(named)
                except ValueError:
                    return f"the deal names the rule set {named!r}, which Kifu does not know"
                if other.family != prof.family:
                    return f"the deal names the rule set {named!r}"
                return None  # a log of this profile: its faults are judged, not taken for another rule set's
            if ev.white_wild is not None and prof.deck.white_wild == 0:
                return f"the deal sets white_wild {ev.white_wild!r} (an ALGORI 2023 setting)"
            faces = M._deck_faces(prof)
            odd = sorted({str(c) for h in ev.hands.values() for c in h if c not in faces} |
                         ({str(ev.first_card)} if ev.first_card is not None and ev.first_card not in faces else set()))  # fmt: skip
            if odd:
                return f"the deal holds cards the profile's {prof.deck.size}-card deck does not have: {', '.join(odd)}"
        elif isinstance(ev, (E.ShuffleWild, E.SpecialLogic)):
            return f"a {ev.kind} line: the profile's games have no such event"
        return None

    def _step(self, ev: E.Event, nxt: E.Event | None) -> Frame:
        self.out = []
        s = self.state
        if self.unfit is None and (why := self._misfit(ev)) is not None:
            self.unfit = why
            self.v("deal-and-first-card" if isinstance(ev, E.FirstPlayer) else "event-sequence", ev,
                   f"the log does not fit the profile {self.profile.id}: {why}; the match is not judged under it",
                   expected=self.profile.id, actual="another rule set")  # fmt: skip
            found = tuple(self._stamp(v) for v in self.out)
            self.state = M.apply(self.profile, s, ev)
            return Frame(ev.seq, ev, s, self.state, found)
        if self.unfit is not None:  # one finding says the log is not this profile's; nothing else is judged
            self.state = M.apply(self.profile, s, ev)
            return Frame(ev.seq, ev, s, self.state, ())
        prev, self._prev = self._prev, ev
        if (gap := self._gaps.pop(ev.seq, None)) is not None:
            self.v("event-sequence", ev, gap)
        s = self._follow_turn(s, ev, nxt)
        s = self._lines_hand(s, ev)
        lost = None
        if isinstance(ev, (E.PlayCard, E.PlayDrawCard, E.ColorOfWild)):
            if isinstance(nxt, E.Penalty) and nxt.victim == ev.player:
                ev = replace(ev, rejected=nxt.error, penalty_seq=nxt.seq)  # the referee's answer: refused
            elif (why := M.refusal(self.profile, s, ev)) is not None and ev.player is not None:
                if isinstance(nxt, E.Penalty) and nxt.error != "Did not say uno." and nxt.victim in s.seats:
                    # the refusal of this action, given to another player: the sender's foul, not the victim's
                    self.misdirected[nxt.seq] = ev.player
                    ev = replace(ev, rejected=nxt.error, penalty_seq=nxt.seq)
                elif self._refused_unlogged(s, ev, nxt):
                    lost = (ev.player, why[1])
                    self.lost_refusal = lost
                    ev = replace(ev, rejected=why[1])
        if isinstance(ev, E.Penalty):
            answers = isinstance(prev, ACTIONS) and (prev.player == ev.victim or ev.seq in self.misdirected or (
                isinstance(prev, E.PointedNotSayUno) and ev.error == "Did not say uno."))
            self._penalty(s, ev, answers)
        else:
            judge = _JUDGES.get(type(ev))
            if judge is not None:
                judge(self, s, ev, nxt)
        self._echoes(s, ev)
        after = M.apply(self.profile, s, ev)
        sender = self.misdirected.pop(ev.seq, None) if isinstance(ev, E.Penalty) else None
        loser = lost[0] if lost is not None else sender
        if loser is not None and loser == after.to_act:  # the refusal's effect on the sender's turn
            after = M.apply(self.profile, after, E.Penalty(seq=-1, round_no=ev.round_no, turn_no=ev.turn_no, player=None,
                                                           desk=None, date_ms=None, victim=loser, cards=(),
                                                           error=lost[1] if lost else ev.error))  # type: ignore[union-attr]  # fmt: skip
        self.lost_refusal = None
        self._uno_windows(after, final=nxt is None)
        after = self._after(s, ev, after)
        self.state = after
        if ev.seq in self._unordered:
            self._unordered.discard(ev.seq)
            self.out = [v for v in self.out if v.family != PLAYER_RULE or v.seq != ev.seq]
        return Frame(ev.seq, ev, s, after, tuple(self._stamp(v) for v in self.out))

    def _follow_turn(self, s: GameState, ev: E.Event, nxt: E.Event | None) -> GameState:
        """An action by the player the rules give the turn to, when the log's hand-over named another seat or
        is missing: the log's fault (a next-seat or event-sequence finding), not the player's."""
        if not isinstance(ev, TURN_LINES) or ev.player is None or not s.in_round:
            return s
        if ev.player == s.to_act and not (M.turn_ended(s) and M.expected_next(s) == ev.player):
            return s
        if isinstance(nxt, E.Penalty) and nxt.victim == ev.player and nxt.error == "Next player invalid.":
            return s  # the referee refused it as out of turn (or as a second action in an ended turn): judged as such
        if ev.player == self.rules_turn and not M.handover_due(s):
            return s.replace(to_act=ev.player)  # the wrong next-player line is already a next-seat finding
        if M.handover_due(s) and ev.player == M.expected_next(s):
            self.v("event-sequence", ev, f"{ev.kind} by {ev.player}, whose turn is not announced: the next-player "
                   f"line handing the turn from {s.prev_actor or 'the deal'} to {ev.player} is missing; the hand-over "
                   "is inferred", player=ev.player)  # fmt: skip
            return M.hand_over(s, ev.player)
        return s

    def _lines_hand(self, s: GameState, ev: E.Event) -> GameState:
        """A card played that a differing desk had taken from the hand the log's lines gave: back in the hand."""
        if not isinstance(ev, E.PlayCard) or ev.player not in self.desk_removed:
            return s
        removed = self.desk_removed[ev.player]
        back = [c for c in (ev.card, ev.pair) if c is not None and removed.get(c, 0) > s.hand(ev.player).count(c)]
        if not back:
            return s
        for c in back:
            removed[c] -= 1
        hands = dict(s.hands)
        hands[ev.player] = s.hand(ev.player) + tuple(back)
        return s.replace(hands=frozen(hands))

    def _refused_unlogged(self, s: GameState, ev: Any, nxt: E.Event | None) -> bool:
        """An action the rules refuse, answered by no penalty line, while the next line's desk shows the sender's
        hand whole (nothing played) and more: the referee refused it and the penalty line was lost."""
        snap = E.Snapshot.parse(nxt.desk) if nxt is not None else None
        if snap is None or ev.player not in snap.hands:
            return False
        shown, hand = Counter(snap.hands[ev.player]), Counter(s.hand(ev.player))
        return not (hand - shown) and sum(shown.values()) > sum(hand.values())

    def _echoes(self, s: GameState, ev: E.Event) -> None:
        """The round and turn numbers every line repeats, against the replay."""
        if not s.in_round or isinstance(ev, (E.FirstPlayer, E.JoinRoom)):
            return
        if type(ev.round_no) is int and ev.round_no != s.round_no and not isinstance(ev, E.FinishGame):
            self.v("echo-fields", ev, f"{ev.kind} carries round (turn) {ev.round_no}, the current round is {s.round_no}",
                   expected=s.round_no, actual=ev.round_no)  # fmt: skip
        if type(ev.turn_no) is int and not isinstance(ev, E.NextPlayer) and ev.turn_no not in (s.turn_no, self.turn_log):
            self.v("echo-fields", ev, f"{ev.kind} carries number_turn_play {ev.turn_no}, the current turn is {s.turn_no}",
                   expected=s.turn_no, actual=ev.turn_no)  # fmt: skip

    def _after(self, s: GameState, ev: E.Event, a: GameState) -> GameState:
        """Follow the discard faces, compare the line's desk, count every card."""
        if isinstance(ev, E.FirstPlayer):
            self.discards = [ev.first_card] if ev.first_card is not None else []
            self.reported_faces, self.desk_faces, self.desk_removed = set(), set(), {}
            self.turn_log = None
        elif a.discard < len(self.discards) and a.discard <= 1:  # rebuilt from the discards
            self.discards = self.discards[-1:]
        if isinstance(ev, (E.PlayCard, E.PlayDrawCard)) and a.cards_played > s.cards_played:
            self.discards += [c for c in (ev.card if isinstance(ev, E.PlayCard) else s.drawn_card,
                                          ev.pair if isinstance(ev, E.PlayCard) else None)
                              if c is not None][: a.cards_played - s.cards_played]
        if isinstance(ev, E.Challenge) and ev.success is True and self.discards:
            self.discards.pop()
        self.line_diffs = []
        if isinstance(ev, E.DrawCard) and type(ev.after_n) is int and ev.after_n != a.draw_pile and ev.cards:
            self.line_diffs.append(("draw_desk.after", a.draw_pile, ev.after_n))
        ended = isinstance(ev, E.FinishTurn) and any(v.seq == ev.seq for v in self.out)  # round-end, finish-hands
        if ev.desk is not None and (a.in_round or isinstance(ev, E.FinishTurn)) and not ended:
            a = self._desk(ev, a)
        if self.line_diffs:
            d = self.line_diffs
            self.v("snapshot-mismatch", ev, f"{ev.kind} shows the board unlike the replay in " + ", ".join(k for k, _, _ in d),
                   expected="; ".join(f"{k}={e}" for k, e, _ in d), actual="; ".join(f"{k}={x}" for k, _, x in d))  # fmt: skip
        self._conserve(ev, a)
        return a

    def _uno_windows(self, a: GameState, *, final: bool) -> None:
        """A missed UNO call nobody pointed out in its window (R10): a warning at the play that left one card. One
        that was pointed out and penalised is found at the pointing, linked to the penalty (an error)."""
        for p, (seq, rnd, turn) in list(self.unyelled.items()):
            if not final and a.in_round and a.pointable == p:
                continue
            del self.unyelled[p]
            self.v("uno-call-missed", self._prev, f"{p} went down to one card without the UNO call (nobody pointed it "  # type: ignore[arg-type]
                   "out)", player=p, expected="yell_uno true", actual="no call", seq=seq, round_no=rnd, turn_no=turn)  # fmt: skip

    # ------------------------------------------------------------------ findings

    def v(self, code: str, ev: E.Event, message: str, *, player: Any = None, expected: Any = None,
          actual: Any = None, penalty_seq: int | None = None, seq: int | None = None, severity: str | None = None,
          round_no: Any = None, turn_no: Any = None) -> None:  # fmt: skip
        check = CHECKS[code]
        s = self.state
        self.out.append(Violation(
            code=code, family=check.family, severity=severity or check.severity, message=message,
            seq=seq if seq is not None else ev.seq,
            round_no=round_no if round_no is not None else ev.round_no if ev.round_no is not None else s.round_no,
            turn_no=turn_no if turn_no is not None else ev.turn_no if ev.turn_no is not None else s.turn_no,
            player=player if isinstance(player, str) else None,
            expected=None if expected is None else str(expected), actual=None if actual is None else str(actual),
            penalty_seq=penalty_seq,
        ))  # fmt: skip

    def _stamp(self, v: Violation) -> Violation:
        return replace(v, ruleset=self.profile.id, ruleset_version=self.profile.version, match_id=self.match_id)

    # ------------------------------------------------------------------ actions

    def _action(self, s: GameState, ev: Any, nxt: E.Event | None, what: str) -> bool:
        """Judge an action against the referee's answer; True when the rules accept it."""
        why = M.refusal(self.profile, s, ev)
        answer = nxt.error if isinstance(nxt, E.Penalty) and (nxt.victim == ev.player or nxt.seq in self.misdirected) \
            else None  # fmt: skip
        pseq = nxt.seq if answer is not None else None
        if why is None:
            if answer is not None:
                self.v("penalty-unjustified", ev, f"{what}: the referee answered '{answer}', but the rules accept it",
                       player=ev.player, expected="accepted", actual=answer, penalty_seq=pseq)  # fmt: skip
            return True
        code, text = why
        self.v(code, ev, f"{what}: {text}", player=ev.player, expected=text,
               actual=answer or "accepted", penalty_seq=pseq)  # fmt: skip
        if answer is None and self.lost_refusal is not None:
            self.v("event-sequence", ev, f"{what}: refused ('{text}'), but the penalty line answering it is missing: "
                   f"the next line shows {ev.player}'s hand kept whole", expected="a penalty line", actual="none")  # fmt: skip
        elif answer is None:
            self.v("missing-penalty", ev, f"{what}: accepted although the rules refuse it ('{text}')",
                   player=ev.player, expected=text, actual="accepted")  # fmt: skip
        elif answer != text:
            self.v("penalty-cause", ev, f"{what}: refused as '{answer}', the rules give '{text}'",
                   player=ev.player, expected=text, actual=answer, penalty_seq=pseq)  # fmt: skip
        return False

    def _play(self, s: GameState, ev: E.PlayCard, nxt: E.Event | None) -> None:
        pair = f" + {ev.pair if ev.pair is not None else repr(ev.pair_raw)}" if ev.pair_raw is not None else ""
        what = f"{ev.card if ev.card is not None else repr(ev.card_raw)}{pair} on {s.top}" + \
            (f" (stack {_stack_text(s.stack)})" if s.stack else "")  # fmt: skip
        if not self._action(s, ev, nxt, f"play-card {what}") or isinstance(nxt, E.Penalty) and nxt.victim == ev.player:
            return
        if M.pair_cut(self.profile, s, ev):  # R13: one card played, no penalty (so no missed-call finding either)
            self.v("pair-finish-uno", ev, f"pair {ev.card} + {ev.pair} would finish without the UNO call: only one "
                   "card is played (no penalty)", player=ev.player, expected="yell_uno true", actual="no call")  # fmt: skip
            self._after_play(s, ev, ev.card, None, True)
            self.pair_cut = ev.player
            return
        self._after_play(s, ev, ev.card, ev.pair, ev.yell_raw)

    def _play_draw(self, s: GameState, ev: E.PlayDrawCard, nxt: E.Event | None) -> None:
        what = f"play-draw-card is_play_card={ev.is_play_raw!r} (drawn {s.drawn_card})"
        if not self._action(s, ev, nxt, what) or isinstance(nxt, E.Penalty) and nxt.victim == ev.player:
            return
        if ev.card_raw is not None and s.drawn_card is not None and ev.card != s.drawn_card:
            self.v("echo-fields", ev, f"play-draw-card card_play {ev.card}, the drawn card is {s.drawn_card}",
                   player=ev.player, expected=s.drawn_card, actual=ev.card)  # fmt: skip
        if truthy(ev.is_play_raw) and s.drawn_card is not None:
            self._after_play(s, ev, s.drawn_card, None, ev.yell_raw)

    def _after_play(self, s: GameState, ev: Any, card: Card, pair: Card | None, yell: Any) -> None:
        if self.pair_cut == ev.player:
            self.pair_cut = None
        hand = list(s.hand(ev.player))
        for c in (card, pair):
            if c is not None and c in hand:
                hand.remove(c)
        if card.special == "wild_draw_4" and not self.profile.challenge.wd4_legal(tuple(hand), s.top, s.stack):
            held = [c for c in hand if s.top is not None and c.color == s.top.color and
                    (not s.stack or c.special == "draw_2")]  # fmt: skip
            self.v("wd4-bluff", ev, f"wild draw 4 on {s.top} while holding {_cards(held)} of that colour",
                   player=ev.player, expected="no card of the current colour", actual=_cards(held))  # fmt: skip
        if len(hand) == 1 and not truthy(yell):  # judged when pointed out, or when its window closes (_uno_windows)
            self.unyelled[ev.player] = (ev.seq, ev.round_no if ev.round_no is not None else s.round_no,
                                        ev.turn_no if ev.turn_no is not None else s.turn_no)  # fmt: skip

    def _draw(self, s: GameState, ev: E.DrawCard, nxt: E.Event | None) -> None:
        p = ev.player
        n = len(ev.cards)
        room = s.draw_pile + max(0, s.discard - 1)
        if s.winner is not None:  # the last card's stack
            want = M.stack_total(s.stack)
            if p != M.next_seat(s, s.winner) or not s.stack:
                self.v("round-end", ev, f"draw-card by {p} after {s.winner} won: nobody draws here" if not s.stack else
                       f"the last card's stack is drawn by {M.next_seat(s, s.winner)}, not {p}", player=None,
                       expected=M.next_seat(s, s.winner) if s.stack else "finish-turn", actual=p)  # fmt: skip
            elif n != min(want, room):
                self.v("stack-total", ev, f"{p} draws {n} for the last card's stack {_stack_text(s.stack)}",
                       expected=min(want, room), actual=n)  # fmt: skip
            self._draw_fields(s, ev, s.stack)
            return
        if s.auto_draw is not None or s.stack:
            if p != s.to_act:
                self.v("turn-owner", ev, f"draw-card by {p}: {s.to_act} is to act", player=p,
                       expected=s.to_act, actual=p)  # fmt: skip
                return
            want = min(M.stack_total(s.stack), room)
            if n != want:
                self.v("stack-total", ev, f"{p} draws {n} for the stack {_stack_text(s.stack)}", expected=want,
                       actual=n)  # fmt: skip
            self._draw_fields(s, ev, s.stack)
            return
        why = M.refusal(self.profile, s, ev)
        if isinstance(nxt, E.Penalty) and nxt.victim == p:  # a draw the referee refused (is_draw false)
            self._action(s, ev, nxt, f"draw-card by {p}")
            return
        if why is not None:
            self.v(why[0], ev, f"draw-card by {p}: {why[1]}", player=p, expected=why[1], actual="accepted")
            self.v("missing-penalty", ev, f"draw-card by {p} accepted although the rules refuse it ('{why[1]}')",
                   player=p, expected=why[1], actual="accepted")  # fmt: skip
            return
        want = min(1, room)
        if n != want:
            self.v("voluntary-draw", ev, f"voluntary draw of {n} cards (the rules give {want})", expected=want,
                   actual=n)  # fmt: skip
        if ev.cards and isinstance(ev.can_play, bool):
            can = self.profile.playable(ev.cards[0], s.top)
            if can != ev.can_play:
                self.v("voluntary-draw", ev, f"drawn {ev.cards[0]} on {s.top}: can_play_draw_card {ev.can_play}, the "
                       f"rules say {can}", expected=can, actual=ev.can_play)  # fmt: skip
        self._draw_fields(s, ev, ())

    def _draw_fields(self, s: GameState, ev: E.DrawCard, stack: tuple[Card, ...]) -> None:
        if isinstance(ev.draw_reason, str) and ev.draw_reason != M.draw_reason(stack):
            self.v("stack-total", ev, f"draw_reason {ev.draw_reason!r}, the stack is {_stack_text(stack)}",
                   expected=M.draw_reason(stack), actual=ev.draw_reason)  # fmt: skip
        self._stack_field(ev, ev.draw_stack, stack)
        if type(ev.before_n) is int and ev.before_n != s.draw_pile:
            self.v("snapshot-mismatch", ev, f"draw_desk.before {ev.before_n}, replayed draw pile {s.draw_pile}",
                   expected=s.draw_pile, actual=ev.before_n)  # fmt: skip

    def _stack_field(self, ev: E.Event, field_: Any, stack: tuple[Card, ...]) -> None:
        if not isinstance(field_, dict):
            return
        number, cards = field_.get("number"), field_.get("cards")
        if (type(number) is int and number != M.stack_total(stack)) or \
                (isinstance(cards, list) and E.cards_of(cards) != stack):  # fmt: skip
            self.v("stack-total", ev, f"draw_stack {number} {_cards(E.cards_of(cards))}, the stack is "
                   f"{_stack_text(stack)}", expected=M.stack_total(stack), actual=number)  # fmt: skip

    def _challenge(self, s: GameState, ev: E.Challenge, nxt: E.Event | None) -> None:
        if not truthy(ev.is_challenge_raw):
            return
        refused = isinstance(nxt, E.Penalty) and nxt.victim == ev.player
        what = f"challenge by {ev.player} of {s.prev_actor}'s wild draw 4 (stack {_stack_text(s.stack)})"
        why = M.refusal(self.profile, s, ev)
        if why is not None or refused:
            answer = nxt.error if refused else None  # type: ignore[union-attr]
            if why is None:
                self.v("penalty-unjustified", ev, f"{what}: the referee answered '{answer}', but the challenge is "
                       "allowed", player=ev.player, expected="a verdict", actual=answer,
                       penalty_seq=nxt.seq)  # type: ignore[union-attr]  # fmt: skip
            else:
                self.v(why[0], ev, f"{what}: {why[1]}", player=ev.player, expected=why[1], actual=answer or "judged",
                       penalty_seq=nxt.seq if refused else None)  # type: ignore[union-attr]  # fmt: skip
                if refused and answer != why[1]:
                    self.v("penalty-cause", ev, f"{what}: refused as '{answer}', the rules give '{why[1]}'",
                           player=ev.player, expected=why[1], actual=answer, penalty_seq=nxt.seq)  # type: ignore[union-attr]  # fmt: skip
                if not refused:
                    self.v("missing-penalty", ev, f"{what}: judged although the rules refuse it", player=ev.player,
                           expected=why[1], actual="judged")  # fmt: skip
            return
        offender = s.prev_actor
        hand = s.hand(offender)
        want = self.profile.challenge.succeeds(hand, s.wd4_base, s.stack)
        if ev.success is not want:
            self.v("challenge-verdict", ev, f"{what}: the referee says {'success' if ev.success else 'failure'}, "
                   f"{offender} held {_cards(hand)} on {s.wd4_base}", expected=want, actual=ev.success)  # fmt: skip
        if ev.success is True:
            receiver, count = offender, 1 + self.profile.challenge.success_draws
            back_ok = bool(ev.cards) and ev.cards[0].special == "wild_draw_4"
        else:
            receiver, count = ev.player, M.stack_total(s.stack) + self.profile.challenge.failure_extra
            back_ok = True
        if ev.success is True:  # the wild draw 4 leaves the discards: the rest but the new top can be drawn
            want = 1 + min(count - 1, s.draw_pile + max(0, s.discard - 2))
        else:
            want = min(count, s.draw_pile + max(0, s.discard - 1))
        if ev.receiver != receiver or len(ev.cards) != want or not back_ok:
            self.v("challenge-outcome", ev, f"{what}: {ev.receiver} receives {len(ev.cards)} cards; the rules give "
                   f"{receiver} {count}{' (the wild draw 4 back first)' if ev.success is True else ''}",
                   expected=f"{receiver} {count}", actual=f"{ev.receiver} {len(ev.cards)}")  # fmt: skip

    def _public(self, s: GameState, ev: E.PublicCard, nxt: E.Event | None) -> None:
        offender = s.prev_actor
        if ev.owner != offender or Counter(ev.cards) != Counter(s.hand(offender)) or \
                (ev.shown_to is not None and ev.shown_to != s.to_act):  # fmt: skip
            self.v("public-card", ev, f"public-card shows {ev.owner}'s {_cards(ev.cards)} to {ev.shown_to}; the "
                   f"challenged hand is {offender}'s {_cards(s.hand(offender))}, shown to {s.to_act}",
                   expected=f"{offender} {_cards(s.hand(offender))}", actual=f"{ev.owner} {_cards(ev.cards)}")  # fmt: skip

    def _point(self, s: GameState, ev: E.PointedNotSayUno, nxt: E.Event | None) -> None:
        t = ev.target
        valid = isinstance(t, str) and t == s.pointable and len(s.hand(t)) == 1 and not s.yell.get(t, False)
        penalised = isinstance(nxt, E.Penalty) and nxt.error == "Did not say uno."
        if valid and penalised and nxt.victim == t and t in self.unyelled:  # type: ignore[union-attr]
            # the referee's penalty for the missed call (R10): the player's foul, found at the play, linked to it
            seq, rnd, turn = self.unyelled.pop(t)
            self.v("uno-call-missed", ev, f"{t} went down to one card without the UNO call; pointed out by "
                   f"{ev.player} and penalised", player=t, expected="yell_uno true", actual="no call", seq=seq,
                   round_no=rnd, turn_no=turn, penalty_seq=nxt.seq, severity=ERROR)  # type: ignore[union-attr]  # fmt: skip
        if valid and not (penalised and nxt.victim == t):  # type: ignore[union-attr]
            self.v("uno-pointing-outcome", ev, f"{ev.player} pointed out {t}'s missed UNO call in time, but "
                   f"{'the penalty went to ' + str(nxt.victim) if penalised else 'no penalty followed'}",  # type: ignore[union-attr]
                   expected=f"Did not say uno. on {t}", actual="other",
                   penalty_seq=nxt.seq if penalised else None)  # type: ignore[union-attr]  # fmt: skip
        elif not valid and not penalised:
            why = "called UNO" if isinstance(t, str) and s.yell.get(t) else \
                "does not hold one card" if len(s.hand(t)) != 1 else \
                "finished a pair without the call: one card was played and the rules give no penalty (R13)" \
                if t == self.pair_cut else "can no longer be pointed out (a card was discarded since)"
            self.v("pointing-without-effect", ev, f"{ev.player} pointed at {t}, who {why}: no effect",
                   player=ev.player, expected="a missed call in its window", actual=why)  # fmt: skip
        elif not valid and penalised:
            why = "called UNO" if isinstance(t, str) and s.yell.get(t) else "finished a pair without the call " \
                "(ペナルティはない, R13)" if t == self.pair_cut and t == nxt.victim else "cannot be pointed out now"  # type: ignore[union-attr]
            self.v("uno-pointing-outcome", ev, f"{ev.player} pointed at {t}, who {why}, yet {nxt.victim} was "  # type: ignore[union-attr]
                   "penalised", player=nxt.victim, expected="no penalty", actual="Did not say uno.",  # type: ignore[union-attr]
                   penalty_seq=nxt.seq)  # type: ignore[union-attr]  # fmt: skip
        if ev.hand and isinstance(t, str) and Counter(ev.hand) != Counter(s.hand(t)):
            self.v("snapshot-mismatch", ev, f"pointed-not-say-uno shows {t}'s hand {_cards(ev.hand)}, replayed "
                   f"{_cards(s.hand(t))}", expected=_cards(s.hand(t)), actual=_cards(ev.hand), player=t)  # fmt: skip

    def _penalty(self, s: GameState, ev: E.Penalty, prev_was_action: bool) -> None:
        victim, err = ev.victim, ev.error or ""
        room = s.draw_pile + max(0, s.discard - 1)
        want = self.profile.uno.penalty if err == "Did not say uno." else self.profile.illegal_play_cards
        if len(ev.cards) != min(want, room):
            self.v("penalty-count", ev, f"penalty of {len(ev.cards)} cards for '{err}' ({want} by the rules)",
                   player=victim, expected=min(want, room), actual=len(ev.cards))  # fmt: skip
        if ev.seq in self.misdirected:
            sender = self.misdirected[ev.seq]
            self.v("penalty-unjustified", ev, f"'{err}' answers {sender}'s action, but the referee penalised {victim}: "
                   f"not {victim}'s fault", player=victim, expected=f"{err} on {sender}", actual=f"{err} on {victim}",
                   penalty_seq=ev.seq)  # fmt: skip
            return
        if prev_was_action:
            return
        # a refusal with no action line of its own: an out-of-turn draw, a draw by the challenged offender
        if err == "Next player invalid." and isinstance(victim, str) and victim != s.to_act and victim in s.seats:
            self.v("turn-owner", ev, f"{victim} acted out of turn ({s.to_act} is to act): a draw the referee refused",
                   player=victim, expected=s.to_act, actual=victim, penalty_seq=ev.seq)  # fmt: skip
        elif err == "Card play is required." and victim == s.must_play and victim == s.to_act:
            self.v("challenge-must-play", ev, f"{victim} drew instead of playing a correct card after the successful "
                   "challenge", player=victim, expected="a play", actual="draw", penalty_seq=ev.seq)  # fmt: skip
        elif err == "Did not say uno.":
            self.v("penalty-unjustified", ev, f"'Did not say uno.' for {victim} with no pointing line before it",
                   player=victim, expected="a pointing", actual=err, penalty_seq=ev.seq)  # fmt: skip
        else:
            self.v("penalty-unjustified", ev, f"penalty '{err}' for {victim}: no action of {victim} the rules refuse "
                   "comes before it", player=victim, expected="no penalty", actual=err, penalty_seq=ev.seq)  # fmt: skip

    # ------------------------------------------------------------------ referee lines

    def _first(self, s: GameState, ev: E.FirstPlayer, nxt: E.Event | None) -> None:
        prof = self.profile
        self.pair_cut = None
        if s.in_round:
            self.v("event-sequence", ev, f"round {s.round_no} never finished (no finish-turn)")
        lo, hi = prof.players
        seats = ev.seats
        if not lo <= len(seats) <= hi or len(set(seats)) != len(seats):
            self.v("player-count", ev, f"{len(seats)} seats {list(seats)}: the rules allow {lo}–{hi} players",
                   expected=f"{lo}–{hi}", actual=len(seats))  # fmt: skip
        problems = []
        sizes = {p: len(h) for p, h in ev.hands.items()}
        if set(sizes) != set(seats) or any(n != prof.hand_size for n in sizes.values()):
            problems.append(f"hands of {sizes} ({prof.hand_size} each)")
        if ev.first_card is None:
            problems.append("no first card")
        elif ev.first_card.special in prof.first_card.redeal:
            problems.append(f"first card {ev.first_card} (it is turned again)")
        if any(c.special not in prof.first_card.redeal for c in ev.returned):
            problems.append(f"returned first cards {_cards(ev.returned)} (only {', '.join(sorted(prof.first_card.redeal))} go back)")
        if seats and ev.first_player is not None and ev.first_player != seats[0]:
            problems.append(f"first_player {ev.first_player} is not seat 1 ({seats[0]})")
        if problems:
            self.v("deal-and-first-card", ev, "deal breaks the rules: " + "; ".join(problems))
        if prof.seating == "winner-deals" and self.circle is not None and seats:
            rotated = _rotation(self.circle, seats[0])
            if tuple(seats) != rotated or (self.last_winner is not None and seats[0] != self.last_winner):
                self.v("dealer-rotation", ev, f"round {ev.round_no} starts with {seats[0]} in order {list(seats)}; "
                       f"the rules: the last winner {self.last_winner} starts, seating {list(self.circle)}",
                       expected=self.last_winner, actual=seats[0])  # fmt: skip
        if seats:
            self.circle = tuple(seats)

    def _next_player(self, s: GameState, ev: E.NextPlayer, nxt: E.Event | None) -> None:
        if not M.handover_due(s):
            self.v("event-sequence", ev, f"turn handed to {ev.next_player} while {s.to_act} has not finished "
                   f"({'a colour choice' if s.gate == 'color' else 'the drawn card' if s.gate == 'play-draw' else 'the stack draw' if s.auto_draw else 'no action'} "
                   "is logged)", player=s.to_act)  # fmt: skip
        want = M.expected_next(s)
        self.rules_turn = want if want is not None and ev.next_player != want else None
        if want is not None and ev.next_player != want:
            self.v("next-seat", ev, f"turn given to {ev.next_player}, the rules give it to {want}",
                   player=ev.next_player, expected=want, actual=ev.next_player)  # fmt: skip
        if type(ev.turn_no) is int:
            counts_on = self.turn_log is not None and ev.turn_no == self.turn_log + 1  # the log's own count, shifted
            if ev.turn_no != s.turn_no + 1 and not counts_on:
                self.v("turn-counter", ev, f"number_turn_play {ev.turn_no}, expected {s.turn_no + 1}",
                       expected=s.turn_no + 1, actual=ev.turn_no)  # fmt: skip
            self.turn_log = ev.turn_no
        who = ev.next_player
        diffs = []
        if ev.before_player is not None and s.prev_actor is not None and ev.before_player != s.prev_actor:
            diffs.append(("before_player", s.prev_actor, ev.before_player))
        if ev.card_before is not None and ev.card_before != s.top:
            diffs.append(("card_before", s.top, ev.card_before))
        if who and ev.hand_raw is not None and Counter(E.cards_of(ev.hand_raw)) != Counter(s.hand(who)):
            diffs.append(("card_of_player", _cards(s.hand(who)), _cards(E.cards_of(ev.hand_raw))))
        counts = {p: len(h) for p, h in s.hands.items()}
        if ev.counts and any(counts.get(p) != n for p, n in ev.counts.items()):
            diffs.append(("number_card_of_player", counts, ev.counts))
        if isinstance(ev.turn_right, bool) and ev.turn_right != s.direction:
            diffs.append(("turn_right", s.direction, ev.turn_right))
        if isinstance(ev.must_call_draw_card, bool) and ev.must_call_draw_card != bool(s.stack):
            diffs.append(("must_call_draw_card", bool(s.stack), ev.must_call_draw_card))
        if isinstance(ev.must_play_card, bool) and ev.must_play_card != (s.must_play is not None):
            diffs.append(("must_play_card", s.must_play is not None, ev.must_play_card))
        if type(ev.number_card_play) is int and ev.number_card_play != s.cards_played:
            self.v("cards-played-counter", ev, f"number_card_play {ev.number_card_play}, replayed {s.cards_played}",
                   expected=s.cards_played, actual=ev.number_card_play, player=who)  # fmt: skip
        if diffs:
            self.v("next-player-contents", ev, "next-player payload differs in " + ", ".join(d[0] for d in diffs),
                   expected="; ".join(f"{k}={e}" for k, e, _ in diffs),
                   actual="; ".join(f"{k}={x}" for k, _, x in diffs), player=who)  # fmt: skip
        if isinstance(ev.draw_reason, str) and ev.draw_reason != M.draw_reason(s.stack):
            self.v("stack-total", ev, f"draw_reason {ev.draw_reason!r}, the stack is {_stack_text(s.stack)}",
                   expected=M.draw_reason(s.stack), actual=ev.draw_reason, player=who)  # fmt: skip
        self._stack_field(ev, ev.draw_stack, s.stack)

    def _color_request(self, s: GameState, ev: E.ColorChangeRequest, nxt: E.Event | None) -> None:
        if s.gate != "color":
            self.v("event-sequence", ev, f"color-change-request asks {ev.chooser}; no colour is to be chosen",
                   expected=s.chooser, actual=ev.chooser)  # fmt: skip
        elif ev.chooser is not None and ev.chooser != s.chooser:
            # the referee asked the wrong player (R5): its fault; the player who answers the request is not at fault
            known = isinstance(ev.chooser, str) and ev.chooser in s.hands
            self.v("next-seat" if known else "echo-fields", ev, f"color-change-request asks {ev.chooser} for the "
                   f"colour of the first-card wild; the rules give the choice to {s.chooser}", expected=s.chooser,
                   actual=ev.chooser)  # fmt: skip

    def _color(self, s: GameState, ev: E.ColorOfWild, nxt: E.Event | None) -> None:
        if s.color_echo is not None and not (s.gate == "color" and s.chooser == ev.player):
            if s.top is not None and ev.color_raw != s.top.color or ev.player not in (None, s.color_echo):
                self.v("echo-fields", ev, f"color-of-wild echoes {ev.color_raw!r} for {ev.player}; {s.color_echo} "
                       f"chose {s.top.color if s.top else None}", expected=s.top.color if s.top else None,
                       actual=ev.color_raw)  # fmt: skip
            return
        self._action(s, ev, nxt, f"color-of-wild {ev.color_raw!r} by {ev.player}")

    def _finish_turn(self, s: GameState, ev: E.FinishTurn, nxt: E.Event | None) -> None:
        winner = s.winner
        stalled = winner is None and (s.stall >= self.profile.no_progress_laps * max(1, len(s.seats))
                                      or s.turn_no >= self.profile.turn_limit)  # R25, R26
        if winner is None and not stalled:
            self.v("round-end", ev, f"round {s.round_no} ends with nobody out of cards", expected="a winner",
                   actual=ev.winner)  # fmt: skip
        elif ev.winner != winner:
            self.v("round-end", ev, f"finish-turn names {ev.winner} the winner; the rules: {winner}",
                   expected=winner, actual=ev.winner)  # fmt: skip
        if winner is not None and s.stack:
            self.v("stack-total", ev, f"the last card's stack {_stack_text(s.stack)} was not drawn by "
                   f"{M.next_seat(s, winner)}", expected=M.stack_total(s.stack), actual=0)  # fmt: skip
        hands = {p: s.hand(p) for p in s.seats}
        if ev.hands and any(Counter(ev.hands.get(p, ())) != Counter(h) for p, h in hands.items()):
            diff = [p for p, h in hands.items() if Counter(ev.hands.get(p, ())) != Counter(h)]
            self.v("finish-hands", ev, f"finish-turn hands of {', '.join(diff)} differ from the replay",
                   expected="; ".join(f"{p}={_cards(hands[p])}" for p in diff),
                   actual="; ".join(f"{p}={_cards(ev.hands.get(p, ()))}" for p in diff))  # fmt: skip
        want = self.profile.scoring.round(hands, ev.winner if isinstance(ev.winner, str) else winner)
        got = {p: v for p, v in ev.scores.items() if type(v) is int}
        if ev.scores and got != want:
            self.v("round-score", ev, f"round scores {got}, the rules give {want}", expected=want, actual=got)
        totals = dict(s.totals)
        for p, v in want.items():
            totals[p] = totals.get(p, 0) + v
        logged = {p: v for p, v in ev.totals.items() if type(v) is int}
        if ev.totals and logged != totals:
            self.v("total-score", ev, f"total scores {logged}, the rounds add up to {totals}", expected=totals,
                   actual=logged)  # fmt: skip
        self.history.append(totals)
        self.rounds_done += 1
        self.last_winner = winner if winner is not None else ev.winner if isinstance(ev.winner, str) else None

    def _finish_game(self, s: GameState, ev: E.FinishGame, nxt: E.Event | None) -> None:
        want_rounds = self.profile.rounds
        if want_rounds is not None and self.rounds_done != want_rounds:
            self.v("round-count", ev, f"the match ends after {self.rounds_done} rounds; the rules play {want_rounds}",
                   expected=want_rounds, actual=self.rounds_done)  # fmt: skip
        totals = dict(s.totals)
        wins = {p: s.wins.get(p, 0) for p in totals}
        problems = []
        got = {p: v for p, v in ev.scores.items() if type(v) is int}
        if ev.scores and got != totals:
            problems.append(f"scores {got}, totals {totals}")
        order = {p: v for p, v in ev.order.items() if type(v) is int}
        if ev.order and order != wins:
            problems.append(f"order {order}, rounds won {wins}")
        if totals:
            top = max(totals.values())
            tied = [p for p, v in totals.items() if v == top]
            first = next((p for h in self.history for p in tied if h.get(p, -10**9) >= top), tied[0])
            if ev.winner is not None and ev.winner not in tied or (len(tied) > 1 and ev.winner != first):
                problems.append(f"winner {ev.winner}, the rules give {first}")
        if problems:
            self.v("match-result", ev, "match result differs: " + "; ".join(problems))

    # ------------------------------------------------------------------ the board against the log

    def _desk(self, ev: E.Event, a: GameState) -> GameState:
        """The line's desk against the replayed board; after a difference the replay follows the desk's hands and
        piles (one difference is one finding). A card a desk takes out of a hand stays the player's to play: what
        the log's own lines put in a hand is not a foul to play (``desk_removed``)."""
        snap = E.Snapshot.parse(ev.desk)
        if snap is None:
            return a
        diffs = self.line_diffs
        hands = dict(a.hands)
        for p in a.seats:
            got = snap.hands.get(p)
            if isinstance(ev, E.FinishTurn) and ev.hands:
                break  # the final hands are finish-turn's own field (finish-hands)
            if got is not None and Counter(got) != Counter(a.hand(p)):
                diffs.append((f"hand {p}", _cards(a.hand(p)), _cards(got)))
                self.desk_removed[p] = self.desk_removed.get(p, Counter()) + (Counter(a.hand(p)) - Counter(got))
                hands[p] = got
        if snap.top is not None and a.top is not None and snap.top != a.top:
            diffs.append(("before_card_play", a.top, snap.top))
        if isinstance(snap.turn_right, bool) and snap.turn_right != a.direction:
            diffs.append(("turn_right", a.direction, snap.turn_right))
        if type(snap.draw) is int and snap.draw != a.draw_pile:
            diffs.append(("draw_desk_number", a.draw_pile, snap.draw))
        if type(snap.reveal) is int and snap.reveal != a.discard:
            diffs.append(("reveal_desk_number", a.discard, snap.reveal))
        stack = ev.desk.get("draw_stack") if isinstance(ev.desk, dict) else None
        if isinstance(stack, dict) and type(stack.get("number")) is int and stack["number"] != M.stack_total(a.stack):
            diffs.append(("draw_stack", M.stack_total(a.stack), stack["number"]))
        if diffs:
            a = a.replace(hands=frozen(hands), draw_pile=snap.draw if type(snap.draw) is int else a.draw_pile,
                          discard=snap.reveal if type(snap.reveal) is int else a.discard)  # fmt: skip
        seen = Counter(self.discards)
        for h in snap.hands.values():
            seen.update(h)
        for c, n in seen.items():
            if n > self.deck.get(c, 0) and c not in self.desk_faces:
                self.desk_faces.add(c)
                self.reported_faces.add(c)
                self.v("conservation", ev, f"the desk shows {n} copies of {c} in play; the deck holds "
                       f"{self.deck.get(c, 0)}: a card from nowhere", expected=self.deck.get(c, 0), actual=n)  # fmt: skip
        return a

    def _conserve(self, ev: E.Event, a: GameState) -> None:
        if not a.in_round:
            return
        seen = Counter(self.discards)
        for h in a.hands.values():
            seen.update(h)
        over = [(c, n) for c, n in seen.items() if n > self.deck.get(c, 0) and c not in self.reported_faces]
        for c, n in over:
            self.reported_faces.add(c)
            self.v("conservation", ev, f"{n} copies of {c} in play; the deck holds {self.deck.get(c, 0)}: a card "
                   "from nowhere", expected=self.deck.get(c, 0), actual=n)  # fmt: skip


def _rotation(circle: tuple[str, ...], first: str) -> tuple[str, ...]:
    if first not in circle:
        return circle
    i = circle.index(first)
    return circle[i:] + circle[:i]


_JUDGES: dict[type, Any] = {
    E.FirstPlayer: ProfileReplay._first,
    E.NextPlayer: ProfileReplay._next_player,
    E.PlayCard: ProfileReplay._play,
    E.PlayDrawCard: ProfileReplay._play_draw,
    E.DrawCard: ProfileReplay._draw,
    E.Challenge: ProfileReplay._challenge,
    E.PublicCard: ProfileReplay._public,
    E.PointedNotSayUno: ProfileReplay._point,
    E.ColorChangeRequest: ProfileReplay._color_request,
    E.ColorOfWild: ProfileReplay._color,
    E.FinishTurn: ProfileReplay._finish_turn,
    E.FinishGame: ProfileReplay._finish_game,
}


def replay(profile: Profile, activities: Iterable[dict[str, Any]], *, match_id: str | None = None) -> Iterator[Frame]:
    r = ProfileReplay(profile, match_id=match_id)
    for a in activities:
        yield from r.feed(a)
    yield from r.close()
