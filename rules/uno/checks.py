"""Judging the replay: player-rule and dealer-judgement checks, event by event.

:class:`Judge` looks at (state before, event, state after) and reports
:class:`~rules.core.Violation` records.  Player actions are judged with the dealer's own
validation order (``verdicts``) and compared with what the dealer actually did (the
``rejected`` penalty the adapter attached), so that

* a foul is reported against the player (``player-rule``), linked through
  ``penalty_seq`` to the dealer's ``penalty`` line when there is one;
* a dealer decision that differs from the rules is reported as ``dealer-judgement``,
  never as the player's fault;
* every ``penalty`` line is explained by a violation of the penalised player, including
  timeouts and penalties for actions the dealer does not log (an out-of-turn draw or
  challenge, an invalid challenge).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rules.core import ERROR, INFO, WARNING, Violation
from rules.uno import events as E
from rules.uno import verdicts as V
from rules.uno.catalog import CHECKS, ERROR_TO_CODE
from rules.uno.cards import Card
from rules.uno.state import HAND_CAP, GameState, hand_points, playable
from rules.uno.timing import LIMIT_MS, TOLERANCE_MS
from rules.uno.transitions import NO_TURN_EFFECT, expected_next, is_dealer_color_line

NO_PROGRESS_LIMIT = 40


def _cards(cards: Any) -> str:
    return "[" + ", ".join(sorted(map(str, cards))) + "]"


#: Characters of a special-logic title shown in a finding (a longer one is cut, and the cut is shown).
TITLE_SHOWN = 40


def _title(v: Any) -> str:
    """A special-logic title for a finding: ``'TTTT…' (49 characters)`` when cut, with its closing quote."""
    if isinstance(v, str) and len(v) > TITLE_SHOWN:
        quoted = repr(v[:TITLE_SHOWN])
        return f"{quoted[:-1]}…{quoted[-1]} ({len(v)} characters)"
    raw = _raw(v)
    return raw if len(raw) <= TITLE_SHOWN + 10 else f"{raw[:TITLE_SHOWN + 9]}…"


def _raw(v: Any) -> str:
    if v is E.MISSING:
        return "(missing)"
    if v is None:
        return "null"  # what the bot sent, as the log writes it
    if isinstance(v, dict) and (c := E.card_of(v)) is not None:
        return str(c)
    return repr(v)


class Judge:
    """Stateful judge for one match (keeps what spans events: open UNO windows, titles, totals)."""

    def __init__(self, ruleset: Any = None) -> None:
        self.ruleset = ruleset
        self.explained: set[int] = set()
        self.titles: dict[str, set[str]] = {}
        self.registry_reported: set[str] = set()
        self.unyelled: dict[str, tuple[int, int | None, int | None]] = {}
        self.history: list[dict[str, int]] = []
        self.short_draw = False
        self.last_played: Card | None = None
        self.last_card_actor: str | None = None  # who played the last accepted card (rules' UNO window)
        self.winner_drew = False  # a draw-card came after the winning card (last-card effect)
        self.exhausted_round: int | None = None
        self.awaiting: tuple[type, str, int] | None = None  # the line the dealer writes next, in the same step
        self.prev_kind: str | None = None
        self.rules_turn: str | None = None  # the rules' player when the last next-player named another seat
        self.stated_top: Card | None = None  # the top the last next-player shows, when it is not the replay's
        self.turn_given_at: int | None = None  # the last next-player's timestamp
        self.out: list[Violation] = []
        self.before: GameState | None = None
        from rules.uno.consistency import HandMatcher

        self.matcher = HandMatcher()
        self.clock: Any = None  # the replay's timing.Clock: what the log proves about a timeout
        # After a counter differs the state follows the log; the replay's own count stays a second
        # hypothesis until the next hand-over (own = log + offset), so a one-off wrong field is
        # reported once and a lost line's shifted count is adopted, both without a run of findings.
        self.turn_alt: int | None = None
        self.cards_alt: int | None = None
        self.bind_fresh = False  # the line before was the white wild that bound the next player

    def new_deal(self, seq: int, round_no: int | None) -> None:
        """A new round is dealt: forget what only mattered to the rounds before it.

        Penalties explained before the deal are never looked up again (a verdict line is at
        most one line away from its action); the deck-exhaustion note of another round number
        no longer applies.  Keeping the judge's memory per round is what lets rounds be
        replayed apart (:mod:`rules.uno.rounds`).
        """
        self.explained = {s for s in self.explained if s is not None and s >= seq - 2}
        if self.exhausted_round != round_no:
            self.exhausted_round = None

    # ------------------------------------------------------------------ plumbing

    def v(self, code: str, ev: E.Event | None, message: str, *, player: Any = None, seq: int | None = None,
          expected: Any = None, actual: Any = None, penalty_seq: int | None = None,
          severity: str | None = None, s: GameState | None = None) -> None:  # fmt: skip
        check = CHECKS[code]
        s = s or self.before
        self.out.append(
            Violation(
                code=code, family=check.family, severity=severity or check.severity, message=message,
                seq=seq if seq is not None else (ev.seq if ev is not None else None),
                round_no=ev.round_no if ev is not None and ev.round_no is not None else (s.round_no if s else None),
                turn_no=ev.turn_no if ev is not None and ev.turn_no is not None else (s.turn_no if s else None),
                player=player if isinstance(player, str) else (ev.player if ev is not None else None),
                expected=None if expected is None else str(expected),
                actual=None if actual is None else str(actual), penalty_seq=penalty_seq,
            )
        )  # fmt: skip

    def check(self, b: GameState, ev: E.Event, a: GameState) -> list[Violation]:
        self.out = []
        self.before = b
        self._sequence(b, ev, a)
        fn = _DISPATCH.get(type(ev))
        if fn is not None:
            fn(self, b, ev, a)
        if isinstance(ev, TURN_ECHOES) and ev.turn_no is not None and b.in_round and b.turn_no > 0 \
                and not self._same_turn(ev.turn_no, b) \
                and not (isinstance(ev, E.ColorOfWild) and is_dealer_color_line(b, ev)):  # fmt: skip
            self.v("echo-fields", ev, f"{ev.kind} carries number_turn_play {ev.turn_no}, the current turn is {b.turn_no}",
                   expected=b.turn_no, actual=ev.turn_no)  # fmt: skip
        self._echoes(b, ev, a)
        self.bind_fresh = isinstance(ev, (E.PlayCard, E.PlayDrawCard)) and a.cards_played == b.cards_played + 1 \
            and a.top is not None and a.top.special == "white_wild"  # fmt: skip
        self._uno_windows(ev, a)
        return self.out

    def _same_turn(self, turn_no: int, b: GameState) -> bool:
        """``turn_no`` is the current turn, by the log's count or (after a difference) the replay's own."""
        return turn_no == b.turn_no or (self.turn_alt is not None and turn_no == b.turn_no + self.turn_alt)

    def _echoes(self, b: GameState, ev: E.Event, a: GameState) -> None:
        """Dealer-written fields no event handler compares: round number, the dealer's empty actor,
        actors and cards the dealer echoes, draw-desk and pointing data (docs/rules/algori-fields.md)."""
        if b.in_round and b.round_no > 0 and ev.round_no is not None and ev.round_no != b.round_no \
                and not isinstance(ev, E.FirstPlayer):  # fmt: skip
            self.v("echo-fields", ev, f"{ev.kind} carries round (turn) {ev.round_no}, the current round is {b.round_no}",
                   expected=b.round_no, actual=ev.round_no)  # fmt: skip
        if isinstance(ev, DEALER_LINES) and ev.player is not None:
            self.v("echo-fields", ev, f"{ev.kind} is a dealer line but names player {ev.player!r} (the dealer writes \"\")",
                   expected="", actual=ev.player, player=None)  # fmt: skip
        if isinstance(ev, E.DrawCard):
            if type(ev.before_n) is int and ev.before_n != b.draw_pile and ev.player is not None:
                self.v("snapshot-mismatch", ev, f"draw_desk.before {ev.before_n}, replayed draw pile {b.draw_pile}",
                       expected=b.draw_pile, actual=ev.before_n)  # fmt: skip
            shown = E.card_of(ev.before_card)
            if ev.before_card is not None and ev.can_play is True and ev.cards and shown != ev.cards[0]:
                self.v("echo-fields", ev, f"draw-card before_card {_raw(ev.before_card)}, the playable drawn card is "
                       f"{ev.cards[0]}", expected=ev.cards[0], actual=_raw(ev.before_card))  # fmt: skip
        elif isinstance(ev, E.PlayDrawCard):
            if ev.card_raw is not None and b.drawn_card is not None and ev.card != b.drawn_card:
                self.v("echo-fields", ev, f"play-draw-card card_play {_raw(ev.card_raw)}, the drawn card is "
                       f"{b.drawn_card}", expected=b.drawn_card, actual=_raw(ev.card_raw))  # fmt: skip
        elif isinstance(ev, E.PointedNotSayUno):
            if ev.pointer is not None and ev.pointer != ev.player:
                self.v("echo-fields", ev, f"pointed-not-say-uno pointer {_raw(ev.pointer)}, sent by {ev.player}",
                       expected=ev.player, actual=_raw(ev.pointer))  # fmt: skip
            t = ev.target
            if isinstance(t, str) and t in b.seats:
                diffs = []
                if isinstance(ev.have_say_uno, bool) and ev.have_say_uno != b.yell.get(t, False):
                    diffs.append(("have_say_uno", str(b.yell.get(t, False)).lower(), str(ev.have_say_uno).lower()))
                if Counter(ev.hand) != Counter(b.hand(t)):
                    diffs.append(("card_of_player", _cards(b.hand(t)), _cards(ev.hand)))
                if diffs:
                    self.v("snapshot-mismatch", ev, f"pointed-not-say-uno shows {t}'s " + ", ".join(d[0] for d in diffs)
                           + " unlike the replayed board", expected="; ".join(f"{k}={e}" for k, e, _ in diffs),
                           actual="; ".join(f"{k}={x}" for k, _, x in diffs), player=t)  # fmt: skip
        elif isinstance(ev, (E.ColorChangeRequest, E.ShuffleWild)):
            who = ev.chooser if isinstance(ev, E.ColorChangeRequest) else ev.shuffler
            if b.chooser is not None and who is not None and who != b.chooser:
                what = "asks" if isinstance(ev, E.ColorChangeRequest) else "names as the shuffler"
                self.v("echo-fields", ev, f"{ev.kind} {what} {who}, but {b.chooser} played the card that asks for a "
                       "colour", expected=b.chooser, actual=who, player=b.chooser)  # fmt: skip

    def _sequence(self, b: GameState, ev: E.Event, a: GameState) -> None:
        """Lines the dealer writes together, in one processing step (rules digest Appendix A)."""
        awaiting, self.awaiting = self.awaiting, None
        if awaiting is not None and not isinstance(ev, awaiting[0]):
            self.v("event-sequence", ev, f"{awaiting[1]} line missing after seq {awaiting[2]} (the dealer writes "
                   f"it right after that line; found {ev.kind})", expected=awaiting[1], actual=ev.kind)  # fmt: skip
        if isinstance(ev, E.Challenge) and V.truthy(ev.is_challenge_raw) and self.prev_kind != "public-card":
            self.v("event-sequence", ev, "challenge line without the public-card line the dealer writes before it",
                   expected="public-card", actual=self.prev_kind)  # fmt: skip
        self.prev_kind = ev.kind
        if isinstance(ev, E.PublicCard):
            self.awaiting = (E.Challenge, "challenge", ev.seq)
        elif isinstance(ev, E.ShuffleWild) or (isinstance(ev, E.FirstPlayer) and a.first_turn == "wild"):
            self.awaiting = (E.ColorChangeRequest, "color-change-request", ev.seq)
        elif isinstance(ev, E.PlayCard) and a.color_echo is not None and b.color_echo is None:
            self.awaiting = (E.ColorOfWild, "the dealer's color-of-wild", ev.seq)

    def finish(self, s: GameState) -> list[Violation]:
        self.out = []
        self._uno_windows(None, s.replace(in_round=False))
        return self.out

    # ------------------------------------------------------------------ shared judgement

    def _judge_action(self, b: GameState, ev: Any, expected: str | None, what: str) -> None:
        """Compare the rules' verdict on an action with the dealer's (``ev.rejected``)."""
        actual = ev.rejected
        wrong_seat = getattr(ev, "misdirected", None)
        if actual is not None and wrong_seat is not None:
            # the dealer refused this action but penalised another player: the actor's own line proves
            # the actor's foul (if any), the penalised player did nothing the log shows
            self.explained.add(ev.penalty_seq)
            if expected is not None:
                self.v(ERROR_TO_CODE.get(expected, "turn-owner"), ev, f"{what}: {expected} (the dealer penalised "
                       f"{wrong_seat} instead)", expected=expected, actual=f"{actual} on {wrong_seat}")  # fmt: skip
            self.v("penalty-unjustified", ev, f"{what}: the dealer answered '{actual}' but penalised {wrong_seat}, "
                   f"not the sender {ev.player} — not {wrong_seat}'s fault", player=wrong_seat,
                   expected=f"{expected or 'no penalty'} on {ev.player}", actual=f"{actual} on {wrong_seat}",
                   seq=ev.penalty_seq, penalty_seq=ev.penalty_seq)  # fmt: skip
            return
        if actual is not None:
            self.explained.add(ev.penalty_seq)
            if expected is None:
                self.v("penalty-unjustified", ev, f"{what}: the dealer answered '{actual}', but the action is legal",
                       expected="accepted", actual=actual, penalty_seq=ev.penalty_seq)  # fmt: skip
                return
            self.v(ERROR_TO_CODE.get(expected, "turn-owner"), ev, f"{what}: {expected}", expected=expected,
                   actual=actual, penalty_seq=ev.penalty_seq)  # fmt: skip
            if expected != actual:
                self.v("penalty-cause", ev, f"{what}: penalised as '{actual}', the rules give '{expected}' first",
                       expected=expected, actual=actual, penalty_seq=ev.penalty_seq)  # fmt: skip
            return
        if expected is None:
            return
        silent = len(b.hand(ev.player)) == HAND_CAP and expected not in NO_TURN_EFFECT - {"Next player invalid."}
        earlier = type(ev.date_ms) is int and type(self.turn_given_at) is int and ev.date_ms < self.turn_given_at
        if expected == "Next player invalid." and not silent and (ev.player == self.rules_turn or earlier):
            # The dealer handed the turn to the wrong seat (a next-seat finding) and then accepted the action of
            # the player the rules give the turn to, or the action is timed before the hand-over it is judged
            # against (lines out of order): the log does not prove the sender acted out of turn; the referee's
            # records contradict each other (docs/rules/algori-uno.md "Who is blamed").
            why = "whose turn it is by the rules" if ev.player == self.rules_turn else \
                "written before the next-player it follows"  # fmt: skip
            self.v("missing-penalty", ev, f"{what}: accepted from {ev.player} ({why}), although the dealer's "
                   f"next-player named {b.to_act}: the dealer's records contradict each other (not counted against "
                   f"{ev.player})", expected=expected, actual="accepted")  # fmt: skip
            return
        note = " (refused without a penalty line: the hand already holds 25 cards)" if silent else ""
        self.v(ERROR_TO_CODE.get(expected, "turn-owner"), ev, f"{what}: {expected}{note}", expected=expected,
               actual="no penalty line" if silent else "accepted")  # fmt: skip
        if silent:
            self.v("penalty-cap-silent", ev, f"{what}: refused ('{expected}') with no penalty line because the hand "
                   "holds 25 cards; the rules draw up to the 25-card limit, the dealer writes nothing but still "
                   "takes the turn", expected="a penalty line (0 cards)", actual="no line")  # fmt: skip
        if not silent:
            self.v("missing-penalty", ev, f"{what}: accepted although the rules refuse it ('{expected}')",
                   expected=expected, actual="accepted")  # fmt: skip

    # ------------------------------------------------------------------ events

    def join_room(self, b: GameState, ev: E.JoinRoom, a: GameState) -> None:
        # (before the deal the profile is not known yet: a JUA table seats up to 10; the deal judges the count)
        if b.round_no and ev.code is not None and ev.code not in b.players and len(b.players) >= SEATS:
            self.v("player-count", ev, f"join-room of {ev.code} during the match, after {len(b.players)} players "
                   f"joined ({', '.join(b.players)}): a dealer seats {SEATS}", expected=f"{SEATS} players",
                   actual=f"{len(b.players) + 1} players", player=None, s=b)  # fmt: skip

    def first_player(self, b: GameState, ev: E.FirstPlayer, a: GameState) -> None:
        expected_round = b.round_no + 1
        if ev.round_no is not None and ev.round_no != expected_round and b.round_no:
            self.v("event-sequence", ev, f"round {ev.round_no} follows round {b.round_no}",
                   expected=expected_round, actual=ev.round_no, s=b)  # fmt: skip
        if b.in_round:
            self.v("event-sequence", ev, f"round {b.round_no} never finished (no finish-turn)", s=b)
        if b.round_no == 0 and len(b.players) > SEATS:
            self.v("player-count", ev, f"{len(b.players)} players joined ({', '.join(b.players)}): a dealer seats "
                   f"{SEATS}; the deal seats {', '.join(ev.seats)}", expected=f"{SEATS} players",
                   actual=f"{len(b.players)} players", player=None, s=b)  # fmt: skip
        if b.players and b.round_no == 0 and set(ev.seats) - set(b.players):
            self.v("event-sequence", ev, f"no join-room line for {', '.join(sorted(set(ev.seats) - set(b.players)))}",
                   expected="a join-room per seat", actual=f"join-room for {', '.join(b.players)}", s=b)  # fmt: skip
        self.short_draw = False
        self.last_played = None
        self.last_card_actor = None
        self.winner_drew = False
        sizes = {p: len(h) for p, h in ev.hands.items()}
        problems = []
        if len(ev.seats) != 4 or len(set(ev.seats)) != len(ev.seats):
            problems.append(f"seat order {list(ev.seats)}")
        if any(n != 7 for n in sizes.values()) or set(sizes) != set(ev.seats):
            problems.append(f"hands of {sizes}")
        if ev.first_card is not None and ev.first_card.special in ("wild_draw_4", "wild_shuffle", "white_wild"):
            problems.append(f"first card {ev.first_card}")
        if ev.seats and ev.first_player != ev.seats[0]:
            problems.append(f"first_player {ev.first_player} is not seat 1 ({ev.seats[0]})")
        if problems:
            self.v("deal-and-first-card", ev, "deal breaks the rules: " + "; ".join(problems), s=a)
        self._conservation(ev, a)

    def next_player(self, b: GameState, ev: E.NextPlayer, a: GameState) -> None:
        expected, expected_turn, why = expected_next(b)
        self.rules_turn = expected if expected is not None and ev.next_player != expected else None
        self.stated_top = ev.card_before if ev.card_before is not None and ev.card_before != a.top else None
        self.turn_given_at = ev.date_ms
        if expected is not None and ev.next_player != expected:
            self.v("next-seat", ev, f"turn given to {ev.next_player}, the rules give it to {expected} ({why})",
                   player=ev.next_player, expected=expected, actual=ev.next_player)  # fmt: skip
        if ev.turn_no is not None and ev.turn_no != expected_turn:
            if self.turn_alt is None or ev.turn_no != expected_turn + self.turn_alt:
                self.v("turn-counter", ev, f"number_turn_play {ev.turn_no}, expected {expected_turn}",
                       expected=expected_turn, actual=ev.turn_no, player=ev.next_player)  # fmt: skip
                self.turn_alt = expected_turn - ev.turn_no  # the state follows the log (hand_over)
            else:
                self.turn_alt = None  # the line before was the odd one: back on the replay's count
        elif ev.turn_no is not None:
            self.turn_alt = None
        diffs = []
        if ev.before_player is not None and b.prev_actor is not None and ev.before_player != b.prev_actor:
            diffs.append(("before_player", b.prev_actor, ev.before_player))
        if ev.card_before is not None and ev.card_before != a.top:
            diffs.append(("card_before", a.top, ev.card_before))
        if ev.next_player and ev.hand_raw is not None and not self.matcher.same(
            ("next", ev.next_player), ev.hand_raw, a.hand(ev.next_player)
        ):
            diffs.append(("card_of_player", _cards(a.hand(ev.next_player)), _cards(E.cards_of(ev.hand_raw))))
        counts = {p: len(h) for p, h in a.hands.items()}
        if ev.counts and any(counts.get(p) != n for p, n in ev.counts.items()):
            diffs.append(("number_card_of_player", counts, ev.counts))
        if isinstance(ev.turn_right, bool) and ev.turn_right != a.direction:
            diffs.append(("turn_right", a.direction, ev.turn_right))
        if isinstance(ev.must_call_draw_card, bool) and ev.must_call_draw_card != a.owes_draw:
            diffs.append(("must_call_draw_card", a.owes_draw, ev.must_call_draw_card))
        reason = self._next_draw_reason(b, ev.next_player)
        if isinstance(ev.draw_reason, str) and ev.draw_reason != reason:
            diffs.append(("draw_reason", reason, ev.draw_reason))
        if diffs:
            self.v("next-player-contents", ev, "next-player payload differs in " + ", ".join(d[0] for d in diffs),
                   expected="; ".join(f"{k}={e}" for k, e, _ in diffs),
                   actual="; ".join(f"{k}={x}" for k, _, x in diffs), player=ev.next_player)  # fmt: skip
        if a.in_round and a.draw_pile == 0 and a.discard <= 1 and self.exhausted_round != a.round_no:
            self.exhausted_round = a.round_no
            self.v("deck-exhausted-continues", ev, f"round {a.round_no} goes on with an empty draw pile and "
                   f"{a.discard} discard: the rules end it here, the dealer only when a draw comes up short",
                   expected="round ends", actual="round continues", player=ev.next_player)  # fmt: skip
        if type(ev.number_card_play) is int and ev.number_card_play != b.cards_played:
            if self.cards_alt is None or ev.number_card_play != b.cards_played + self.cards_alt:
                self.v("cards-played-counter", ev, f"number_card_play {ev.number_card_play}, replayed {b.cards_played}",
                       expected=b.cards_played, actual=ev.number_card_play, player=ev.next_player)  # fmt: skip
                self.cards_alt = b.cards_played - ev.number_card_play  # the state follows the log (transitions._next)
            else:
                self.cards_alt = None
        elif type(ev.number_card_play) is int:
            self.cards_alt = None
        self._conservation(ev, a)

    def _next_draw_reason(self, b: GameState, nxt: Any) -> str:
        """next-player's draw_reason, computed as the dealer does from the state before the hand-over
        (digest §3.7): a bind label only on the turn right after the white wild (later bound turns
        say ``nothing``), else the pending draw's card, else ``nothing``."""
        if (b.owes_draw or self.bind_fresh) and b.bind.get(nxt, 0) > 0:
            return b.white_wild or "skip_bind_2"
        if b.owes_draw and b.pending > 0 and b.top is not None and b.top.special in ("draw_2", "wild_draw_4"):
            return b.top.special
        return "nothing"

    def _turn_proved(self, b: GameState, ev: Any) -> GameState:
        """The state an action is judged in.  After a next-player that named another seat than the
        rules (a ``next-seat`` finding), the action of the player the rules give the turn to is
        judged as that player's turn: the log does not prove it out of turn."""
        if ev.player is not None and ev.player == self.rules_turn and ev.player != b.to_act and b.gate is None:
            return b.replace(to_act=ev.player)
        return b

    def _proved(self, verdict: Any, b: GameState, ev: Any) -> str | None:
        """The rules' verdict on an action in the state the log proves: when the dealer's last
        next-player shows another top card than the replay holds, the log states two boards; an
        action legal on either is not proven illegal."""
        b = self._turn_proved(b, ev)
        expected = verdict(b, ev)
        stated, self.stated_top = self.stated_top, None  # the next play puts a card of its own on top
        if expected is not None and stated is not None and b.top != stated and verdict(b.replace(top=stated), ev) is None:
            return None
        return expected

    def play_card(self, b: GameState, ev: E.PlayCard, a: GameState) -> None:
        expected = self._proved(V.play_card, b, ev)
        what = f"play-card {_raw(ev.card_raw)} on {b.top}"
        self._judge_action(b, ev, expected, what)
        self._colour_departure(ev, ev.card)
        self._predicted(b, ev, ev.card)
        if ev.rejected is None and expected is None and ev.card is not None:
            self._after_play(b, ev, ev.card, ev.yell_raw)

    def play_draw_card(self, b: GameState, ev: E.PlayDrawCard, a: GameState) -> None:
        expected = self._proved(V.play_draw_card, b, ev)
        card = b.drawn_card
        what = f"play-draw-card is_play_card={_raw(ev.is_play_raw)} (drawn {card if card is not None else 'no card'})"
        self._judge_action(b, ev, expected, what)
        if V.truthy(ev.is_play_raw):
            self._colour_departure(ev, card)
        if V.truthy(ev.is_play_raw) and card is not None:
            self._predicted(b, ev, card)
            if ev.rejected is None and expected is None:
                self._after_play(b, ev, card, ev.yell_raw)

    def _colour_departure(self, ev: Any, card: Card | None) -> None:
        """Digest X2: the rules keep a colourless wild played; the dealer refuses the whole play."""
        if ev.rejected not in ("Color of wild is required.", "Color wild invalid.") or card is None \
                or card.special not in ("wild", "wild_draw_4"):  # fmt: skip
            return
        effect = "; no draw 4 for the next player" if card.special == "wild_draw_4" else ""
        self.v("wild-colour-rejected", ev, f"{ev.kind} {card} without a valid colour ({ev.rejected}): the dealer "
               f"returned the card to the hand{effect}; the rules keep it played on the previous colour "
               f"(2 penalty cards)", expected="card stays played, previous colour continues",
               actual="whole play refused", penalty_seq=ev.penalty_seq)  # fmt: skip

    def _after_play(self, b: GameState, ev: Any, card: Card, yell: Any) -> None:
        hand = b.hand(ev.player)
        self.last_played = card
        self.last_card_actor = ev.player
        if card.special == "wild_draw_4":
            others = list(hand)
            others.remove(card)
            alternatives = [c for c in others if c.special != "wild_draw_4" and playable(c, b.top)]
            if alternatives:
                self.v("wd4-bluff", ev, f"wild draw 4 on {b.top} while holding {_cards(alternatives)}",
                       expected="no other playable card", actual=_cards(alternatives))  # fmt: skip
        if len(hand) == 2 and not V.truthy(yell) and card.special != "wild_shuffle":
            self.unyelled[ev.player] = (ev.seq, ev.round_no, ev.turn_no)

    def _predicted(self, b: GameState, ev: Any, card: Card | None) -> None:
        p = ev.player
        if card is None or p not in b.seats or not isinstance(ev.next_player, str):
            return
        skip = None
        if card.special == "skip" or (card.special == "white_wild" and b.white_wild != "bind_2"):
            skip, nxt = b.next_of(p), b.opposite_of(p)
        elif card.special == "reverse":
            nxt = b.next_of(p, not b.direction)
        else:
            nxt = b.next_of(p)
        if ev.next_player != nxt or ev.skip_player != skip:
            self.v("predicted-next", ev, f"{ev.kind} predicts next {ev.next_player}/skip {ev.skip_player}, "
                   f"the rules give {nxt}/{skip}", expected=f"{nxt}/{skip}",
                   actual=f"{ev.next_player}/{ev.skip_player}")  # fmt: skip

    def draw_card(self, b: GameState, ev: E.DrawCard, a: GameState) -> None:
        p = ev.player
        if p != b.to_act and b.winner is None:
            self.v("event-sequence", ev, f"draw-card by {p} although {b.to_act} is to act (out-of-turn draws are never logged)",
                   expected=b.to_act, actual=p)  # fmt: skip
        n = len(ev.cards)
        available = b.draw_pile + b.discard - 1
        bound = b.bind.get(p, 0) > 0 and b.owes_draw
        winner_draw = b.winner is not None
        if winner_draw:
            self.winner_drew = True
        forced = b.owes_draw or b.pending > 0 or b.auto_draw is not None or winner_draw
        if forced:
            if bound:
                reason = b.white_wild or "skip_bind_2"
            elif b.pending > 0:
                reason = "wild_draw_4" if b.top is not None and b.top.special == "wild_draw_4" else "draw_2"
            else:
                reason = "nothing"
            want = b.pending if b.pending > 0 else (1 if bound else 0)
            if want == 0 and b.auto_draw is None:
                want = 1
            want = min(want, available)
            if n != want or ev.can_play is True or ev.is_draw is False:
                self.v("forced-draw-amount", ev, f"forced draw ({reason}) of {n} card(s), expected {want}",
                       expected=want, actual=n)  # fmt: skip
            if n < (b.pending if b.pending > 0 else 1):
                self.short_draw = True
        else:
            reason = "nothing"
            if len(b.hand(p)) >= HAND_CAP:
                if ev.is_draw is not False or n:
                    self.v("voluntary-draw", ev, f"voluntary draw with {len(b.hand(p))} cards must be refused",
                           expected="is_draw false, no card", actual=f"is_draw {ev.is_draw}, {n} card(s)")  # fmt: skip
            elif n != min(1, available):
                self.v("voluntary-draw", ev, f"voluntary draw of {n} cards", expected=min(1, available), actual=n)
            elif n == 0:
                self.short_draw = True  # nothing left to draw: the round ends (deck exhausted)
            elif n == 1 and ev.can_play is not playable(ev.cards[0], b.top):
                self.v("voluntary-draw", ev, f"drew {ev.cards[0]} on {b.top}: can_play_draw_card is {ev.can_play}",
                       expected=playable(ev.cards[0], b.top), actual=ev.can_play)  # fmt: skip
        if isinstance(ev.draw_reason, str) and ev.draw_reason != reason:
            self.v("draw-reason", ev, f"draw_reason '{ev.draw_reason}', recomputed '{reason}'",
                   expected=reason, actual=ev.draw_reason)  # fmt: skip
        if isinstance(ev.after_n, int) and ev.after_n != a.draw_pile and ev.is_draw is not False:
            self.v("snapshot-mismatch", ev, f"draw_desk.after {ev.after_n}, replayed draw pile {a.draw_pile}",
                   expected=a.draw_pile, actual=ev.after_n)  # fmt: skip

    def challenge(self, b: GameState, ev: E.Challenge, a: GameState) -> None:
        p = ev.player
        eligible = p == b.to_act and b.top is not None and b.top.special == "wild_draw_4" and b.pending > 0 \
            and b.bind.get(p, 0) == 0  # fmt: skip
        if not eligible:
            self.v("missing-penalty", ev, "challenge accepted although the challenger may not challenge now",
                   expected="Can not challenge.", actual="challenge logged")  # fmt: skip
        if ev.target != b.prev_actor:
            self.v("event-sequence", ev, f"challenge target {ev.target}, the wild draw 4 was played by {b.prev_actor}",
                   expected=b.prev_actor, actual=ev.target)  # fmt: skip
        if not V.truthy(ev.is_challenge_raw):
            return
        target = b.prev_actor
        hand = b.hand(target)
        dealer_rule = V.challenge_succeeds(hand, b.wd4_base)
        written_rule = V.challenge_succeeds_by_rules(hand, b.wd4_base)
        if ev.success is not dealer_rule:
            self.v("challenge-verdict", ev, f"challenge {'succeeded' if ev.success else 'failed'} against "
                   f"{_cards(hand)} on {b.wd4_base}", expected=dealer_rule, actual=ev.success)  # fmt: skip
        if written_rule != dealer_rule:
            self.v("challenge-rule-departure", ev, f"the dealer's verdict ({'success' if dealer_rule else 'failure'}) "
                   f"differs from the written rule: {target} held {_cards(hand)} on {b.wd4_base}",
                   expected=written_rule, actual=dealer_rule, player=target)  # fmt: skip
        if ev.success is True:
            ok = ev.receiver == target and len(ev.cards) == 5 and ev.cards[0].special == "wild_draw_4"
            want = f"{target} takes the wild draw 4 back + 4 cards"
        else:
            ok = ev.receiver == p and len(ev.cards) == 6
            want = f"{p} draws 6"
        if not ok and len(ev.cards) <= b.draw_pile + b.discard - 1:
            self.v("challenge-outcome", ev, f"challenge outcome: {ev.receiver} received {len(ev.cards)} card(s); {want}",
                   expected=want, actual=f"{ev.receiver}: {_cards(ev.cards)}")  # fmt: skip

    def public_card(self, b: GameState, ev: E.PublicCard, a: GameState) -> None:
        owner = b.prev_actor
        if ev.owner != owner or Counter(ev.cards) != Counter(b.hand(owner)):
            self.v("public-card", ev, f"public-card shows {ev.owner}: {_cards(ev.cards)}; the challenged hand is "
                   f"{owner}: {_cards(b.hand(owner))}", expected=f"{owner}: {_cards(b.hand(owner))}",
                   actual=f"{ev.owner}: {_cards(ev.cards)}", player=owner)  # fmt: skip

    def pointed(self, b: GameState, ev: E.PointedNotSayUno, a: GameState) -> None:
        expected = V.pointing(b, ev)
        target = ev.target
        what = f"pointed-not-say-uno at {_raw(target)}"
        # who drew the "Did not say uno." penalty right after this line, if anyone
        penalised = target if ev.succeeded else ev.misdirected
        if expected in E.POINT_ERRORS or ev.rejected is not None:
            if penalised is not None and penalised == ev.player:
                # the pointer's own line proves the invalid pointing; only the penalty text is wrong
                self._judge_action(b, E._replace(ev, rejected="Did not say uno.", misdirected=None), expected, what)
                return
            self._judge_action(b, ev, expected if expected in E.POINT_ERRORS else None, what)
            if penalised is not None:
                self._uno_penalty_contradicted(ev, penalised, f"{what}: 'Did not say uno.' on {penalised}, but the "
                                               f"pointing itself is invalid ({expected})", expected)  # fmt: skip
            return
        if expected == "Did not say uno." and ev.misdirected is not None:
            # a valid pointing: the target's own play line proves the miss, the penalty went to the wrong seat
            play_seq, rnd, turn = self.unyelled.pop(target, (ev.seq, ev.round_no, ev.turn_no))
            self.v("uno-call-missed", ev, f"{target} went down to one card without yelling UNO; caught by "
                   f"{ev.player} (the dealer penalised {ev.misdirected} instead)", player=target, seq=play_seq,
                   severity=ERROR, expected="yell_uno true", actual="yell_uno false")  # fmt: skip
            self._uno_penalty_contradicted(ev, ev.misdirected, f"{what}: {target} did not yell, but the penalty went "
                                           f"to {ev.misdirected}", f"Did not say uno. on {target}")  # fmt: skip
            return
        if expected == "Did not say uno.":
            if ev.succeeded:
                self.explained.add(ev.penalty_seq)
                play_seq, rnd, turn = self.unyelled.pop(target, (ev.seq, ev.round_no, ev.turn_no))
                self.v("uno-call-missed", ev, f"{target} went down to one card without yelling UNO; caught by "
                       f"{ev.player}", player=target, seq=play_seq, penalty_seq=ev.penalty_seq, severity=ERROR,
                       expected="yell_uno true", actual="yell_uno false")  # fmt: skip
            else:
                self.v("uno-pointing-outcome", ev, f"{what}: {target} did not yell, but no penalty followed",
                       expected="Did not say uno.", actual="no penalty", player=target)  # fmt: skip
            return
        why = "was out of reach (not the last player to act)" if expected == "Out of target." else "had yelled UNO"
        self.v("pointing-without-effect", ev, f"{what}: no effect, the target {why}",
               expected=expected or "none", actual="no penalty")  # fmt: skip
        if expected == "Out of target." and target == self.last_card_actor and not b.yell.get(target, False) \
                and target not in b.uno_penalized:  # fmt: skip
            self.v("pointing-window", ev, f"{what}: {target} went down to one card without yelling and nobody has "
                   "played a card since — the rules' window is open until the next card is played; the dealer's "
                   "closed at the next turn-ending step", player=target, expected="Did not say uno.",
                   actual="Out of target.")  # fmt: skip
        if penalised is not None:
            self._uno_penalty_contradicted(ev, penalised, f"{what}: penalty on {penalised} although the target {why}",
                                           "no penalty")  # fmt: skip

    def _uno_penalty_contradicted(self, ev: E.PointedNotSayUno, penalised: str, message: str, expected: str) -> None:
        """A "Did not say uno." the log does not justify: the referee's fault, never the penalised player's."""
        self.explained.add(ev.penalty_seq)
        self.v("uno-pointing-outcome", ev, message, expected=expected, actual=f"Did not say uno. on {penalised}",
               penalty_seq=ev.penalty_seq, player=penalised)  # fmt: skip

    def special_logic(self, b: GameState, ev: E.SpecialLogic, a: GameState) -> None:
        expected = V.special_logic(b, ev)
        self._judge_action(b, ev, expected, f"special-logic title {_title(ev.title_raw)}")
        if expected is not None or ev.rejected is not None or ev.player is None:
            return
        if b.special_logic.get(ev.player, 0) >= V.SPECIAL_LOGIC_LIMIT:
            self.v("special-logic-limit", ev, f"special logic #{b.special_logic[ev.player] + 1} in round {ev.round_no} "
                   "(the dealer ignores it beyond 10)", expected="at most 10", actual=b.special_logic[ev.player] + 1)  # fmt: skip
        titles = self.titles.setdefault(ev.player, set())
        titles.add(str(ev.title_raw))
        if len(titles) > 3 and ev.player not in self.registry_reported:
            self.registry_reported.add(ev.player)
            self.v("special-logic-registry", ev, f"{len(titles)} distinct special-logic titles (at most 3 may be registered)",
                   expected="at most 3", actual=len(titles))  # fmt: skip

    def color_of_wild(self, b: GameState, ev: E.ColorOfWild, a: GameState) -> None:
        if is_dealer_color_line(b, ev):
            if a.top is not None and ev.color_raw != b.top.color if b.top is not None else False:
                self.v("event-sequence", ev, f"dealer colour line says {ev.color_raw}, the wild was given {b.top.color}",
                       expected=b.top.color if b.top else None, actual=ev.color_raw)  # fmt: skip
            if ev.player != b.color_echo:
                self.v("echo-fields", ev, f"the dealer's colour line names {ev.player}, the wild was played by "
                       f"{b.color_echo}", expected=b.color_echo, actual=ev.player, player=b.color_echo)  # fmt: skip
            return
        expected = self._proved(V.color_of_wild, b, ev)
        self._judge_action(b, ev, expected, f"color-of-wild {_raw(ev.color_raw)} (top {b.top})")

    def shuffle(self, b: GameState, ev: E.ShuffleWild, a: GameState) -> None:
        shuffler = b.chooser if b.chooser in b.seats else ev.shuffler  # a wrong `player` echo is reported apart
        if shuffler not in b.seats:
            return
        excluded = shuffler if not b.hand(shuffler) else None
        receivers = [p for p in b.seats if p != excluded]
        before = Counter(c for p in receivers for c in b.hand(p))
        after = Counter(c for p in receivers for c in ev.hands.get(p, ()))
        problems = []
        if before != after:
            problems.append(f"cards changed: lost {_cards(list((before - after).elements()))}, "
                            f"gained {_cards(list((after - before).elements()))}")  # fmt: skip
        if excluded and ev.hands.get(excluded):
            problems.append(f"{excluded} emptied the hand but received {_cards(ev.hands[excluded])}")
        order = []
        cur = shuffler
        for _ in range(len(b.seats)):
            cur = b.next_of(cur)
            if cur != excluded:
                order.append(cur)
        total = sum(before.values())
        k = len(order)
        want = {p: total // k + (1 if i < total % k else 0) for i, p in enumerate(order)} if k else {}
        got = {p: len(ev.hands.get(p, ())) for p in order}
        if want != got:
            problems.append(f"hand sizes {got}, dealing from {order[0] if order else None} gives {want}")
        if problems:
            self.v("shuffle-redistribution", ev, "shuffle wild: " + "; ".join(problems), player=shuffler)

    def penalty(self, b: GameState, ev: E.Penalty, a: GameState) -> None:
        victim, err = ev.victim, ev.error or ""
        hand = len(b.hand(victim))
        n = len(ev.cards)
        available = b.draw_pile + b.discard - 1
        if err == "Did not say uno.":
            want = 2
        else:
            want = V.penalty_cards(hand)
            if want == 0 and err not in ("timeout", "color-of-wild timeout") and hand == HAND_CAP:
                self.v("penalty-count", ev, "penalty line for a hand of exactly 25 (the dealer writes none)",
                       player=victim, expected="no line", actual=f"{n} card(s)", penalty_seq=ev.seq)  # fmt: skip
        if n != min(want, available) and not (n < want and n == available):
            self.v("penalty-count", ev, f"'{err}' gave {victim} {n} card(s) with {hand} in hand; expected {want}",
                   player=victim, expected=want, actual=n, penalty_seq=ev.seq)  # fmt: skip
        if n < want:
            self.short_draw = True
        if ev.seq in self.explained:
            return
        self.explained.add(ev.seq)
        code = ERROR_TO_CODE.get(err)
        # A player-rule finding needs the log to prove the foul; a penalty the log contradicts (wrong
        # player, too early, a cause the board rules out) is the referee's fault (docs: "Who is blamed").
        if err in ("timeout", "color-of-wild timeout"):
            waiting = b.chooser if err == "color-of-wild timeout" else b.to_act
            if victim != waiting:
                self.v("timeout-effects", ev, f"{err} given to {victim}, but {waiting} was to act (not "
                       f"{victim}'s fault)", player=victim, expected=waiting, actual=victim, penalty_seq=ev.seq)  # fmt: skip
                return
            clock = self.clock.timeout_gap(ev) if self.clock is not None else None
            if clock is not None and clock[2] is None and clock[0] < LIMIT_MS - TOLERANCE_MS:
                self.v("penalty-unjustified", ev, f"'{err}' for {victim} written {clock[0]} ms after {victim}'s clock "
                       f"started (seq {clock[1]}): the log shows the 5 s were not up — the referee's fault, not "
                       f"{victim}'s", player=victim, expected=f"no penalty before {LIMIT_MS} ms",
                       actual=f"{err} after {clock[0]} ms", penalty_seq=ev.seq)  # fmt: skip
                return
            if clock is not None and clock[2] is not None and clock[0] <= LIMIT_MS + TOLERANCE_MS:
                self.v("penalty-unjustified", ev, f"'{err}' for {victim}, who acted {clock[0]} ms after the clock "
                       f"started (seq {clock[1]}; the action at seq {clock[2]}): the log shows an action within 5 s — "
                       f"the referee's fault, not {victim}'s", player=victim, expected="no timeout",
                       actual=f"{err} after an action at {clock[0]} ms", penalty_seq=ev.seq)  # fmt: skip
                return
            # proven by the clock (>= 5 s since the hand-over), or undecidable (no timestamps): the player's
            self.v("response-time", ev, f"{victim} did not act within 5 s ({err})", player=victim,
                   expected="an action within 5 s", actual=err, penalty_seq=ev.seq)  # fmt: skip
            return
        if err == "Did not say uno.":
            self.v("event-sequence", ev, "'Did not say uno.' without a pointed-not-say-uno line before it", player=victim)
            if victim not in self.unyelled and (len(b.hand(victim)) != 1 or b.yell.get(victim, False)):
                self.v("penalty-unjustified", ev, f"'Did not say uno.' for {victim}, who "
                       f"{'yelled UNO' if b.yell.get(victim, False) else f'holds {hand} card(s)'}: the log rules the "
                       f"miss out — the referee's fault, not {victim}'s", player=victim, expected="no penalty",
                       actual=err, penalty_seq=ev.seq)  # fmt: skip
                return
            play_seq, _, _ = self.unyelled.pop(victim, (ev.seq, None, None))
            self.v("uno-call-missed", ev, f"{victim} penalised for not yelling UNO (no pointing line before it)",
                   player=victim, seq=play_seq, penalty_seq=ev.seq, severity=ERROR)  # fmt: skip
            return
        if err == "Next player invalid." or code == "challenge-eligible":
            # out-of-turn draws / challenges and invalid challenges leave only the penalty line: it is the
            # proof, unless the dealer's own board on that line shows the cards went to someone else
            if self._desk_disowns(ev, b):
                self.v("penalty-unjustified", ev, f"'{err}' names {victim}, but the dealer's desk on the same line "
                       f"shows {victim}'s hand without the {n} penalty card(s): not {victim}'s fault", player=victim,
                       expected=f"{victim} holds {hand + n} card(s)", actual=f"{victim} holds {hand}",
                       penalty_seq=ev.seq)  # fmt: skip
                return
        if err == "Next player invalid.":
            if victim == b.to_act and not V.turn_over(b):
                self.v("penalty-unjustified", ev, f"'Next player invalid.' for {victim}, who was to act (not "
                       f"{victim}'s fault)", player=victim, expected="no penalty", actual=err, penalty_seq=ev.seq)  # fmt: skip
                return
            self.v("turn-owner", ev, f"{victim} sent draw-card or challenge out of turn ({b.to_act} was to act; "
                   "the dealer logs only the penalty)", player=victim, expected=b.to_act, actual=victim,
                   penalty_seq=ev.seq)  # fmt: skip
            return
        if code == "challenge-eligible":
            live = victim == b.to_act and b.top is not None and b.top.special == "wild_draw_4" and b.pending > 0 \
                and b.bind.get(victim, 0) == 0  # fmt: skip
            why = ("no live wild draw 4 to challenge" if not (b.top and b.top.special == "wild_draw_4" and b.pending)
                   else "bound by a white wild" if b.bind.get(victim, 0) else "not to act" if victim != b.to_act
                   else "invalid is_challenge")  # fmt: skip
            if err == "Can not challenge." and live:  # the board rules out the cause: not the player's foul
                self.v("penalty-unjustified", ev, f"'Can not challenge.' for {victim}, who could challenge (not "
                       f"{victim}'s fault)", player=victim, expected="challenge allowed", actual=err,
                       penalty_seq=ev.seq)  # fmt: skip
                return
            self.v(code, ev, f"{victim}: illegal challenge ({err}: {why}; the dealer logs only the penalty)",
                   player=victim, expected=why, actual=err, penalty_seq=ev.seq)  # fmt: skip
            wd4_live = b.top is not None and b.top.special == "wild_draw_4" and b.pending > 0
            if err == "Can not challenge." and victim == b.to_act and wd4_live and b.bind.get(victim, 0):
                self.v("bound-challenge-refused", ev, f"{victim}, bound by a white wild, challenged the wild draw 4 "
                       f"of {b.prev_actor}: the rules let the next player challenge, the dealer refuses it with a "
                       "penalty and the draw of 4", player=victim, expected="challenge judged",
                       actual="Can not challenge.", penalty_seq=ev.seq)  # fmt: skip
            return
        # An action error whose action line is not right before it: the dealer writes that line before
        # judging it, so the log does not show this player's foul (a misdirected penalty, or a lost line).
        self.v("event-sequence", ev, f"penalty '{err}' does not follow the action it answers", player=victim)
        self.v("penalty-unjustified", ev, f"{victim} penalised '{err}' without an action line of {victim} before it: "
               f"the log does not show the foul — not {victim}'s fault", player=victim, expected=f"a line of {victim} "
               f"that draws '{err}'", actual=err, penalty_seq=ev.seq)  # fmt: skip

    @staticmethod
    def _desk_disowns(ev: E.Penalty, b: GameState) -> bool:
        """The penalty line's desk (the board after the penalty cards) shows the victim's hand unchanged."""
        hands = ev.desk.get("card_of_player") if isinstance(ev.desk, dict) else None
        raw = hands.get(ev.victim) if isinstance(hands, dict) else None
        if not ev.cards or not isinstance(raw, list):
            return False
        return Counter(E.cards_of(raw)) == Counter(b.hand(ev.victim))

    def finish_turn(self, b: GameState, ev: E.FinishTurn, a: GameState) -> None:
        empty = [p for p in b.seats if not b.hand(p)]
        if isinstance(ev.winner, str):
            if ev.winner not in empty:
                self.v("round-end", ev, f"{ev.winner} declared winner with {len(b.hand(ev.winner))} card(s)",
                       player=ev.winner, expected=empty or "no winner", actual=ev.winner)  # fmt: skip
            elif self.last_played is not None and self.last_played.special == "wild_draw_4" and not self.winner_drew:
                self.v("wd4-last-card-draw", ev, "round won with a wild draw 4: the rules make the next player draw 4, "
                       "the dealer ends the round without it", player=ev.winner, expected="next player draws 4",
                       actual="no draw")  # fmt: skip
        else:
            stalled = b.stall >= NO_PROGRESS_LIMIT
            if not (stalled or self.short_draw):
                self.v("round-end", ev, f"round ended without a winner although no draw came up short and only "
                       f"{b.stall} turns passed without progress", expected="round continues", actual="no winner")  # fmt: skip
        if empty and not isinstance(ev.winner, str) and b.gate != "color":
            self.v("round-end", ev, f"{empty[0]} emptied the hand but is not the winner", player=empty[0],
                   expected=empty[0], actual=ev.winner)  # fmt: skip
        diffs = [p for p in b.seats if p in ev.hands and Counter(ev.hands[p]) != Counter(b.hand(p))]
        if diffs:
            self.v("finish-hands", ev, f"finish-turn hands differ for {', '.join(diffs)}",
                   expected="; ".join(f"{p}={_cards(b.hand(p))}" for p in diffs),
                   actual="; ".join(f"{p}={_cards(ev.hands[p])}" for p in diffs))  # fmt: skip
        scores = round_scores(b, ev.winner if isinstance(ev.winner, str) else None)
        logged = {p: v for p, v in ev.scores.items() if isinstance(v, int)}
        if logged and logged != scores:
            self.v("round-score", ev, "round scores differ from the final hands", expected=scores, actual=logged)
        if ev.totals:
            want = {p: b.totals.get(p, 0) + logged.get(p, 0) for p in logged}
            got = {p: v for p, v in ev.totals.items() if isinstance(v, int)}
            if got != want:
                self.v("total-score", ev, "running totals differ from previous totals + this round", expected=want, actual=got)
            self.history.append(got)
        else:
            self.history.append(dict(a.totals))
        self._conservation(ev, b)

    def finish_game(self, b: GameState, ev: E.FinishGame, a: GameState) -> None:
        if b.in_round:
            self.v("event-sequence", ev, f"round {b.round_no} never finished (no finish-turn before finish-game)", s=b)
        totals = dict(b.totals)
        wins = {p: b.wins.get(p, 0) for p in totals}
        problems = []
        if ev.scores and {p: v for p, v in ev.scores.items()} != totals:
            problems.append(f"score {ev.scores} != totals {totals}")
        if ev.order and {p: v for p, v in ev.order.items()} != wins:
            problems.append(f"order {ev.order} != rounds won {wins}")
        if totals:
            top = max(totals.values())
            tied = [p for p, v in totals.items() if v == top]

            def reached(p: str) -> int:
                for i, h in enumerate(self.history):
                    if h.get(p, top - 1) >= top:
                        return i
                return len(self.history)

            best = min(reached(p) for p in tied)
            winners = [p for p in tied if reached(p) == best]
            if isinstance(ev.winner, str) and ev.winner not in winners:
                problems.append(f"winner {ev.winner}, the tie-break gives {winners}")
        if problems:
            self.v("match-result", ev, "match result: " + "; ".join(problems), s=b)

    # ------------------------------------------------------------------ cross-event

    def _uno_windows(self, ev: E.Event | None, a: GameState) -> None:
        for player, (seq, rnd, turn) in list(self.unyelled.items()):
            if a.in_round and a.prev_actor == player and len(a.hand(player)) == 1 and not a.yell.get(player, False) \
                    and a.round_no == rnd:  # fmt: skip
                continue
            del self.unyelled[player]
            self.out.append(Violation(
                code="uno-call-missed", family=CHECKS["uno-call-missed"].family, severity=WARNING,
                message=f"{player} went down to one card without yelling UNO (nobody pointed it out)",
                seq=seq, round_no=rnd, turn_no=turn, player=player, expected="yell_uno true", actual="yell_uno false",
            ))  # fmt: skip

    def _conservation(self, ev: E.Event, s: GameState) -> None:
        if not s.seats:
            return
        total = s.card_total()
        if total != s.deck_size:
            self.v("conservation", ev, f"hands + draw pile + discard pile = {total}, the deck has {s.deck_size}",
                   expected=s.deck_size, actual=total, s=s, severity=INFO if self.short_draw else None)  # fmt: skip


def round_scores(s: GameState, winner: str | None) -> dict[str, int]:
    """Contest scoring (得点の計算): losers -hand, the winner +sum of the losers' hands."""
    points = {p: hand_points(s.hand(p)) for p in s.seats}
    if winner is None:
        return {p: -v for p, v in points.items()}
    out = {p: -v for p, v in points.items() if p != winner}
    out[winner] = sum(v for p, v in points.items() if p != winner)
    return out


#: Lines whose number_turn_play is the current turn (the dealer's colour line after a play-draw-card aside).
#: The players of one ALGORI dealer (the dealer program hard-codes 4 seats: digest §0).
SEATS = 4
TURN_ECHOES = (E.PlayCard, E.PlayDrawCard, E.ColorOfWild, E.SpecialLogic, E.DrawCard, E.Challenge, E.PublicCard,
               E.ColorChangeRequest, E.ShuffleWild, E.Penalty, E.FinishTurn)  # fmt: skip
#: Lines the dealer writes on its own account: ``player`` is "".
DEALER_LINES = (E.FirstPlayer, E.NextPlayer, E.ColorChangeRequest, E.ShuffleWild, E.PublicCard, E.Penalty,
                E.FinishTurn, E.FinishGame)  # fmt: skip

_DISPATCH: dict[type, Any] = {
    E.JoinRoom: Judge.join_room,
    E.FirstPlayer: Judge.first_player,
    E.NextPlayer: Judge.next_player,
    E.PlayCard: Judge.play_card,
    E.PlayDrawCard: Judge.play_draw_card,
    E.DrawCard: Judge.draw_card,
    E.Challenge: Judge.challenge,
    E.PublicCard: Judge.public_card,
    E.PointedNotSayUno: Judge.pointed,
    E.SpecialLogic: Judge.special_logic,
    E.ColorOfWild: Judge.color_of_wild,
    E.ShuffleWild: Judge.shuffle,
    E.Penalty: Judge.penalty,
    E.FinishTurn: Judge.finish_turn,
    E.FinishGame: Judge.finish_game,
}
