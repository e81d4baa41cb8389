"""``kifu dealer``: the ALGORI 2023 dealer's table, played by bots that speak its socket.io protocol.

The table is :class:`~referee.algori.AlgoriTable` — the same rules, the same log lines — with the
players' answers coming from the network instead of from a Python function.  It runs in one
thread and reads every player message from one queue (:class:`Inbox`), in the order they
arrived, so the log is the order the dealer judged them in.  Each message is judged by the rules
the validator judges dealer logs with (:mod:`rules.uno.verdicts`): a message the system
specification answers with an error only is answered and forgotten; one it penalises is written
to the log with the penalty after it, like the dealer does.  Every line written is also told to
the players (:meth:`DealerTable._notify`) with the specification's payload: ``next-player`` to the
player to act, ``receiver-card`` to whoever got cards, ``play-card`` to everybody, …

The socket server (:mod:`referee.dealer_server`) puts messages in the inbox and sends what the
table gives it; this module knows no socket.io.  A seat can also be a built-in bot
(``--fill``): its answers are made into the messages a client would send.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from referee.algori import NO_PROGRESS, AlgoriTable
from referee.match import Seat, _card, _hand
from rules.uno import events as E
from rules.uno import transitions as T
from rules.uno import verdicts as V
from rules.uno.consistency import expected_view
from rules.uno.cards import Card
from rules.uno.profile import Profile
from rules.uno.state import HAND_CAP, playable

#: The player messages that act on the game (besides join-room, special-logic and pointed-not-say-uno).
ACTIONS = ("play-card", "draw-card", "play-draw-card", "challenge", "color-of-wild")
NAME_MAX = 20  # the dealer's MAX_NAME_LENGTH

#: ``--pace official``: the official dealer (uno-procon ``server.socket.ts``, ``common.service.ts``) waits
#: ``AppConst.TIMEOUT_DELAY`` = 10 ms at fixed points — once when a handler takes a player's message, and
#: before the lines below, as many times as it waits on the way to each (a card played: the message, the
#: play-card line, the next-player line — three; a wild or a white wild one more).
PACE_S = 0.010
WAITS = {"first-player": 2, "play-card": 1, "play-draw-card": 2, "color-of-wild": 1, "draw-card": 1,
         "next-player": 1, "penalty": 1, "public-card": 1, "challenge": 2, "pointed-not-say-uno": 2,
         "finish-turn": 1}  # fmt: skip


class DealerStop(Exception):
    """The match cannot go on (every player has left); the message says why."""


@dataclass
class Message:
    """One message of a player: its event, its data, and how to answer it (the ack: ``err, data``)."""

    code: str | None  # the player's code (None before join-room)
    event: str
    data: Any
    answer: Callable[[Any, Any], None] = lambda err, data: None
    sid: str = ""

    def ok(self, data: Any = None) -> None:
        self.answer(None, data if data is not None else {})

    def error(self, message: str) -> None:
        self.answer({"message": message}, None)


class Hub(Protocol):
    """Where the table's messages to players go (the socket server)."""

    def send(self, code: str, event: str, data: Any) -> None: ...
    def broadcast(self, event: str, data: Any) -> None: ...
    def connected(self) -> list[str]: ...
    def drop(self, code: str) -> None: ...


@dataclass
class Inbox:
    """Every player message in arrival order (the server thread puts, the table thread takes)."""

    q: queue.Queue[Message] = field(default_factory=queue.Queue)
    held: Message | None = None  # a message taken and put back, the first to be taken again

    def put(self, m: Message) -> None:
        self.q.put(m)

    def get(self, timeout: float) -> Message | None:
        if self.held is not None:
            m, self.held = self.held, None
            return m
        try:
            return self.q.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def hold(self, m: Message) -> None:
        self.held = m


def _now_ms() -> int:
    return int(time.time() * 1000)


