"""Kifu's UNO referee: plays a match between bots under a profile and writes the dealer's log.

The referee owns what the rules leave to chance and to the players — the shuffled deck, the
bots' answers — and asks the profile's model (:mod:`rules.uno.model`) everything else: which
actions are legal (:func:`~rules.uno.model.legal`, :func:`~rules.uno.model.refusal`) and what
each line it writes does to the board (:func:`~rules.uno.model.apply`).  Every line is
written in the ALGORI activity-log shape with the fields of docs/rules/jua.md, so
``kifu ingest`` reads it like a dealer's log and the validator judges it without trusting the
referee.  Same seed, same bots, same bytes.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import orjson

from rules.uno import events as E
from rules.uno import model as M
from rules.uno.cards import Card
from rules.uno.profile import Profile
from rules.uno.state import GameState

#: 2026-01-01T00:00:00Z: the clock of a referee's log starts here (plus the seed), so a log is reproducible.
EPOCH_MS = 1_767_225_600_000


@dataclass
class Seat:
    code: str
    name: str
    bot: Callable[[dict[str, Any]], dict[str, Any]]


def match_identity(profile: Profile, seats: list[Seat], seed: int, rounds: int, dealer: str | None,
                   code: str | None) -> tuple[str, str]:  # fmt: skip
    """The dealer name and code a match is logged under: given, or made from what makes the match (the
    profile, the seats, the seed, the rounds), so two different referee matches are never one match."""
    what = "|".join([profile.id, str(seed), str(rounds), *(f"{s.code}={s.name}" for s in seats)])
    digest = hashlib.sha256(what.encode()).hexdigest()
    return dealer or f"kifu-play-s{seed}-{digest[:8]}", code or f"D-{int(digest[8:16], 16) % 10**8:08d}"


class BotError(Exception):
    """A bot raised, exited or answered with something that is not an action: the match stops."""


class BotFailed(Exception):
    """What went wrong with a bot's process (``raised …``, ``exited with status 3``): the table names the bot."""


class BotTimeout(Exception):
    """A bot did not answer within its clock (``args[0]``: the clock, ms)."""


_CARD: dict[Card, dict[str, Any]] = {}


def _card(c: Card) -> dict[str, Any]:
    """A card as the log writes it (one dict per face, shared: orjson writes it as often as it is used)."""
    d = _CARD.get(c)
    if d is None:
        d = _CARD[c] = c.to_dealer()
    return d


def _hand(cards: Any) -> list[dict[str, Any]]:
    return [_card(c) for c in cards]


