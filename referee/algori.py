"""``kifu play`` under an ALGORI 2023 profile: the 2023 dealer's rules and its log, line for line.

The ALGORI dealer's log has its own timing quirks (the desk of a play line is an "as if
accepted" view, the dealer's colour line after a wild shows a black top, …).  This table plays
the rules through the dealer model Kifu validates real dealer logs with
(:mod:`rules.uno.transitions`) and writes each line's desk as that model says the dealer shows
it (:func:`rules.uno.consistency.expected_view`), so a referee log reads like the real dealer's:
``kifu ingest`` judges it with the ALGORI audit and every ALGORI page shows it unchanged.

What the built-in bots do here: every legal play, voluntary draws, playing a drawn card, the
colour of a wild, wild shuffle and first-card wild, challenges; no special logic.  A plug-in bot
that does not answer within the profile's 5 s (or ``--bot-timeout-ms``) gets the dealer's timeout
penalty: ``timeout`` (``color-of-wild timeout`` for a colour), the penalty cards, the turn lost.
The sloppy bot is played under the JUA profile only (its fouls follow the JUA penalty texts).
"""

from __future__ import annotations

from typing import Any

from referee.match import BotTimeout, Seat, Table, _card, _hand
from rules.uno import events as E
from rules.uno import transitions as T
from rules.uno import verdicts as V
from rules.uno.cards import COLORS, Card
from rules.uno.consistency import expected_view
from rules.uno.profile import Profile
from rules.uno.state import HAND_CAP, GameState, playable

NO_PROGRESS = 40  # the dealer's NO_PLAY_MAX_LAP: 10 laps of 4 players


