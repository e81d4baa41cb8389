"""A tiny writer of JUA (``jua-2016``) activity logs for the golden tests.

Written from ``docs/rules/jua.md`` (the log shape) and ``shared/reference/algori-log-format.md``
(the ALGORI envelope), not from the validator. It knows nothing of the rules: every line a
scenario writes is the line the scenario asks for. What it does keep is the bookkeeping a hand
writer gets wrong, so that a golden log says only what its test means:

* it tracks hands and the discard pile, so a challenge's ``public-card`` shows the real hand
  and a ``finish-turn`` score is the JUA score of the real hands (R22: winner + the others'
  points, every other player − their own);
* it hands out drawn cards (penalties, forced draws, challenge cards) from the cards still in
  the draw pile, and refuses (``strict``) any log where a card is in play more often than the
  108-card deck holds it, so no scenario gets a ``conservation`` finding by accident.

Cards are written short: ``r5`` red 5, ``bS`` blue skip, ``gR`` green reverse, ``y+2`` yellow
draw 2, ``W`` wild, ``W+4`` wild draw 4; a hand is a space-separated string.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

COLOURS = {"r": "red", "b": "blue", "y": "yellow", "g": "green"}
SYMBOLS = {"S": "skip", "R": "reverse", "+2": "draw_2"}


def card(tok: str | dict) -> dict:
    """``"r5"`` → ``{"color": "red", "number": 5}``; a dict is taken as it is (odd cards)."""
    if isinstance(tok, dict):
        return dict(tok)
    if tok == "W":
        return {"color": "black", "special": "wild"}
    if tok == "W+4":
        return {"color": "black", "special": "wild_draw_4"}
    colour, rest = COLOURS[tok[0]], tok[1:]
    if rest.isdigit():
        return {"color": colour, "number": int(rest)}
    return {"color": colour, "special": SYMBOLS[rest]}


def cards(toks: str | list) -> list[dict]:
    if isinstance(toks, str):
        toks = toks.split()
    return [card(t) for t in toks]


def key(c: dict) -> tuple:
    return (c["color"], c["number"] if "number" in c else c.get("special"))


def deck() -> Counter:
    """The JUA set: per colour one 0, two each of 1–9, two skip, reverse, draw 2; four wild, four wild draw 4."""
    d: Counter = Counter()
    for colour in COLOURS.values():
        d[(colour, 0)] = 1
        for n in range(1, 10):
            d[(colour, n)] = 2
        for s in SYMBOLS.values():
            d[(colour, s)] = 2
    d[("black", "wild")] = 4
    d[("black", "wild_draw_4")] = 4
    return d


DECK = deck()
assert sum(DECK.values()) == 108

# Order in which drawn cards are handed out when a scenario does not name them: high yellow and
# green numbers first (they are the cards the scenarios use least).
_SUPPLY = (
    [("yellow", n) for n in range(9, 0, -1)] + [("green", n) for n in range(9, 0, -1)]
    + [("blue", n) for n in range(9, 0, -1)] + [("red", n) for n in range(9, 0, -1)]
    + [(c, 0) for c in ("yellow", "green", "blue", "red")]
    + [(c, s) for s in ("skip", "reverse", "draw_2") for c in ("yellow", "green", "blue", "red")]
    + [("black", "wild"), ("black", "wild_draw_4")]
)


def points(c: dict) -> int:
    """スコアリング: numbers face value, skip / reverse / draw 2 20, wild / wild draw 4 50."""
    if "number" in c:
        return int(c["number"])
    return 50 if c["color"] == "black" else 20


def stack(number: int, toks: str = "") -> dict:
    """A ``draw_stack`` value: ``stack(4, "r+2 b+2")``."""
    return {"number": number, "cards": cards(toks)}




class Log:
    """One match log, line by line. ``rows`` is the list of activities the validator replays."""

    def __init__(self, order: list[str], first: str | dict, hands: dict[str, str] | None = None, *,
                 returned: str = "", joins: list[str] | None = None, ruleset: str = "jua-2016",
                 strict: bool = True) -> None:
        self.rows: list[dict[str, Any]] = []
        self.ruleset = ruleset
        self.strict = strict
        self.round = 0
        self.totals: dict[str, int] = {}
        self.wins: dict[str, int] = {}
        self.players = list(joins or order)
        for p in self.players:
            self._row("join-room", p, {"player_code": p, "player_name": p.lower()}, turn=None)
        self.deal(order, first, hands, returned=returned)

    # ---- bookkeeping -------------------------------------------------------------------------
    def _row(self, event: str, player: str, contents: dict, *, turn: Any = "round") -> dict:
        row = {"seq": len(self.rows) + 1, "event": event, "player": player,
               "turn": self.round if turn == "round" else turn, "contents": contents,
               "desk": None, "date_ms": None}
        self.rows.append(row)
        return row

    def _in_play(self) -> Counter:
        used: Counter = Counter()
        for hand in self.hands.values():
            used.update(key(c) for c in hand)
        used.update(key(c) for c in self.discard)
        return used

    def _check(self) -> None:
        if not self.strict:
            return
        used = self._in_play()
        over = {k: n for k, n in used.items() if n > DECK.get(k, 0)}
        assert not over, f"golden log holds more cards than the deck: {over}"

    def supply(self, n: int) -> list[dict]:
        """``n`` cards still in the draw pile (deterministic)."""
        used = self._in_play()
        out: list[dict] = []
        for k in _SUPPLY:
            while len(out) < n and used[k] < DECK[k]:
                used[k] += 1
                colour, what = k
                out.append({"color": colour, "number": what} if isinstance(what, int)
                           else {"color": colour, "special": what})
        assert len(out) == n, "draw pile exhausted in a golden log"
        return out

    def _take(self, p: str, c: dict) -> None:
        hand = self.hands[p]
        for i, h in enumerate(hand):
            if key(h) == key(c):
                del hand[i]
                return
        assert not self.strict, f"{p} does not hold {c} (use refused=True for a refused play)"

    def _give(self, p: str, cs: list[dict]) -> None:
        self.hands[p].extend(cs)
        self._check()

    def hand(self, p: str) -> list[dict]:
        return [dict(c) for c in self.hands[p]]

    # ---- dealer lines ------------------------------------------------------------------------
    def deal(self, order: list[str], first: str | dict, hands: dict[str, str] | None = None, *,
             returned: str = "") -> Log:
        """``first-player`` of the next round: ``order`` clockwise from the start player (seat 0)."""
        self.round += 1
        self.order = list(order)
        self.discard = [card(first)]
        self.hands = {p: [] for p in order}
        if hands is None:  # deal 7 each from the pile, seat by seat
            for p in order:
                self.hands[p] = self.supply(7)
        else:
            self.hands = {p: cards(h) for p, h in hands.items()}
        self._check()
        contents: dict[str, Any] = {
            "ruleset": self.ruleset, "first_player": order[0], "first_card": card(first),
            "play_order": list(order), "cards_receive": {p: self.hand(p) for p in order},
        }
        if returned:
            contents["first_card_returned"] = cards(returned)
        self._row("first-player", "", contents)
        return self

    def next(self, p: str, **fields: Any) -> Log:
        """``next-player``: the turn goes to ``p`` (optional fields, e.g. ``draw_stack``, as given)."""
        self._row("next-player", "", {"next_player": p, **fields})
        return self

    def colour(self, p: str, colour: str) -> Log:
        """The colour of a wild turned as the first card: ``color-change-request`` then ``color-of-wild``."""
        self._row("color-change-request", "", {"player": p})
        self._row("color-of-wild", p, {"color_of_wild": colour})
        return self

    def penalty(self, p: str, error: str, n: int = 2) -> Log:
        """The referee's refusal: ``p`` draws ``n`` (R11) for ``error`` (jua.md penalty table)."""
        cs = self.supply(n)
        self._row("penalty", "", {"player": p, "cards_receive": cs, "error": error})
        self._give(p, cs)
        return self

    def finish(self, winner: str, score: dict[str, int] | None = None, *, total: bool | dict = False) -> Log:
        """``finish-turn``; ``score`` defaults to the JUA score of the tracked hands (R22)."""
        right = self.score(winner)
        if self.strict:
            assert not self.hands[winner], f"{winner} has not emptied the hand"
        for p, n in right.items():
            self.totals[p] = self.totals.get(p, 0) + n
        self.wins[winner] = self.wins.get(winner, 0) + 1
        contents: dict[str, Any] = {"winner": winner, "score": score if score is not None else right}
        if total is True:
            contents["total_score"] = dict(self.totals)
        elif isinstance(total, dict):
            contents["total_score"] = total
        self._row("finish-turn", "", contents)
        return self

    def score(self, winner: str) -> dict[str, int]:
        own = {p: sum(points(c) for c in hand) for p, hand in self.hands.items()}
        return {p: (sum(n for q, n in own.items() if q != winner) if p == winner else -own[p]) for p in own}

    def finish_game(self, winner: str | None = None, order: dict | None = None,
                    score: dict | None = None) -> Log:
        """``finish-game``: ``winner``, ``order`` (rounds won), ``score`` (totals); by default the right ones."""
        if winner is None:
            winner = max(self.totals, key=lambda p: self.totals[p])
        contents = {
            "winner": winner,
            "order": order if order is not None else {p: self.wins.get(p, 0) for p in self.players},
            "score": score if score is not None else dict(self.totals),
        }
        self._row("finish-game", "", contents)
        return self

    def public(self, target: str, shown_to: str, shown: list[dict] | None = None) -> Log:
        cs = shown if shown is not None else self.hand(target)
        self._row("public-card", "", {"player": target, "cards": cs, "shown_to": shown_to})
        return self

    # ---- player lines ------------------------------------------------------------------------
    def play(self, p: str, tok: str, *, pair: str | None = None, yell: bool = False,
             color: str | None = None, refused: bool = False, only_one: bool = False) -> Log:
        """``play-card`` (and, for an accepted wild, its ``color-of-wild`` line as in jua.md's example).

        ``refused``: the referee refuses it (nothing moves; a ``penalty`` line should follow).
        ``only_one``: a pair of which the referee plays one card only (R13).
        """
        c = card(tok)
        contents: dict[str, Any] = {"card_play": c, "yell_uno": yell}
        if pair is not None:
            contents["card_play_pair"] = card(pair)
        if color is not None:
            contents["color_of_wild"] = color
        self._row("play-card", p, contents)
        if not refused:
            self._take(p, c)
            self.discard.append(c)
            if pair is not None and not only_one:
                self._take(p, card(pair))
                self.discard.append(card(pair))
            if c["color"] == "black" and color is not None:
                self._row("color-of-wild", p, {"color_of_wild": color})
        return self

    def draw(self, p: str, what: str | int | list, *, can_play: bool | None = None,
             draw_stack: dict | None = None) -> Log:
        """``draw-card``: ``p`` receives ``what`` (cards, or a number of cards from the pile)."""
        cs = self.supply(what) if isinstance(what, int) else cards(what)
        contents: dict[str, Any] = {"card_draw": cs, "is_draw": True}
        if can_play is not None:
            contents["can_play_draw_card"] = can_play
        if draw_stack is not None:
            contents["draw_stack"] = draw_stack
        self._row("draw-card", p, contents)
        self._give(p, cs)
        return self

    def refused_draw(self, p: str) -> Log:
        """A draw the referee refuses (assumed shape: no card drawn, ``is_draw`` false)."""
        self._row("draw-card", p, {"card_draw": [], "is_draw": False})
        return self

    def play_drawn(self, p: str, tok: str, *, yell: bool = False, color: str | None = None,
                   refused: bool = False) -> Log:
        """``play-draw-card`` with ``is_play_card: true``."""
        c = card(tok)
        contents: dict[str, Any] = {"is_play_card": True, "card_play": c, "yell_uno": yell}
        if color is not None:
            contents["color_of_wild"] = color
        self._row("play-draw-card", p, contents)
        if not refused:
            self._take(p, c)
            self.discard.append(c)
            if c["color"] == "black" and color is not None:
                self._row("color-of-wild", p, {"color_of_wild": color})
        return self

    def keep_drawn(self, p: str) -> Log:
        """``play-draw-card`` with ``is_play_card: false``."""
        self._row("play-draw-card", p, {"is_play_card": False, "yell_uno": False})
        return self

    def challenge(self, p: str, target: str, *, success: bool, receiver: str | None = None,
                  n: int | None = None, shown: list[dict] | None = None) -> Log:
        """``public-card`` (the target's hand, shown to ``p``) then ``challenge`` with its result.

        Default receiver: the target on success (who takes the wild draw 4 back, listed first, and
        draws 4), the challenger on failure (who draws ``n`` = the stack's total + 2).
        """
        receiver = receiver or (target if success else p)
        self.public(target, p, shown)
        if success and receiver == target:
            wd4 = self.discard.pop()
            assert key(wd4) == ("black", "wild_draw_4") or not self.strict
            cs = [wd4] + self.supply(4)
        else:
            assert n is not None, "say how many cards the receiver draws"
            cs = self.supply(n)
        self._row("challenge", p, {"target": target, "is_challenge": True,
                                   "result": {"is_challenge_success": success, "player": receiver,
                                              "cards_receive": cs}})
        self._give(receiver, cs)
        return self

    def refused_challenge(self, p: str, target: str) -> Log:
        """A challenge the referee refuses (no ``public-card``, no ``result``)."""
        self._row("challenge", p, {"target": target, "is_challenge": True})
        return self

    def point(self, pointer: str, target: str) -> Log:
        """``pointed-not-say-uno``: ``pointer`` says ``target`` did not call UNO."""
        self._row("pointed-not-say-uno", pointer, {"pointer": pointer, "target": target})
        return self

    # ---- shortcuts -----------------------------------------------------------------------------
    def chain(self, p: str, toks: str) -> Log:
        """Two players: ``p`` plays skips / reverses one after another, getting the turn back each time (R16)."""
        for tok in toks.split():
            self.play(p, tok, yell=len(self.hands[p]) == 2).next(p)
        return self