class Table:
    """What every UNO referee table shares: seats and bots, the deck and piles, the clock, the log's lines.

    A table writes a line with :meth:`_emit`: the line's event is applied by the profile's model
    (:meth:`_apply`) and written with the desk that model says the line shows (:meth:`_desk`).
    Iterate :meth:`lines` for the log, or :meth:`play` it into a sink.
    """

    def __init__(self, profile: Profile, seats: list[Seat], *, seed: int, rounds: int | None = None,
                 dealer: str | None = None, dealer_code: str | None = None) -> None:  # fmt: skip
        lo, hi = profile.players
        if not lo <= len(seats) <= hi:
            raise ValueError(f"{profile.id} is played by {lo} to {hi} players (got {len(seats)})")
        if rounds and profile.rounds is not None and rounds != profile.rounds:
            # another number of rounds than the profile's is a profile option: the log says so (first-player
            # .contents.ruleset, e.g. jua-2016(rounds=3)), so the validator expects the rounds played
            profile = profile.with_options(rounds=rounds)
        self.profile = profile
        self.seats = seats
        self.by_code = {s.code: s for s in seats}
        self.rounds = rounds or profile.rounds or 1
        self.rng = random.Random(seed)
        self.dealer, self.dealer_code = match_identity(profile, seats, seed, self.rounds, dealer, dealer_code)
        self.t = EPOCH_MS + seed * 1000
        self.state = GameState()
        self.seq = 0
        self.pile: list[Card] = []
        self.discards: list[Card] = []
        self.out: list[bytes] = []
        self.sink: Callable[[bytes], Any] = self.out.append  # where each line goes (play() writes straight out)
        self.history: list[dict[str, int]] = []  # totals after each round (the tie-break)

    # ------------------------------------------------------------------ writing

    def _apply(self, ev: E.Event) -> GameState:
        raise NotImplementedError

    def _desk(self, before: GameState, after: GameState, ev: E.Event) -> dict[str, Any] | None:
        raise NotImplementedError

    def _emit(self, event: str, player: str, contents: dict[str, Any], *, refused: str | None = None,
              think: int = 0) -> E.Event:  # fmt: skip
        self.seq += 1
        self.t += 1 + think
        s = self.state
        turn = s.round_no + 1 if event == "first-player" else (s.round_no or None)
        ev = E.to_event({"seq": self.seq, "event": event, "player": player, "turn": turn, "contents": contents,
                         "desk": None, "date_ms": self.t})  # fmt: skip
        if refused is not None and hasattr(ev, "rejected"):
            ev = replace(ev, rejected=refused)
        after = self._apply(ev)
        line: dict[str, Any] = {"dealer_code": self.dealer_code, "event": event, "dealer": self.dealer, "player": player}
        if event != "join-room":
            line["turn"] = turn
        line["contents"] = contents
        if event != "join-room" and (desk := self._desk(s, after, ev)) is not None:
            line["desk"] = desk
        line["dateCreated"] = self.t
        self.sink(orjson.dumps(line))
        self.state = after
        return ev

    # ------------------------------------------------------------------ the match

    def play(self, sink: Callable[[bytes], Any], on_round: Callable[[], Any] | None = None) -> None:
        """The whole match, each line handed to ``sink`` as it is written (memory flat in the match's length)."""
        self.sink = sink
        for _ in self._match():
            if on_round is not None:
                on_round()

    def lines(self) -> Iterator[bytes]:
        """The match's lines (held round by round)."""
        for _ in self._match():
            yield from self._flush()
        yield from self._flush()

    def _flush(self) -> Iterator[bytes]:
        out = self.out[:]
        self.out.clear()  # the list the sink appends to stays the same
        yield from out

    def _match(self) -> Iterator[None]:
        """Plays the match; yields after each round."""
        for seat in self.seats:
            self._emit("join-room", seat.code, {"player_code": seat.code, "player_name": seat.name})
        order = [s.code for s in self.seats]
        start = self.rng.randrange(len(order)) if self.profile.seating == "winner-deals" else 0
        circle = order[start:] + order[:start]
        for _ in range(self.rounds):
            if self.profile.seating == "shuffle":
                self.rng.shuffle(circle)
            winner = self._round(circle)
            yield
            if self.profile.seating == "winner-deals" and winner is not None:
                i = circle.index(winner)
                circle = circle[i:] + circle[:i]
        s = self.state
        totals = {p: s.totals.get(p, 0) for p in order}
        top = max(totals.values())
        tied = [p for p in order if totals[p] == top]
        winner = next((p for h in self.history for p in tied if h.get(p, -10**9) >= top), tied[0])
        self._emit("finish-game", "", {"winner": winner, "order": {p: s.wins.get(p, 0) for p in order},
                                       "score": totals})  # fmt: skip

    def _round(self, seats: list[str]) -> str | None:
        raise NotImplementedError

    def _finish_turn(self, winner: str | None) -> None:
        """The round's end: scores by the profile, losers first, the running totals, the final hands."""
        s = self.state
        hands = {p: s.hand(p) for p in s.seats}
        scores = self.profile.scoring.round(hands, winner)
        ordered = {p: v for p, v in scores.items() if p != winner}
        if winner is not None:
            ordered[winner] = scores[winner]
        totals = {p: s.totals.get(p, 0) + scores.get(p, 0) for p in s.seats}
        self.history.append(totals)
        c: dict[str, Any] = {"winner": winner} if winner is not None else {}
        c.update({"score": ordered, "total_score": dict(sorted(totals.items(), key=lambda kv: -kv[1])),
                  "number_turn_play": s.turn_no, "card_of_player": {p: _hand(h) for p, h in hands.items()}})  # fmt: skip
        self._emit("finish-turn", "", c)

    def _deal(self, seats: list[str], deal_order: list[str]) -> tuple[dict[str, list[Card]], Card, list[Card]]:
        """A shuffled deck dealt one card at a time in ``deal_order``; the first card turned (again while the
        profile sends it back); the rest is the draw pile."""
        prof = self.profile
        deck = list(prof.deck.cards())
        self.rng.shuffle(deck)
        hands: dict[str, list[Card]] = {p: [] for p in seats}
        for _ in range(prof.hand_size):
            for p in deal_order:
                hands[p].append(deck.pop())
        returned = []
        first = deck.pop()
        while first.special in prof.first_card.redeal:
            returned.append(first)
            deck.append(first)
            self.rng.shuffle(deck)
            first = deck.pop()
        self.pile, self.discards = deck, [first]
        return hands, first, returned

    def _take(self, n: int) -> list[Card]:
        """``n`` cards from the draw pile, rebuilt from the discards but the top when it runs out (fewer when
        there are no more)."""
        out = []
        for _ in range(n):
            if not self.pile:
                if len(self.discards) <= 1:
                    break
                self.pile = self.discards[:-1]
                self.discards = self.discards[-1:]
                self.rng.shuffle(self.pile)
            out.append(self.pile.pop())
        return out

    def _call(self, code: str, view: dict[str, Any]) -> dict[str, Any]:
        """A bot's answer to ``view``; a bot that raises, exits or answers nonsense stops the match, named with
        the round and turn.  A bot out of time raises :class:`BotTimeout` when the rules have a clock (the
        table writes their timeout penalty), and stops the match when they have none."""
        seat = self.by_code[code]
        try:
            action = seat.bot(view)
        except BotTimeout as exc:
            if self.profile.action_ms is not None:
                raise
            what = f"did not answer within {exc.args[0]} ms ({self.profile.id} has no timeout rule)"
        except BotFailed as exc:  # a plug-in bot's process
            what = str(exc)
        except Exception as exc:  # a contestant's bot: say which one, and stop
            raise self._fail(code, f"raised {type(exc).__name__}: {exc}") from exc
        else:
            if isinstance(action, dict) and isinstance(action.get("action"), str):
                return action
            what = f"answered {action!r}, not an action dict"
        raise self._fail(code, what)

    def _fail(self, code: str, what: str) -> BotError:
        """The match stops: which bot, what it did, at which round and turn."""
        s = self.state
        return BotError(f"bot of {self.by_code[code].name} ({code}) {what} at round {s.round_no}, turn {s.turn_no}")

    def _think(self) -> int:
        return self.rng.randrange(5, 60)