class AlgoriTable(Table):
    """One ALGORI match: 4 seats, a new seat order each round, the dealer's lines."""

    def __init__(self, profile: Profile, seats: list[Seat], **kw: Any) -> None:
        if any(getattr(s.bot, "idle", False) for s in seats):
            raise ValueError(f"the sloppy bot plays the JUA profile only (its fouls use the JUA penalty texts), "
                             f"not {profile.id}")  # fmt: skip
        super().__init__(profile, seats, **kw)
        self.white_fresh = False  # the line before was a white wild that bound the next seat

    def _apply(self, ev: E.Event) -> GameState:
        return T.apply(self.state, ev)

    def _desk(self, before: GameState, after: GameState, ev: E.Event) -> dict[str, Any] | None:
        """The desk as the dealer writes it at this line (its snapshot timing, rules digest Appendix A)."""
        view = expected_view(before, after, ev)
        if view is None:
            return None
        return {
            "before_card_play": _card(view.top) if view.top is not None else None,
            "card_of_player": {p: _hand(h) for p, h in view.hands.items()},
            "yell_uno": dict(view.yell), "turn_right": view.direction,
            "draw_desk_number": view.draw, "reveal_desk_number": view.reveal,
        }  # fmt: skip

    # ------------------------------------------------------------------ a round

    def _deal_round(self, seats: list[str]) -> bool:
        """The round's deal as the dealer writes it (``first-player``, then the colour request of a first
        wild); True when the first card is a wild whose colour the first player chooses."""
        prof = self.profile
        hands, first, _ = self._deal(seats, seats)
        contents: dict[str, Any] = {}
        if prof.white_wild is not None:
            contents["white_wild"] = prof.white_wild
        contents.update({"first_player": seats[0], "first_card": _card(first), "play_order": seats,
                         "cards_receive": {p: _hand(h) for p, h in hands.items()}})  # fmt: skip
        self._emit("first-player", "", contents)
        if self.state.first_turn != "wild":
            return False
        self._emit("color-change-request", "", {"player": seats[0], "number_turn_play": 1})
        return True

    def _round(self, seats: list[str]) -> str | None:
        if self._deal_round(seats):
            self._colour(seats[0])
        while self.state.in_round:
            s = self.state
            if s.winner is not None:
                return self._finish(s.winner)
            if T.handover_due(s):
                self._hand_over()
            elif s.gate == "play-draw":
                self._play_drawn(s.to_act)  # type: ignore[arg-type]
            elif s.gate == "color":
                self._colour(s.chooser)  # type: ignore[arg-type]
            elif s.to_act is not None:
                if not self._turn(s.to_act):
                    return self._finish(None)
        return None

    def _finish(self, winner: str | None) -> str | None:
        """A won round's last card makes the next seat draw (draw 2, wild draw 4: the rules), then the end."""
        s = self.state
        last = self.discards[-1] if self.discards else None
        if winner is not None and last is not None and last.special in ("draw_2", "wild_draw_4") and s.top is not None \
                and s.top.special == last.special:  # fmt: skip
            nxt = s.next_of(winner)
            n = 2 if last.special == "draw_2" else 4
            reason = (s.white_wild or "skip_bind_2") if s.bind.get(nxt, 0) > 0 else last.special
            self._draw_line(nxt, n, reason, forced=True)  # type: ignore[arg-type]
        self._finish_turn(winner)
        return winner

    def _hand_over(self) -> None:
        s = self.state
        who, turn_no, _ = T.expected_next(s)
        after = T.hand_over(s, who, turn_no)
        if (s.owes_draw or self.white_fresh) and s.bind.get(who, 0) > 0:  # type: ignore[arg-type]
            reason = s.white_wild or "skip_bind_2"
        elif s.owes_draw and s.pending > 0 and s.top is not None and s.top.special in ("draw_2", "wild_draw_4"):
            reason = s.top.special
        else:
            reason = "nothing"
        self.white_fresh = False
        self._emit("next-player", "", {
            "next_player": who, "before_player": s.prev_actor, "card_before": _card(s.top) if s.top else None,
            "card_of_player": _hand(s.hand(who)), "turn_right": s.direction, "must_call_draw_card": after.owes_draw,
            "draw_reason": reason, "number_card_play": s.cards_played, "number_turn_play": turn_no,
            "number_card_of_player": {p: len(s.hand(p)) for p in s.seats},
        })  # fmt: skip

    # ------------------------------------------------------------------ asking bots

    def _view(self, code: str, phase: str, legal: list[dict[str, Any]]) -> dict[str, Any]:
        s = self.state
        top = s.top
        return {
            "phase": phase, "me": code, "profile": self.profile.id, "hand": _hand(s.hand(code)),
            "top": _card(top) if top else None, "color": top.color if top else None,
            "stack": {"number": s.pending, "cards": [_card(top)] if s.pending and top else []}, "must_play": False,
            "drawn": _card(s.drawn_card) if s.drawn_card is not None else None,
            "players": [{"code": p, "cards": len(s.hand(p))} for p in s.seats], "seats": list(s.seats),
            "direction": s.direction, "round": s.round_no, "turn": s.turn_no,
            "scores": {p: s.totals.get(p, 0) for p in s.seats}, "legal": legal,
        }  # fmt: skip

    def _ask(self, code: str, phase: str, legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The bot's answer; None when it did not answer in time (its timeout penalty is written)."""
        try:
            return self._call(code, self._view(code, phase, legal))
        except BotTimeout as exc:
            self._timeout(code, "color-of-wild timeout" if phase == "color" else "timeout", exc.args[0])
            return None

    def _timeout(self, p: str, error: str, clock_ms: int) -> None:
        """The dealer's answer to a silent player, written when the clock runs out: the penalty cards (none
        past 25 in hand), the turn lost (a pending draw is drawn next, a colour falls back)."""
        cards = self._take(V.penalty_cards(len(self.state.hand(p))))
        self._emit("penalty", "", {"player": p, "cards_receive": _hand(cards), "number_turn_play": self.state.turn_no,
                                   "error": error}, think=clock_ms + 10)  # fmt: skip

    def _colour_of(self, a: dict[str, Any]) -> str:
        c = a.get("color")
        return c if c in COLORS else self.rng.choice(COLORS)

    # ------------------------------------------------------------------ turns

    def _turn(self, p: str) -> bool:
        """One action of the player to act; False when the round ends with no winner (no progress)."""
        s = self.state
        if s.owes_draw:
            bound = s.bind.get(p, 0) > 0
            if s.pending > 0 and s.top is not None and s.top.special == "wild_draw_4" and not bound \
                    and s.auto_draw is None:  # fmt: skip
                a = self._ask(p, "turn", [{"action": "challenge"}, {"action": "draw"}])
                if a is None:  # out of time: the draw comes after the penalty
                    return True
                if a["action"] == "challenge":
                    self._challenge(p)
                    return True
            reason = (s.white_wild or "skip_bind_2") if bound else (s.top.special if s.top else "nothing")
            self._draw_line(p, s.pending if s.pending > 0 else 1, reason, forced=True)
            return True
        hand = s.hand(p)
        legal: list[dict[str, Any]] = []
        seen: set[Card] = set()
        wd4_ok = self.profile.challenge.wd4_legal(hand, s.top, ())  # the written rule: no other playable card
        for c in hand:
            if c not in seen and playable(c, s.top):
                seen.add(c)
                if c.special != "wild_draw_4" or wd4_ok:
                    legal.append({"action": "play", "card": _card(c)})
        legal.append({"action": "draw"})
        a = self._ask(p, "turn", legal)
        if a is None:
            return True
        if a["action"] == "play":
            card = E.card_of(a.get("card"))
            if card is None or card not in seen:
                raise self._fail(p, f"played {a.get('card')!r}: not a playable card of its hand")
            self._play(p, card, a)
            return True
        if len(hand) >= HAND_CAP:  # a capped voluntary draw: nothing moves
            if s.stall >= NO_PROGRESS:
                return False
            self._emit("draw-card", p, {"can_play_draw_card": False, "card_draw": [], "is_draw": False,
                                        "draw_desk": {"before": s.draw_pile, "after": s.draw_pile},
                                        "draw_reason": "nothing", "number_turn_play": s.turn_no}, think=self._think())  # fmt: skip
            return True
        self._draw_line(p, 1, "nothing", forced=False)
        return True

    def _draw_line(self, p: str, n: int, reason: str, *, forced: bool) -> None:
        s = self.state
        before = s.draw_pile
        cards = self._take(n)
        can = not forced and bool(cards) and playable(cards[0], s.top)
        c: dict[str, Any] = {"can_play_draw_card": can, "card_draw": _hand(cards), "is_draw": True,
                             "draw_desk": {"before": before, "after": len(self.pile)}}  # fmt: skip
        if can:
            c["before_card"] = _card(cards[0])
        c.update({"draw_reason": reason, "number_turn_play": s.turn_no})
        self._emit("draw-card", p, c, think=0 if forced and s.winner else self._think())

    def _play_line(self, event: str, p: str, card: Card, a: dict[str, Any]) -> None:
        s = self.state
        hand = s.hand(p)
        c: dict[str, Any] = {}
        if event == "play-draw-card":
            c["is_play_card"] = True
        c["card_play"] = _card(card)
        c["number_turn_play"] = s.turn_no
        if card.special == "skip" or (card.special == "white_wild" and s.white_wild != "bind_2"):
            c["next_player"], c["skip_player"] = s.opposite_of(p), s.next_of(p)
        elif card.special == "reverse":
            c["next_player"] = s.next_of(p, not s.direction)
        else:
            c["next_player"] = s.next_of(p)
        c["yell_uno"] = len(hand) == 2
        if card.special in ("wild", "wild_draw_4"):
            c["color_of_wild"] = self._colour_of(a)
        self._emit(event, p, c, think=self._think())
        self.discards.append(card)
        self.white_fresh = card.special == "white_wild" and bool(self.state.hand(p))
        if card.special in ("wild", "wild_draw_4"):
            self._emit("color-of-wild", p, {"color_of_wild": c["color_of_wild"], "number_turn_play": s.turn_no})
        elif card.special == "wild_shuffle":
            self._shuffle(p)

    def _play(self, p: str, card: Card, a: dict[str, Any]) -> None:
        self._play_line("play-card", p, card, a)

    def _play_drawn(self, p: str) -> None:
        s = self.state
        card = s.drawn_card
        assert card is not None
        legal = [{"action": "play_drawn", "play": False}]
        hand = list(s.hand(p))
        hand.remove(card)
        if card.special != "wild_draw_4" or self.profile.challenge.wd4_legal(tuple(hand), s.top, ()):
            legal.insert(0, {"action": "play_drawn", "play": True})
        a = self._ask(p, "play_drawn", legal)
        if a is None:
            return
        if a.get("play"):
            self._play_line("play-draw-card", p, card, a)
            return
        self._emit("play-draw-card", p, {"is_play_card": False, "number_turn_play": s.turn_no, "yell_uno": False},
                   think=self._think())  # fmt: skip

    def _colour(self, chooser: str) -> None:
        a = self._ask(chooser, "color", [{"action": "color"}])
        if a is None:
            return
        self._emit("color-of-wild", chooser, {"color_of_wild": self._colour_of(a),
                                              "number_turn_play": self.state.turn_no}, think=self._think())  # fmt: skip

    def _shuffle(self, p: str) -> None:
        """Wild shuffle: every hand (but an emptied one) collected, shuffled and dealt from the next seat on."""
        s = self.state
        order, q = [], s.next_of(p)
        for _ in s.seats:
            order.append(q)
            q = s.next_of(q)
        receivers = [x for x in order if x != p or s.hand(p)]
        cards = [c for x in receivers for c in s.hand(x)]
        self.rng.shuffle(cards)
        new: dict[str, list[Card]] = {x: [] for x in s.seats}
        for i, c in enumerate(cards):
            new[receivers[i % len(receivers)]].append(c)  # type: ignore[index]
        self._emit("shuffle-wild", "", {"player": p, "cards_receive": {x: _hand(new[x]) for x in s.seats},
                                        "number_turn_play": s.turn_no})  # fmt: skip
        self._emit("color-change-request", "", {"player": p, "number_turn_play": s.turn_no})

    def _challenge(self, p: str) -> None:
        s = self.state
        target = s.prev_actor
        assert target is not None
        hand = s.hand(target)
        self._emit("public-card", "", {"player": target, "cards": _hand(hand), "number_turn_play": s.turn_no},
                   think=self._think())  # fmt: skip
        success = V.challenge_succeeds(hand, s.wd4_base)
        if success:
            wd4 = self.discards.pop()
            cards = [wd4] + self._take(4)
            receiver = target
        else:
            cards = self._take(6)
            receiver = p
        self._emit("challenge", p, {"target": target, "is_challenge": True, "result": {
            "is_challenge_success": success, "player": receiver, "cards_receive": _hand(cards)},
            "number_turn_play": s.turn_no})  # fmt: skip
