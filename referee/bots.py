"""Built-in UNO bots for ``kifu play``, and naming a contestant's bot (``path/to/bot.py:function``).

A bot is one function: ``act(view) -> action``.  ``view`` is a dict of what that player may
see (docs/referee.md): ``phase`` (``turn``, ``play_drawn``, ``color``, ``point``, ``idle``),
``me``, ``hand``, ``top``, ``color``, ``stack``, ``must_play``, ``drawn``, ``players``,
``seats``, ``direction``, ``round``, ``turn``, ``scores``, ``profile`` and ``legal`` (the
actions the rules allow now).  Cards are ALGORI card dicts (``{"color": "red", "number": 5}``).
An action is a dict: ``{"action": "play", "card": c, "pair": c2, "yell_uno": bool, "color": "red"}``,
``{"action": "draw"}``, ``{"action": "challenge"}``, ``{"action": "play_drawn", "play": bool,
"yell_uno": bool, "color": ...}``, ``{"action": "color", "color": ...}``, ``{"action": "point"}``
or ``{"action": "pass"}``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

Bot = Callable[[dict[str, Any]], dict[str, Any]]
COLORS = ("red", "yellow", "green", "blue")
KINDS = ("random", "greedy", "stacker", "sloppy")
#: The rules a sloppy bot breaks, each at the set rate.
SLOPPY_BREAKS = ("mismatch", "not-held", "pair", "forget-uno", "pair-finish", "no-colour", "challenge",
                 "stack", "bluff", "draw-instead", "out-of-turn")  # fmt: skip
RARE = frozenset({"forget-uno", "pair-finish", "stack", "draw-instead"})


def points(card: dict[str, Any]) -> int:
    if card.get("number") is not None:
        return int(card["number"])
    return 20 if card.get("special") in ("skip", "reverse", "draw_2") else 50


def best_color(hand: list[dict[str, Any]], rng: random.Random) -> str:
    counts = Counter(c["color"] for c in hand if c["color"] in COLORS)
    return counts.most_common(1)[0][0] if counts else rng.choice(COLORS)


def finish_play(view: dict[str, Any], action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """An action completed as the rules want it: the UNO call when one card is left, a colour for a wild."""
    a = dict(action)
    hand = view["hand"]
    if a["action"] == "play":
        left = len(hand) - (2 if a.get("pair") else 1)
        a["yell_uno"] = left == 1 or (left == 0 and bool(a.get("pair")))
        if a["card"].get("special") in ("wild", "wild_draw_4"):
            a["color"] = best_color([c for c in hand if c is not a["card"]], rng)
    elif a["action"] == "play_drawn":
        a["yell_uno"] = bool(a.get("play")) and len(hand) == 2
        if a.get("play") and view["drawn"].get("special") in ("wild", "wild_draw_4"):
            a["color"] = best_color(hand, rng)
    elif a["action"] == "color":
        a["color"] = best_color(hand, rng)
    return a


def _common(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    phase = view["phase"]
    if phase == "point":
        return {"action": "point"}
    if phase == "idle":
        return {"action": "pass"}
    if phase == "color":
        return finish_play(view, {"action": "color"}, rng)
    return None


def random_bot(seed: int) -> Bot:
    rng = random.Random(seed)

    def act(view: dict[str, Any]) -> dict[str, Any]:
        done = _common(view, rng)
        if done is not None:
            return done
        legal = view["legal"]
        plays = [a for a in legal if a["action"] in ("play", "play_drawn") and a.get("play", True)]
        if plays and rng.random() < 0.9:  # a random legal card; now and then a draw, a challenge or a pass
            return finish_play(view, rng.choice(plays), rng)
        return finish_play(view, rng.choice(legal), rng)

    return act


def greedy_bot(seed: int, *, stack_first: bool = False, challenge: bool = False) -> Bot:
    rng = random.Random(seed)

    def act(view: dict[str, Any]) -> dict[str, Any]:
        done = _common(view, rng)
        if done is not None:
            return done
        legal = view["legal"]
        if challenge and any(a["action"] == "challenge" for a in legal):
            return {"action": "challenge"}
        if view["phase"] == "play_drawn":
            return finish_play(view, {"action": "play_drawn", "play": any(a.get("play") for a in legal)}, rng)
        plays = [a for a in legal if a["action"] == "play"]
        if plays:
            if stack_first and view["stack"]["number"]:
                plays.sort(key=lambda a: a["card"].get("special") != "wild_draw_4")
                return finish_play(view, plays[0], rng)
            best = max(plays, key=lambda a: points(a["card"]) * (2 if a.get("pair") else 1) + (1 if a.get("pair") else 0))
            return finish_play(view, best, rng)
        return next(a for a in legal if a["action"] == "draw")

    return act


def sloppy_bot(seed: int, rate: float) -> Bot:
    """A random bot that breaks a rule at ``rate``: every player-rule check gets games where it fires."""
    rng = random.Random(seed)
    honest = random_bot(seed + 1)

    def act(view: dict[str, Any]) -> dict[str, Any]:
        if view["phase"] in ("point", "color"):
            return honest(view)
        if rng.random() >= (rate / 20 if view["phase"] == "idle" else rate):  # idle: asked before every turn
            if view["phase"] == "idle":
                return {"action": "pass"}
            action = honest(view)
            if action.get("yell_uno") and rng.random() < rate:  # the call is forgotten at the rate too
                action = {**action, "yell_uno": False}
            return action
        breaks = [b for b in SLOPPY_BREAKS if _can_break(b, view)]
        if not breaks:
            return honest(view) if view["phase"] != "idle" else {"action": "pass"}
        rare = [b for b in breaks if b in RARE]  # chances that come seldom are taken when they come
        return _break(rng.choice(rare or breaks), view, rng) or honest(view)

    act.idle = True  # type: ignore[attr-defined]  # asked while others play (to act out of turn)
    return act


def _can_break(kind: str, view: dict[str, Any]) -> bool:
    phase, hand, stack = view["phase"], view["hand"], view["stack"]["number"]
    if phase == "idle":
        return kind == "out-of-turn" and bool(hand)
    if phase != "turn":
        return False
    plays = [a for a in view["legal"] if a["action"] == "play"]
    return {
        "mismatch": not stack and any(not _fits(c, view["top"]) for c in hand),
        "not-held": True,
        "pair": not stack and len(hand) >= 2,
        "forget-uno": any(len(hand) - (2 if a.get("pair") else 1) == 1 for a in plays),
        "pair-finish": len(hand) == 2 and any(a.get("pair") for a in plays),
        "no-colour": any(a["card"].get("special") == "wild" for a in plays),
        "challenge": not any(a["action"] == "challenge" for a in view["legal"]),
        "stack": bool(stack) and any(c.get("special") == "draw_2" for c in hand)
        and any(c.get("special") == "wild_draw_4" for c in view["stack"]["cards"]),
        "bluff": any(c.get("special") == "wild_draw_4" for c in hand) and any(c["color"] == view["color"] for c in hand)
        and not stack,
        "draw-instead": view["must_play"],
    }.get(kind, False)


def _fits(card: dict[str, Any], top: dict[str, Any]) -> bool:
    if card.get("special") in ("wild", "wild_draw_4"):
        return True
    return card["color"] == top["color"] or (card.get("number") is not None and card.get("number") == top.get("number")) \
        or (card.get("special") is not None and card.get("special") == top.get("special"))  # fmt: skip


def _break(kind: str, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    hand, plays = view["hand"], [a for a in view["legal"] if a["action"] == "play"]
    if kind in ("mismatch", "out-of-turn"):
        pool = [c for c in hand if not _fits(c, view["top"])] if kind == "mismatch" else hand
        return {"action": "play", "card": rng.choice(pool), "yell_uno": False}
    if kind == "not-held":
        held = {(c["color"], c.get("number"), c.get("special")) for c in hand}
        options = [{"color": col, "number": n} for col in COLORS for n in range(10) if (col, n, None) not in held]
        return {"action": "play", "card": rng.choice(options), "yell_uno": False} if options else None
    if kind == "pair":
        a, b = rng.sample(hand, 2)
        if a == b:
            return None
        return {"action": "play", "card": a, "pair": b, "yell_uno": len(hand) == 3}
    if kind == "forget-uno":
        a = next(a for a in plays if len(hand) - (2 if a.get("pair") else 1) == 1)
        out = finish_play(view, a, rng)
        out["yell_uno"] = False
        return out
    if kind == "pair-finish":
        a = next(a for a in plays if a.get("pair"))
        return {**a, "yell_uno": False}
    if kind == "no-colour":
        a = next(a for a in plays if a["card"].get("special") == "wild")
        return {"action": "play", "card": a["card"], "yell_uno": len(hand) == 2}
    if kind == "challenge":
        return {"action": "challenge"}
    if kind == "stack":
        card = next(c for c in hand if c.get("special") == "draw_2")
        return {"action": "play", "card": card, "yell_uno": len(hand) == 2}
    if kind == "bluff":
        card = next(c for c in hand if c.get("special") == "wild_draw_4")
        return {"action": "play", "card": card, "yell_uno": len(hand) == 2, "color": best_color(hand, rng)}
    if kind == "draw-instead":
        return {"action": "draw"}
    return None


def builtin(kind: str, seed: int, *, sloppy_rate: float = 0.2) -> Bot:
    if kind == "random":
        return random_bot(seed)
    if kind == "greedy":
        return greedy_bot(seed)
    if kind == "stacker":
        return greedy_bot(seed, stack_first=True, challenge=True)
    if kind == "sloppy":
        return sloppy_bot(seed, sloppy_rate)
    raise ValueError(f"unknown bot {kind!r} (built-in: {', '.join(KINDS)}; or path/to/bot.py:function)")


def plugin(spec: str) -> tuple[str, str]:
    """A contestant's bot, ``path/to/bot.py:function``, as (path, function); ValueError when there is no such
    file.  It is loaded in its own process (:mod:`referee.plugin`)."""
    path, colon, name = spec.rpartition(":")
    if not colon or not path.endswith(".py") or not name:
        raise ValueError(f"unknown bot {spec!r} (built-in: {', '.join(KINDS)}; or path/to/bot.py:function)")
    if not Path(path).is_file():
        raise ValueError(f"bot {spec!r}: no file {path}")
    return path, name