class Referee(Table):
    """A match under a profile judged by the profile audit (the JUA competition rules, …)."""

    def __init__(self, profile: Profile, seats: list[Seat], **kw: Any) -> None:
        super().__init__(profile, seats, **kw)
        self.idle = [s for s in seats if getattr(s.bot, "idle", False)]

    def _apply(self, ev: E.Event) -> GameState:
        return M.apply(self.profile, self.state, ev)

    def _desk(self, before: GameState, after: GameState, ev: E.Event) -> dict[str, Any] | None:
        """The board after the line (a profile log's desk is always the state after its line)."""
        s = after
        return {
            "before_card_play": _card(s.top) if s.top is not None else None,
            "card_of_player": {p: _hand(s.hand(p)) for p in s.seats},
            "yell_uno": {p: bool(s.yell.get(p)) for p in s.seats}, "turn_right": s.direction,
            "draw_desk_number": s.draw_pile, "reveal_desk_number": s.discard,
            "draw_stack": self._stack(s.stack),
        }  # fmt: skip

    @staticmethod
    def _stack(stack: tuple[Card, ...]) -> dict[str, Any]:
        return {"number": M.stack_total(stack), "cards": _hand(stack)}

    # ------------------------------------------------------------------ a round

    def _round(self, circle: list[str]) -> str | None:
        prof = self.profile
        hands, first, returned = self._deal(circle, circle[1:] + circle[:1])  # from the start player's left
        contents: dict[str, Any] = {
            "ruleset": prof.id, "first_player": circle[0], "first_card": _card(first), "play_order": list(circle),
            "cards_receive": {p: _hand(h) for p, h in hands.items()},
        }  # fmt: skip
        if returned:
            contents["first_card_returned"] = _hand(returned)
        self._emit("first-player", "", contents)
        if self.state.gate == "color":
            chooser = self.state.chooser
            assert chooser is not None
            self._emit("color-change-request", "", {"player": chooser, "number_turn_play": self.state.turn_no})
            self._colour(chooser)
        limit = prof.no_progress_laps * len(circle)
        while True:
            s = self.state
            if s.winner is not None:
                if s.stack:
                    self._forced_draw(M.next_seat(s, s.winner))
                break
            if (s.stall >= limit or s.turn_no >= prof.turn_limit) and M.handover_due(s):  # R25, R26: no winner
                break
            if M.handover_due(s):
                self._hand_over()
                continue
            self._out_of_turn()
            if self.state.to_act is None or self.state.winner is not None:
                continue
            if self.state.auto_draw is not None:
                self._forced_draw(self.state.to_act)
                continue
            self._turn(self.state.to_act)
        winner = self.state.winner
        self._finish_turn(winner)
        return winner

    def _hand_over(self) -> None:
        s = self.state
        nxt = M.expected_next(s)
        after = M.hand_over(s, nxt)
        c = {
            "next_player": nxt, "before_player": s.prev_actor, "card_before": _card(s.top) if s.top else None,
            "card_of_player": _hand(s.hand(nxt)), "turn_right": s.direction,
            "must_call_draw_card": bool(s.stack), "draw_reason": M.draw_reason(s.stack),
            "draw_stack": self._stack(s.stack), "number_card_play": s.cards_played,
            "number_turn_play": after.turn_no, "number_card_of_player": {p: len(s.hand(p)) for p in s.seats},
        }  # fmt: skip
        if s.must_play is not None:
            c["must_play_card"] = True
        self._emit("next-player", "", c)

    # ------------------------------------------------------------------ asking bots

    def view(self, code: str, phase: str, **extra: Any) -> dict[str, Any]:
        s = self.state
        legal = M.legal(self.profile, s, code) if phase in ("turn", "play_drawn") else []
        legal = [a for a in legal if not self._bluff(s, code, a)]
        top = s.top
        return {
            "phase": phase, "me": code, "profile": self.profile.id, "hand": _hand(s.hand(code)),
            "top": _card(top) if top else None, "color": top.color if top else None,
            "stack": self._stack(s.stack), "must_play": s.must_play == code,
            "drawn": _card(s.drawn_card) if s.drawn_card is not None and s.to_act == code else None,
            "players": [{"code": p, "cards": len(s.hand(p))} for p in s.seats], "seats": list(s.seats),
            "direction": s.direction, "round": s.round_no, "turn": s.turn_no,
            "scores": {p: s.totals.get(p, 0) for p in s.seats},
            "legal": [_legal(a) for a in legal], **extra,
        }  # fmt: skip

    def _bluff(self, s: GameState, code: str, a: dict[str, Any]) -> bool:
        """A wild draw 4 the rules forbid here (the player holds the current colour): honest bots are not offered it."""
        card = a.get("card") if a["action"] == "play" else s.drawn_card if a.get("play") else None
        return card is not None and card.special == "wild_draw_4" and \
            not self.profile.challenge.wd4_legal(M._without(s.hand(code), card), s.top, s.stack)  # fmt: skip

    def ask(self, code: str, phase: str, **extra: Any) -> dict[str, Any]:
        return self._call(code, self.view(code, phase, **extra))

    # ------------------------------------------------------------------ turns

    def _turn(self, p: str) -> None:
        """One action of the player to act, judged by the model's turn state machine (:func:`~rules.uno.model
        .refusal`): after a playable draw only that card may be played or kept; a second draw, or a card from
        the hand, is refused with a penalty like any other foul."""
        s = self.state
        drawn = s.gate == "play-draw"
        a = self.ask(p, "play_drawn" if drawn else "turn")
        kind = a["action"]
        if kind == "play_drawn" and drawn:
            self._play_drawn(p, a)
        elif kind == "play":
            self._play(p, a)
        elif kind == "challenge" and not drawn:
            self._challenge(p)
        elif kind == "draw":
            self._draw(p)
        elif drawn:
            raise self._fail(p, f"answered {kind!r} after a playable draw (play_drawn)")
        else:
            raise self._fail(p, f"answered {kind!r} on its turn (play, draw or challenge)")

    def _draw(self, p: str) -> None:
        s = self.state
        probe = E.to_event({"seq": 0, "event": "draw-card", "player": p, "turn": s.round_no,
                            "contents": {"card_draw": [], "is_draw": True}})  # fmt: skip
        why = M.refusal(self.profile, s, probe)
        if why is not None:  # a draw the rules refuse: written with is_draw false and no card, then the penalty
            self._emit("draw-card", p, {"card_draw": [], "is_draw": False, "number_turn_play": s.turn_no},
                       refused=why[1], think=self._think())  # fmt: skip
            self._refuse(p, why[1])
        elif s.stack:
            self._forced_draw(p)
        else:
            self._voluntary_draw(p)

    def _play(self, p: str, a: dict[str, Any]) -> None:
        s = self.state
        c: dict[str, Any] = {"card_play": a.get("card")}
        if a.get("pair") is not None:
            c["card_play_pair"] = a["pair"]
        c["yell_uno"] = bool(a.get("yell_uno"))
        if a.get("color") is not None:
            c["color_of_wild"] = a["color"]
        c["number_turn_play"] = s.turn_no
        probe = E.to_event({"seq": 0, "event": "play-card", "player": p, "turn": s.round_no, "contents": c})
        why = M.refusal(self.profile, s, probe)
        if why is None:
            after = M.apply(self.profile, s, probe)
            c["next_player"] = M.next_seat(after, p)
            if after.skip:
                c["skip_player"] = after.next_of(p)
        self._emit("play-card", p, c, refused=why[1] if why else None, think=self._think())
        if why is not None:
            self._refuse(p, why[1])
            return
        card = probe.card
        assert card is not None
        self.discards.append(card)
        if probe.pair is not None and self.state.cards_played == s.cards_played + 2:
            self.discards.append(probe.pair)
        if card.special in ("wild", "wild_draw_4"):
            self._emit("color-of-wild", p, {"color_of_wild": a["color"], "number_turn_play": s.turn_no})
        self._pointing()

    def _play_drawn(self, p: str, a: dict[str, Any]) -> None:
        s = self.state
        play = bool(a.get("play"))
        c: dict[str, Any] = {"is_play_card": play}
        if play:
            c["card_play"] = _card(s.drawn_card) if s.drawn_card else None
        c["yell_uno"] = bool(a.get("yell_uno"))
        if a.get("color") is not None:
            c["color_of_wild"] = a["color"]
        c["number_turn_play"] = s.turn_no
        probe = E.to_event({"seq": 0, "event": "play-draw-card", "player": p, "turn": s.round_no, "contents": c})
        why = M.refusal(self.profile, s, probe)
        self._emit("play-draw-card", p, c, refused=why[1] if why else None, think=self._think())
        if why is not None:
            self._refuse(p, why[1])
            return
        if play and s.drawn_card is not None:
            self.discards.append(s.drawn_card)
            if s.drawn_card.special in ("wild", "wild_draw_4"):
                self._emit("color-of-wild", p, {"color_of_wild": a["color"], "number_turn_play": s.turn_no})
            self._pointing()

    def _voluntary_draw(self, p: str) -> None:
        s = self.state
        before = s.draw_pile
        cards = self._take(1)
        can = bool(cards) and self.profile.playable(cards[0], s.top)
        self._emit("draw-card", p, {
            "can_play_draw_card": can, "card_draw": _hand(cards), "is_draw": True,
            "draw_desk": {"before": before, "after": len(self.pile)}, "draw_reason": "nothing",
            "draw_stack": self._stack(()), "number_turn_play": s.turn_no,
        }, think=self._think())  # fmt: skip

    def _forced_draw(self, p: str | None) -> None:
        s = self.state
        assert p is not None
        before = s.draw_pile
        cards = self._take(M.stack_total(s.stack))
        self._emit("draw-card", p, {
            "can_play_draw_card": False, "card_draw": _hand(cards), "is_draw": True,
            "draw_desk": {"before": before, "after": len(self.pile)}, "draw_reason": M.draw_reason(s.stack),
            "draw_stack": self._stack(s.stack), "number_turn_play": s.turn_no,
        }, think=0 if s.auto_draw or s.winner else self._think())  # fmt: skip

    def _refuse(self, p: str, error: str) -> None:
        cards = self._take(self.profile.illegal_play_cards)
        self._emit("penalty", "", {"player": p, "cards_receive": _hand(cards),
                                   "number_turn_play": self.state.turn_no, "error": error})  # fmt: skip

    def _challenge(self, p: str) -> None:
        s = self.state
        c: dict[str, Any] = {"target": s.prev_actor, "is_challenge": True}
        probe = E.to_event({"seq": 0, "event": "challenge", "player": p, "turn": s.round_no,
                            "contents": {**c, "result": {}}})  # fmt: skip
        why = M.refusal(self.profile, s, probe)
        if why is not None:
            self._emit("challenge", p, {**c, "number_turn_play": s.turn_no}, think=self._think())
            self._refuse(p, why[1])
            return
        offender = s.prev_actor
        assert offender is not None
        hand = s.hand(offender)
        self._emit("public-card", "", {"player": offender, "cards": _hand(hand), "shown_to": p,
                                       "number_turn_play": s.turn_no})  # fmt: skip
        success = self.profile.challenge.succeeds(hand, s.wd4_base, s.stack)
        if success:
            wd4 = self.discards.pop()
            cards = [wd4] + self._take(self.profile.challenge.success_draws)
            receiver = offender
        else:
            cards = self._take(M.stack_total(s.stack) + self.profile.challenge.failure_extra)
            receiver = p
        c["result"] = {"is_challenge_success": success, "player": receiver, "cards_receive": _hand(cards)}
        c["number_turn_play"] = s.turn_no
        self._emit("challenge", p, c, think=self._think())

    def _colour(self, chooser: str) -> None:
        a = self.ask(chooser, "color")
        c = {"color_of_wild": a.get("color"), "number_turn_play": self.state.turn_no}
        probe = E.to_event({"seq": 0, "event": "color-of-wild", "player": chooser, "turn": self.state.round_no,
                            "contents": c})  # fmt: skip
        why = M.refusal(self.profile, self.state, probe)
        self._emit("color-of-wild", chooser, c, refused=why[1] if why else None, think=self._think())
        if why is not None:
            self._refuse(chooser, why[1])

    def _pointing(self) -> None:
        """A player left on one card without the call: the others (in turn order) may point it out."""
        s = self.state
        t = s.pointable
        if t is None:
            return
        order = list(s.seats)
        i = order.index(t)
        for q in order[i + 1:] + order[:i]:
            a = self.ask(q, "point", target=t)
            if a.get("action") != "point":
                continue
            self._emit("pointed-not-say-uno", q, {"pointer": q, "target": t, "have_say_uno": bool(s.yell.get(t)),
                                                   "card_of_player": _hand(s.hand(t))},
                       think=self._think())  # fmt: skip
            cards = self._take(self.profile.uno.penalty)
            self._emit("penalty", "", {"player": t, "cards_receive": _hand(cards),
                                       "number_turn_play": self.state.turn_no, "error": "Did not say uno."})  # fmt: skip
            return

    def _out_of_turn(self) -> None:
        """Bots that act while others play (the sloppy bot): an out-of-turn play is refused."""
        s = self.state
        for seat in self.idle:
            if seat.code == s.to_act or not s.hand(seat.code):
                continue
            a = self.ask(seat.code, "idle")
            if a.get("action") != "play":
                continue
            c = {"card_play": a.get("card"), "yell_uno": bool(a.get("yell_uno")), "number_turn_play": s.turn_no}
            self._emit("play-card", seat.code, c, refused="Next player invalid.", think=self._think())
            self._refuse(seat.code, "Next player invalid.")
            return


def _legal(a: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k in ("card", "pair"):
        if isinstance(out.get(k), Card):
            out[k] = _card(out[k])
    return out