class DealerTable(AlgoriTable):
    """One ALGORI match whose players are socket.io clients (or built-in bots filling a seat)."""

    def __init__(self, profile: Profile, seats: list[Seat], hub: Hub, inbox: Inbox, *, timeout_s: float = 5.0,
                 remote: set[str], pace_s: float = 0.0, joined_ms: dict[str, int] | None = None,
                 **kw: Any) -> None:  # fmt: skip
        super().__init__(profile, seats, **kw)
        # when each socket player joined (epoch ms): its join-room line, written as the match starts, carries it
        self.joined_ms = dict(joined_ms or {})
        self.hub, self.inbox, self.timeout_s, self.remote = hub, inbox, timeout_s, remote
        self.pace_s = pace_s  # PACE_S with --pace official, else 0
        self.gone: set[str] = set()
        self.deadline = 0.0  # when the clock of the player waited for runs out (time.monotonic)
        self.taken: list[Card] = []
        self.t = _now_ms()

    # ------------------------------------------------------------------ writing and telling

    def _think(self) -> int:
        return 0

    def _emit(self, event: str, player: str, contents: dict[str, Any], *, refused: str | None = None,
              think: int = 0, tell: bool = True) -> E.Event:  # fmt: skip
        card = E.card_of(contents.get("card_play")) if event == "play-card" else None
        self._wait(WAITS.get(event, 0) + (card is not None and card.special == "white_wild"))  # its effect: one more
        if event == "join-room" and player in self.joined_ms:  # a seat taken before the match: when it was
            self.t = self.joined_ms.pop(player) - 1
        else:
            self.t = max(self.t, _now_ms() - 1)  # the wall clock: a live match's lines carry when they were written
        before = self.state
        ev = super()._emit(event, player, contents, refused=refused, think=0)
        if refused is None and tell:
            self._notify(event, player, contents, before)
        return ev

    def _wait(self, n: int) -> None:
        if self.pace_s and n:
            time.sleep(self.pace_s * n)

    def _desk(self, before: Any, after: Any, ev: E.Event) -> dict[str, Any] | None:
        """The dealer's desk; a play of a card the player does not hold shows that hand one card short (the
        dealer removes "the played card" from its copy of the hand all the same)."""
        desk = super()._desk(before, after, ev)
        view = expected_view(before, after, ev)
        if desk is not None and view is not None and view.loose_hand in desk["card_of_player"]:
            hand = desk["card_of_player"][view.loose_hand]
            desk["card_of_player"] = {**desk["card_of_player"], view.loose_hand: hand[:-1]}
        return desk

    def _notify(self, event: str, player: str, c: dict[str, Any], before: Any) -> None:
        """A log line told to the players, in the system specification's payloads."""
        s, hub = self.state, self.hub
        counts = {p: len(s.hand(p)) for p in s.seats}
        if event == "first-player":
            for p in c["play_order"]:
                self._send(p, "receiver-card", {"cards_receive": c["cards_receive"][p], "is_penalty": False})
            told = {"first_player": c["first_player"], "first_card": c["first_card"], "play_order": c["play_order"],
                    "total_turn": self.rounds}  # fmt: skip
            if "white_wild" in c:  # the program adds these two to the specification's payload (no white wild: absent)
                told["white_wild"] = c["white_wild"]
            hub.broadcast("first-player", told)
        elif event == "color-change-request":
            self._send(c["player"], "color-of-wild", {})
        elif event == "color-of-wild":
            hub.broadcast("update-color", {"color": c["color_of_wild"]})
        elif event == "shuffle-wild":
            for p, cards in c["cards_receive"].items():
                if cards or p != c["player"]:
                    self._send(p, "shuffle-wild", {"cards_receive": cards, "number_card_of_player": counts})
        elif event == "next-player":
            self._send(c["next_player"], "next-player", {
                "next_player": c["next_player"], "before_player": c["before_player"], "card_before": c["card_before"],
                "card_of_player": c["card_of_player"], "must_call_draw_card": c["must_call_draw_card"],
                "draw_reason": c["draw_reason"], "turn_right": c["turn_right"],
                "number_card_play": c["number_card_play"], "number_turn_play": c["number_turn_play"],
                "number_card_of_player": c["number_card_of_player"],
            })  # fmt: skip
        elif event in ("play-card", "play-draw-card"):
            out = {k: c[k] for k in ("is_play_card", "card_play", "yell_uno", "color_of_wild") if k in c}
            hub.broadcast(event, {**out, "player": player})
        elif event == "draw-card":
            if c["is_draw"]:
                self._send(player, "receiver-card", {"cards_receive": c["card_draw"], "is_penalty": False})
            hub.broadcast("draw-card", {"player": player, "is_draw": c["is_draw"]})
        elif event == "public-card":
            pass  # sent to the challenger alone, by _challenge
        elif event == "challenge":
            r = c.get("result") or {}
            out = {"challenger": player, "target": c["target"], "is_challenge": c["is_challenge"]}
            if c["is_challenge"]:
                out["is_challenge_success"] = r.get("is_challenge_success")
            hub.broadcast("challenge", out)  # then the cards, as the program sends them (the challenge handler)
            if c["is_challenge"]:
                self._send(r["player"], "receiver-card", {"cards_receive": r["cards_receive"], "is_penalty": False})
        elif event == "pointed-not-say-uno":
            hub.broadcast(event, {"pointer": c["pointer"], "target": c["target"], "have_say_uno": c["have_say_uno"]})
        elif event == "penalty":  # a missed UNO's cards are sent as the program sends them: is_penalty false
            self._send(c["player"], "receiver-card", {"cards_receive": c["cards_receive"],
                                                      "is_penalty": c["error"] != "Did not say uno."})
            hub.broadcast("penalty", {"player": c["player"], "number_card_of_player": counts.get(c["player"]),
                                      "error": c["error"]})  # fmt: skip
        elif event == "finish-turn":
            hub.broadcast("finish-turn", {"winner": c.get("winner") or "", "turn_no": s.round_no, "score": c["score"]})
        elif event == "finish-game":
            hub.broadcast("finish-game", {"winner": c["winner"], "turn_win": c["order"].get(c["winner"], 0),
                                          "order": c["order"], "total_score": c["score"]})  # fmt: skip

    def _send(self, code: str, event: str, data: Any) -> None:
        if code in self.remote:
            self.hub.send(code, event, data)

    # ------------------------------------------------------------------ waiting for a player

    def _await(self, p: str, phase: str) -> Message | None:
        """The next message of ``p`` that acts in ``phase``; other messages are handled as they come.
        None when the clock ran out (or the player has left: its clock runs out at once)."""
        if p not in self.remote:
            self._wait(1)  # as the handler of the message the bot would have sent
            return self._local(p, phase)
        while True:  # a player whose socket left has its clock too (it may join again in time), as at the kit
            m = self.inbox.get(self.deadline - time.monotonic())
            if m is None:
                if self.remote and not set(self.hub.connected()) & self.remote:  # gone, and nobody back before its clock ran out
                    raise DealerStop("every player left the match")
                return None
            if m.event != "disconnect":
                self._wait(1)  # the handler's first wait
            if m.code == p and m.event in ACTIONS:
                if self._too_few(m):
                    continue
                if phase == "play_drawn" and m.event != "play-draw-card":
                    m.error("Interrupts are restricted.")
                    continue
                return m
            self.side(m, restricted=phase in ("play_drawn", "color"))

    def side(self, m: Message, *, restricted: bool = False) -> None:
        """A message that is not the awaited action: a disconnect, special logic, a UNO pointing, an action
        out of turn."""
        if m.event == "disconnect":
            if m.code is not None and m.code not in self.gone:
                self.gone.add(m.code)
                self._disconnect_line(m.code, m.sid)
            return
        if m.event == "rejoin":  # a player whose socket left joined again under its name
            self.gone.discard(m.code)  # type: ignore[arg-type]
            self._emit("join-room", m.code, {"player_code": m.code, "player_name": m.data})  # type: ignore[arg-type]
            return
        if m.code is None:
            m.error("Dealer not found.")
            return
        if self._too_few(m):
            return
        if restricted:
            m.error("Interrupts are restricted.")
        elif m.event == "special-logic":
            self._special_logic(m)
        elif m.event == "pointed-not-say-uno":
            self._pointed(m)
        elif m.event in ("play-card", "play-draw-card", "color-of-wild"):  # out of turn: written, then penalised
            self._refused_line(m, "Next player invalid.")
        elif m.event in ("draw-card", "challenge"):  # out of turn: only the penalty is written
            self._penalise(m.code, "Next player invalid.")
            m.error("Next player invalid.")
        else:
            m.error(f"Unknown event {m.event}.")

    def _too_few(self, m: Message) -> bool:
        """The dealer's first check of every message: fewer than two players left at the table (sockets
        still connected, and seats a built-in bot fills) answers the sender and closes its socket."""
        fill = sum(1 for seat in self.seats if seat.code not in self.remote)
        if len(set(self.hub.connected()) & self.remote) + fill >= 2:
            return False
        m.error("Number of socket client join dealer lower two.")
        if m.code is not None:
            self.hub.drop(m.code)
        return True

    def _drain(self) -> None:
        """Messages that came while nobody was being waited for (between the lines of a turn).  The action of
        the player already told to act (``next-player``, ``color-of-wild``, a draw's answer) stays for
        :meth:`_await`: a fast bot answers before the table is back to wait for it."""
        while (m := self.inbox.get(0)) is not None:
            if m.event in ACTIONS and m.code is not None and m.code == self._told():
                self.inbox.hold(m)
                return
            if m.event != "disconnect":
                self._wait(1)
            # while a built-in bot's drawn card or colour is awaited the gate is closed: interrupts are restricted
            self.side(m, restricted=self.state.in_round and self.state.gate in ("play-draw", "color"))

    def _told(self) -> str | None:
        """The player the table has told to act and will wait for next, if any."""
        s = self.state
        if not s.in_round or s.winner is not None or s.auto_draw is not None or T.handover_due(s):
            return None
        return s.chooser if s.gate == "color" else s.to_act

    def _local(self, p: str, phase: str) -> Message:
        """A built-in bot's answer, as the message a client would send."""
        s = self.state
        if phase == "color":
            a = self._ask(p, "color", [{"action": "color"}])
            return Message(p, "color-of-wild", {"color_of_wild": self._colour_of(a)})
        if phase == "play_drawn":
            card = s.drawn_card
            assert card is not None
            hand = list(s.hand(p))
            hand.remove(card)
            legal = [{"action": "play_drawn", "play": False}]
            if card.special != "wild_draw_4" or self.profile.challenge.wd4_legal(tuple(hand), s.top, ()):
                legal.insert(0, {"action": "play_drawn", "play": True})
            a = self._ask(p, "play_drawn", legal)
            data: dict[str, Any] = {"is_play_card": bool(a.get("play")), "yell_uno": bool(a.get("play")) and len(hand) == 1}
            if a.get("play") and card.special in ("wild", "wild_draw_4"):
                data["color_of_wild"] = self._colour_of(a)
            return Message(p, "play-draw-card", data)
        if s.owes_draw:
            bound = s.bind.get(p, 0) > 0
            if s.pending > 0 and s.top is not None and s.top.special == "wild_draw_4" and not bound:
                a = self._ask(p, "turn", [{"action": "challenge"}, {"action": "draw"}])
                if a["action"] == "challenge":
                    return Message(p, "challenge", {"is_challenge": True})
            return Message(p, "draw-card", {})
        hand = s.hand(p)
        wd4_ok = self.profile.challenge.wd4_legal(hand, s.top, ())
        legal = [{"action": "play", "card": _card(c)} for c in dict.fromkeys(hand)
                 if playable(c, s.top) and (c.special != "wild_draw_4" or wd4_ok)]  # fmt: skip
        legal.append({"action": "draw"})
        a = self._ask(p, "turn", legal)
        if a["action"] != "play":
            return Message(p, "draw-card", {})
        data = {"card_play": a.get("card"), "yell_uno": len(hand) == 2}
        card = E.card_of(a.get("card"))
        if card is not None and card.special in ("wild", "wild_draw_4"):
            data["color_of_wild"] = self._colour_of(a)
        return Message(p, "play-card", data)

    # ------------------------------------------------------------------ the round

    def _round(self, seats: list[str]) -> str | None:
        self._deal_round(seats)
        while self.state.in_round:
            self._drain()
            s = self.state
            if s.winner is not None:
                return self._finish(s.winner)
            if s.stall >= NO_PROGRESS and T.handover_due(s):  # nobody can move (hands of 25, timeouts)
                return self._finish(None)
            if s.auto_draw is not None:  # a penalised player who owed a draw draws it
                self._forced(s.to_act)  # type: ignore[arg-type]
            elif T.handover_due(s):
                self._hand_over()
            elif s.gate == "play-draw":
                self._act(s.to_act, "play_drawn")  # type: ignore[arg-type]
            elif s.gate == "color":
                self._act(s.chooser, "color")  # type: ignore[arg-type]
            elif s.to_act is not None:
                if not self._act(s.to_act, "turn"):
                    return self._finish(None)
        return None

    def _forced(self, p: str) -> None:
        s = self.state
        bound = s.bind.get(p, 0) > 0
        reason = (s.white_wild or "skip_bind_2") if bound else (s.top.special if s.top else "nothing")
        self._draw_line(p, s.pending if s.pending > 0 else 1, reason, forced=True)

    def _act(self, p: str, phase: str) -> bool:
        """One action of the player to act (or its timeout); False when the round ends with no winner.  Its clock
        runs from the hand-over, through any message refused meanwhile (only a special logic restarts it)."""
        self.deadline = time.monotonic() + self.timeout_s
        while True:
            m = self._await(p, phase)
            if m is None:
                self._penalise(p, "color-of-wild timeout" if phase == "color" else "timeout")
                return True
            done = self._judge(m, phase)
            if done is not None:
                return done

    def _judge(self, m: Message, phase: str) -> bool | None:
        """The awaited player's message judged and carried out; None when the turn is not over yet (a challenge
        not made)."""
        s, p, data = self.state, m.code, m.data if isinstance(m.data, dict) else {}
        assert p is not None
        if m.event == "color-of-wild":
            if phase != "color":
                return self._refused_line(m, "Already changed color.")
            c = {"color_of_wild": data.get("color_of_wild"), "number_turn_play": s.turn_no}
            probe = E.to_event({"seq": 0, "event": "color-of-wild", "player": p, "turn": s.round_no, "contents": c})
            err = V.color_of_wild(s, probe)  # type: ignore[arg-type]
            if err is not None:
                return self._refused_line(m, err)
            self._emit("color-of-wild", p, c)
            m.ok(data)
            return True
        if phase == "color":
            m.error("Interrupts are restricted.")
            return None
        if m.event == "challenge":
            may = s.owes_draw and s.pending > 0 and s.top is not None and s.top.special == "wild_draw_4" \
                and not s.bind.get(p, 0)  # fmt: skip
            flag = data.get("is_challenge")
            err = V.bool_param_error(flag, "Is challenge is required.", "Param is challenge invalie.")
            if err is not None:  # the program takes the strings "true" and "false" too, and then JavaScript's truth
                return self._penalise_answer(m, err)
            if not may:
                return self._penalise_answer(m, "Can not challenge.")
            if not V.truthy(flag):
                self._emit("challenge", p, {"target": s.prev_actor, "is_challenge": False, "number_turn_play": s.turn_no})
                m.ok(data)
                return None
            target = s.prev_actor
            assert target is not None
            self._send(p, "public-card", {"card_of_player": target, "cards": _hand(s.hand(target))})
            self._challenge(p)
            m.ok(data)
            return True
        if m.event == "draw-card":
            return self._draw(m)
        if m.event == "play-card":
            c = self._play_contents(m, data.get("card_play"))
            probe = E.to_event({"seq": 0, "event": "play-card", "player": p, "turn": s.round_no, "contents": c})
            err = V.play_card(s, probe)  # type: ignore[arg-type]
            if err is not None:
                return self._refused_line(m, err, c)
            card = E.card_of(data.get("card_play"))
            assert card is not None
            self._accepted("play-card", p, card, c)
            m.ok(data)
            return True
        if m.event == "play-draw-card":
            card = s.drawn_card
            c = {"is_play_card": data.get("is_play_card"), **self._play_contents(m, _card(card) if card else None)}
            probe = E.to_event({"seq": 0, "event": "play-draw-card", "player": p, "turn": s.round_no, "contents": c})
            err = V.play_draw_card(s, probe)  # type: ignore[arg-type]
            if err is not None:
                return self._refused_line(m, err, c)
            if data.get("is_play_card") and card is not None:
                self._accepted("play-draw-card", p, card, c)
            else:
                self._emit("play-draw-card", p, {"is_play_card": False, "number_turn_play": s.turn_no,
                                                 "yell_uno": bool(data.get("yell_uno"))})  # fmt: skip
            m.ok(data)
            return True
        m.error(f"Unknown event {m.event}.")
        return None

    def _play_contents(self, m: Message, card_raw: Any) -> dict[str, Any]:
        """A play line's contents as the dealer writes them: the card, the seat the play would hand the turn to,
        the player's UNO call and colour as sent."""
        s, p, data = self.state, m.code, m.data if isinstance(m.data, dict) else {}
        c: dict[str, Any] = {"card_play": card_raw, "number_turn_play": s.turn_no}
        card = E.card_of(card_raw)
        if card is not None and p in s.seats:
            if card.special == "skip" or (card.special == "white_wild" and s.white_wild != "bind_2"):
                c["next_player"], c["skip_player"] = s.opposite_of(p), s.next_of(p)
            elif card.special == "reverse":
                c["next_player"] = s.next_of(p, not s.direction)
            else:
                c["next_player"] = s.next_of(p)
        if "yell_uno" in data:
            c["yell_uno"] = data["yell_uno"]
        if "color_of_wild" in data:
            c["color_of_wild"] = data["color_of_wild"]
        return c

    def _accepted(self, event: str, p: str, card: Card, c: dict[str, Any]) -> None:
        """An accepted play: its line, the dealer's colour line after a wild, a wild shuffle's new hands.  A drawn
        wild's colour line comes after the next player is told, as the program writes it (its play-draw-card
        handler hands the turn over first), with the play's turn number."""
        s = self.state
        self._emit(event, p, c)
        self.discards.append(card)
        self.white_fresh = card.special == "white_wild" and bool(self.state.hand(p))
        if card.special in ("wild", "wild_draw_4"):
            if event == "play-draw-card" and T.handover_due(self.state):
                self._hand_over()
            self._emit("color-of-wild", p, {"color_of_wild": c["color_of_wild"], "number_turn_play": s.turn_no})
        elif card.special == "wild_shuffle":
            self._shuffle(p)

    def _draw(self, m: Message) -> bool:
        s, p = self.state, m.code
        assert p is not None
        if s.owes_draw:
            self._forced(p)
            m.ok({"player": p, "is_draw": True, "can_play_draw_card": False, "draw_card": _hand(self.taken)})
            return True
        if len(s.hand(p)) >= HAND_CAP:  # a capped voluntary draw: nothing moves
            if s.stall >= NO_PROGRESS:
                m.ok({})
                return False
            self._emit("draw-card", p, {"can_play_draw_card": False, "card_draw": [], "is_draw": False,
                                        "draw_desk": {"before": s.draw_pile, "after": s.draw_pile},
                                        "draw_reason": "nothing", "number_turn_play": s.turn_no})  # fmt: skip
            m.ok({"player": p, "is_draw": False, "can_play_draw_card": False})
            return True
        self._draw_line(p, 1, "nothing", forced=False)
        m.ok({"player": p, "is_draw": True, "can_play_draw_card": self.state.gate == "play-draw",
              "draw_card": _hand(self.taken)})  # fmt: skip
        return True

    def _take(self, n: int) -> list[Card]:
        self.taken = super()._take(n)  # the cards of the last draw (a draw-card's answer tells them)
        return self.taken

    # ------------------------------------------------------------------ errors and penalties

    def _refused_line(self, m: Message, error: str, contents: dict[str, Any] | None = None) -> bool:
        """An action the dealer writes, then refuses with a penalty (the specification's ○ errors)."""
        s, p = self.state, m.code
        assert p is not None
        c = contents if contents is not None else {**(m.data if isinstance(m.data, dict) else {}),
                                                   "number_turn_play": s.turn_no}  # fmt: skip
        if self._capped(p, error) and m.event in ("play-card", "play-draw-card", "color-of-wild"):
            # a hand of 25: written, and no penalty line (the dealer has no card to give); the line is the refusal
            # (the rules' ``silently_refused``), and the turn is lost as a penalty would lose it
            self._emit(m.event, p, c, tell=False)
            self.state = T.lose_turn(self.state, p, error)
        else:
            self._emit(m.event, p, c, refused=error)
            self._penalise(p, error)
        m.error(error)
        return True

    def _penalise_answer(self, m: Message, error: str) -> bool:
        assert m.code is not None
        self._penalise(m.code, error)
        m.error(error)
        return True

    def _capped(self, p: str, error: str) -> bool:
        """A penalty the dealer writes no line for: its player holds 25 cards (a timeout's line is written all the
        same)."""
        return len(self.state.hand(p)) == HAND_CAP and error not in T.TIMEOUTS  # past 25: a line of no card

    def _penalise(self, p: str, error: str) -> None:
        """The penalty line: two cards (fewer when the hand would pass 25; none and no line at 25 — the turn of
        the player to act is lost all the same)."""
        if self._capped(p, error):
            self.state = T.lose_turn(self.state, p, error)
            return
        n = V.penalty_cards(len(self.state.hand(p)))
        cards = self._take(n)
        self._emit("penalty", "", {"player": p, "cards_receive": _hand(cards), "number_turn_play": self.state.turn_no,
                                   "error": error})  # fmt: skip

    def _special_logic(self, m: Message) -> None:
        s, p, data = self.state, m.code, m.data if isinstance(m.data, dict) else {}
        assert p is not None
        c = {"title": data.get("title", E.MISSING), "number_turn_play": s.turn_no}
        probe = E.to_event({"seq": 0, "event": "special-logic", "player": p, "turn": s.round_no,
                            "contents": {k: v for k, v in c.items() if v is not E.MISSING}})  # fmt: skip
        err = V.special_logic(s, probe)  # type: ignore[arg-type]
        if err is not None:
            self._refused_line(m, err, {k: v for k, v in c.items() if v is not E.MISSING})
            return
        if not s.in_round:
            m.ok(m.data)
            return
        counted = s.special_logic.get(p, 0) < V.SPECIAL_LOGIC_LIMIT  # past ten a round: written, not carried out
        self._emit("special-logic", p, c)
        if counted:  # the dealer restarts the clock of the player it waits for
            self.deadline = time.monotonic() + self.timeout_s
        m.ok(m.data)

    def _pointed(self, m: Message) -> None:
        s, p, data = self.state, m.code, m.data if isinstance(m.data, dict) else {}
        assert p is not None
        target = data.get("target")
        if isinstance(target, str) and target in s.uno_penalized:
            m.error("Already penalized.")
            return
        probe = E.to_event({"seq": 0, "event": "pointed-not-say-uno", "player": p, "turn": s.round_no,
                            "contents": {"pointer": p, "target": target}})  # fmt: skip
        verdict = V.pointing(s, probe)  # type: ignore[arg-type]
        if not s.in_round:
            m.error("Out of target.")
            return
        said = bool(s.yell.get(target, False)) if isinstance(target, str) else False
        c = {"pointer": p, "target": target, "have_say_uno": said,
             "card_of_player": _hand(s.hand(target)) if isinstance(target, str) and target in s.seats else []}
        if verdict in E.POINT_ERRORS:
            self._refused_line(m, verdict, c)  # type: ignore[arg-type]
            return
        # the program writes the line before its checks: "Out of target." is written, then only answered
        self._emit("pointed-not-say-uno", p, c, tell=False)
        if verdict == "Out of target.":
            m.error(verdict)
            return
        if verdict == "Did not say uno.":  # the target's cards and the penalty told first, then the pointing
            self._penalise(target, verdict)  # type: ignore[arg-type]
            self.deadline = time.monotonic() + self.timeout_s  # the program restarts the clock of the player to act
        self.hub.broadcast("pointed-not-say-uno", {"pointer": p, "target": target, "have_say_uno": said})
        m.ok(m.data)

    def _disconnect_line(self, code: str, sid: str) -> None:
        """The dealer's ``disconnect`` line: no turn, no desk, the socket id as contents."""
        self.t = max(self.t + 1, _now_ms())
        self.sink(orjson.dumps({"dealer_code": self.dealer_code, "event": "disconnect", "dealer": self.dealer,
                                "player": code, "contents": sid, "dateCreated": self.t}))  # fmt: skip
