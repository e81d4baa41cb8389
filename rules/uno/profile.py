"""UNO rules as profiles: one model, the rules that vary as data and small rule objects.

A :class:`Profile` says everything that tells one UNO rule set from another — the deck, the
deal and the first card, who starts, what may be played (pairs, stacking), the UNO call and its
window, the wild draw 4 and its challenge, penalties, round end and scoring, how many rounds
and players.  Every function that judges or plays a game asks the profile (``profile.stacking
.answers(card, stack)``, ``profile.challenge.succeeds(...)``) instead of testing which profile
it is.  A profile is found by a short id, optionally with options in OpenSpiel's style::

    >>> get("jua-2016").rounds
    5
    >>> get("jua-2016(rounds=3,first_wild_color=left)").id
    'jua-2016(first_wild_color=left,rounds=3)'

A leaf module: the replays pick their profile here, and :mod:`rules.uno.ruleset` registers
each one with the engine that judges its logs (so nothing imports in a circle).

Version history of the ALGORI profiles (bump the version whenever a check's behaviour changes):

* ``1.0`` — first release: replay of the 2023 dealer (build ``0d7dc11``), 50 checks.
* ``1.1`` — timing from timestamps, dealer departures reported when they happen, log gaps as
  consistency findings, colour-timeout snapshot, ``wd4-last-card-draw`` looks for the draw (59 checks).
* ``1.2`` — every card accounted for (``conservation`` counts each face against the deck, not
  only the total); a penalty the log contradicts is the dealer's fault, never the penalised
  player's; every field of every dealer line compared; the replay follows the log after a
  divergence (one finding per cause).

Version history of ``jua-2016``: ``1.0`` — first release (docs/rules/jua.md). ``1.1`` — one action a turn (a
second play or draw in an ended turn is the player's ``turn-owner``); a pair finish without the UNO call has
no penalty (R13); a first-card wild's colour asked of the wrong player is the referee's ``next-seat``; a
missed UNO call pointed out and penalised is an error linked to its penalty; a log that does not fit the
profile gets one finding and is not judged further.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from rules.uno import events as E
from rules.uno.cards import COLORS, Card
from rules.uno.state import playable

GAME = "algori-uno"
VERSION = "1.2"
JUA_VERSION = "1.1"

#: Which audit judges a profile's logs: the ALGORI 2023 dealer's (its program's documented
#: behaviour, error texts, timers and departures from its rules), or the profile audit, which
#: judges any log in the documented shape from the profile alone.
DEALER_AUDIT = "algori-dealer"
PROFILE_AUDIT = "profile"


# ----------------------------------------------------------------------------- rule objects


@dataclass(frozen=True)
class Deck:
    """The cards of one set: copies of each number per colour, of each colour symbol, of each black card."""

    numbers: tuple[int, ...] = (1, 2, 2, 2, 2, 2, 2, 2, 2, 2)  # copies of 0..9 per colour
    symbols: int = 2  # copies of skip, reverse and draw 2 per colour
    wild: int = 4
    wild_draw_4: int = 4
    wild_shuffle: int = 0
    white_wild: int = 0

    def cards(self) -> tuple[Card, ...]:
        """Every card of the set, in a fixed order (the referee shuffles a copy)."""
        out: list[Card] = []
        for color in COLORS:
            for n, k in enumerate(self.numbers):
                out += [Card(color, n, None)] * k
            for sp in ("skip", "reverse", "draw_2"):
                out += [Card(color, None, sp)] * self.symbols
        out += [Card("black", None, "wild")] * self.wild + [Card("black", None, "wild_draw_4")] * self.wild_draw_4
        out += [Card("black", None, "wild_shuffle")] * self.wild_shuffle
        out += [Card("white", None, "white_wild")] * self.white_wild
        return tuple(out)

    @property
    def size(self) -> int:
        return len(self.cards())

    def copies(self) -> Counter[Card]:
        return Counter(self.cards())


@dataclass(frozen=True)
class FirstCard:
    """The deal's first card: which faces are turned again, whose play it counts as, who colours a wild.

    ``by = "nobody"`` (ALGORI): the card belongs to no player; seat 0 acts first and answers it.
    ``by = "dealer"`` (JUA): turning it is the start player's (seat 0's) move, as if they had
    played it; seat 1 (or seat -1 after a reverse) answers it.
    """

    redeal: frozenset[str] = frozenset({"wild_draw_4"})
    by: str = "dealer"
    wild_color: str = "dealer"  # dealer | left: who chooses a first-card wild's colour


@dataclass(frozen=True)
class Stacking:
    """Which cards answer a pending draw (ALGORI: none — the player draws)."""

    on_draw_2: frozenset[str] = frozenset()
    on_wild_draw_4: frozenset[str] = frozenset()

    @property
    def allowed(self) -> bool:
        return bool(self.on_draw_2 or self.on_wild_draw_4)

    def answers(self, card: Card, stack: tuple[Card, ...]) -> bool:
        """``card`` may be laid on the pending ``stack`` (non-empty)."""
        if not stack:
            return True
        if any(c.special == "wild_draw_4" for c in stack):
            return card.special in self.on_wild_draw_4
        return card.special in self.on_draw_2


@dataclass(frozen=True)
class ChallengeRule:
    """When a wild draw 4 may be played, when it may be challenged, and what a challenge does."""

    wd4_test: str = "colour"  # colour: no card of the current colour (JUA) | any-playable (ALGORI's written rule)
    on_wd4: bool = False  # a wild draw 4 laid on a wild draw 4 may be challenged
    success_draws: int = 4
    failure_extra: int = 2  # the challenger draws the stack's total plus this
    success_replays: bool = True  # the offender plays again (JUA) | the challenger plays (ALGORI)

    def wd4_legal(self, hand: tuple[Card, ...], base: Card | None, stack: tuple[Card, ...]) -> bool:
        """A wild draw 4 from ``hand`` (without it) on ``base`` (the top, effective colour), over ``stack``."""
        if stack and stack[-1].special == "wild_draw_4":
            return True
        if base is None or base.color not in COLORS:
            return True
        if stack:  # on a draw 2: only a draw 2 of the current colour makes it a bluff
            return not any(c.special == "draw_2" and c.color == base.color for c in hand)
        if self.wd4_test == "colour":
            return not any(c.color == base.color for c in hand)
        return not any(c.special != "wild_draw_4" and _matches(c, base) for c in hand)

    def may_challenge(self, stack: tuple[Card, ...]) -> bool:
        """A challenge of the wild draw 4 on top of ``stack`` is allowed."""
        if not stack or stack[-1].special != "wild_draw_4":
            return False
        return self.on_wd4 or len(stack) < 2 or stack[-2].special != "wild_draw_4"

    def succeeds(self, hand: tuple[Card, ...], base: Card | None, stack: tuple[Card, ...]) -> bool:
        """The offender, holding ``hand`` (without the wild draw 4), played it illegally."""
        return not self.wd4_legal(hand, base, stack[:-1])


@dataclass(frozen=True)
class UnoRule:
    """The UNO call: its penalty and how long a missed call may be pointed out."""

    penalty: int = 2
    window: str = "next-discard"  # next-discard (JUA) | next-action (ALGORI: until the next turn's action)
    false_pointing_penalised: bool = False
    pair_finish_needs_call: bool = True


@dataclass(frozen=True)
class Scoring:
    """Card points, and who scores what at a round's end."""

    symbol: int = 20
    wild: int = 50
    special_wild: int = 40  # wild shuffle, white wild (ALGORI)

    def points(self, card: Card) -> int:
        if card.number is not None:
            return card.number
        if card.special in ("skip", "reverse", "draw_2"):
            return self.symbol
        if card.special in ("wild_shuffle", "white_wild"):
            return self.special_wild
        return self.wild

    def hand(self, cards: Any) -> int:
        return sum(self.points(c) for c in cards)

    def round(self, hands: dict[str, tuple[Card, ...]], winner: str | None) -> dict[str, int]:
        """The round's score per player: losers lose their own hand; the winner gains the losers' sum."""
        scores = {p: -self.hand(h) for p, h in hands.items() if p != winner}
        if winner is not None:
            scores[winner] = -sum(scores.values())
        return scores


def _matches(card: Card, top: Card | None) -> bool:
    """Colour, number or symbol match (or any wild): the same test in every profile."""
    return playable(card, top)


# ----------------------------------------------------------------------------- the profile


@dataclass(frozen=True)
class Profile:
    """One UNO rule set. ``id`` is its canonical short id (options included)."""

    id: str
    white_wild: str | None = None
    version: str = VERSION
    game: str = GAME
    description: str = ""
    audit: str = DEALER_AUDIT
    family: str = "algori-2023"
    deck: Deck = Deck(wild_shuffle=1)
    players: tuple[int, int] = (4, 4)
    hand_size: int = 7
    rounds: int | None = None  # None: the match's setting decides
    first_card: FirstCard = FirstCard(redeal=frozenset({"wild_draw_4", "wild_shuffle", "white_wild"}), by="nobody")
    seating: str = "shuffle"  # shuffle: new seat order each round | winner-deals: fixed circle, the winner starts
    pairs: bool = False
    stacking: Stacking = Stacking()
    challenge: ChallengeRule = ChallengeRule(wd4_test="any-playable", success_replays=False)
    uno: UnoRule = UnoRule(window="next-action", false_pointing_penalised=True, pair_finish_needs_call=False)
    illegal_play_cards: int = 2
    hand_cap: int | None = 25
    scoring: Scoring = Scoring()
    no_progress_laps: int = 10
    turn_limit: int = 1_000_000  # a round ends with no winner after this many turns (R26: Kifu's referee's guard)
    #: The clock of each action: a player silent this long gets the dealer's timeout penalty (ALGORI: 5 s).
    #: None: the rules set no clock (JUA), and no timeout penalty; Kifu's referee stops a match whose bot is
    #: silent for as long as ``kifu play --bot-timeout-ms`` (5 s by default).
    action_ms: int | None = 5_000
    options: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def playable(self, card: Card, top: Card | None, stack: tuple[Card, ...] = ()) -> bool:
        """``card`` may be played on ``top`` (effective colour) with ``stack`` pending."""
        if stack:
            return self.stacking.answers(card, stack)
        return _matches(card, top)

    def pair_ok(self, first: Card, second: Card) -> bool:
        """Two cards may be played together (JUA ◆2枚出しルール: identical number cards)."""
        return self.pairs and first.number is not None and first == second

    def reverse_skips(self, n_players: int) -> bool:
        return n_players == 2

    def with_options(self, **options: Any) -> Profile:
        """This profile with ``options`` applied (unknown options and bad values raise ValueError)."""
        return _apply_options(self, options)


# ----------------------------------------------------------------------------- the profiles


SKIP_BIND_2 = Profile("algori-2023/skip_bind_2", "skip_bind_2", deck=Deck(wild_shuffle=1, white_wild=3),
                      description="ALGORI 2023 contest rules, white wild = skip + bind 2 (the contest setting)")
BIND_2 = Profile("algori-2023/bind_2", "bind_2", deck=Deck(wild_shuffle=1, white_wild=3),
                 description="ALGORI 2023 rules with white wild = bind 2 (no skip)")
NO_WHITE_WILD = Profile("algori-2023/no-white-wild", None,
                        description="ALGORI 2023 rules on a log without a white-wild setting (109 cards)")

JUA_2016 = Profile(
    "jua-2016", None, version=JUA_VERSION, audit=PROFILE_AUDIT, family="jua-2016",
    description="Japanese UNO Association competition rules (revised 2016-03-12): pairs, stacking, challenge by colour",
    deck=Deck(), players=(2, 10), rounds=5, first_card=FirstCard(), seating="winner-deals", pairs=True,
    stacking=Stacking(on_draw_2=frozenset({"draw_2", "wild_draw_4"}), on_wild_draw_4=frozenset({"wild_draw_4"})),
    challenge=ChallengeRule(), uno=UnoRule(), hand_cap=None, turn_limit=2000, action_ms=None,
)  # fmt: skip

PROFILES = (SKIP_BIND_2, BIND_2, NO_WHITE_WILD, JUA_2016)
_BY_ID = {p.id: p for p in PROFILES}

#: Options a profile id may carry: name -> (profile field path, parser, check).
_OPTIONS: dict[str, tuple[str, Any, Any]] = {
    "rounds": ("rounds", int, lambda v: 1 <= v <= 1000),
    "first_wild_color": ("first_card.wild_color", str, lambda v: v in ("dealer", "left")),
    "illegal_play_cards": ("illegal_play_cards", int, lambda v: 0 <= v <= 4),
    "turn_limit": ("turn_limit", int, lambda v: 10 <= v <= 1_000_000),
}


def _apply_options(base: Profile, options: dict[str, Any]) -> Profile:
    p = base
    for name, raw in options.items():
        if name not in _OPTIONS:
            raise ValueError(f"unknown option {name!r} for profile {base.id} (known: {', '.join(sorted(_OPTIONS))})")
        path, parse, ok = _OPTIONS[name]
        try:
            value = parse(raw)
        except (TypeError, ValueError):
            raise ValueError(f"option {name}={raw!r}: not a {parse.__name__}") from None
        if not ok(value):
            raise ValueError(f"option {name}={value!r} is out of range")
        head, _, sub = path.partition(".")
        p = replace(p, **{head: replace(getattr(p, head), **{sub: value}) if sub else value})
    merged = {**base.options, **{k: _OPTIONS[k][1](v) for k, v in options.items()}}
    root = base.id.partition("(")[0]
    defaults = _BY_ID[root]
    changed = {k: v for k, v in merged.items() if _get(defaults, _OPTIONS[k][0]) != v}
    text = ",".join(f"{k}={v}" for k, v in sorted(changed.items()))
    return replace(p, id=f"{root}({text})" if text else root, options=changed)


def _get(p: Profile, path: str) -> Any:
    v: Any = p
    for part in path.split("."):
        v = getattr(v, part)
    return v


def parse_id(text: str) -> tuple[str, dict[str, str]]:
    """``'jua-2016(rounds=3)'`` -> ``('jua-2016', {'rounds': '3'})``."""
    text = text.strip()
    root, paren, rest = text.partition("(")
    if not paren:
        return root, {}
    if not rest.endswith(")"):
        raise ValueError(f"profile id {text!r}: options must end with ')'")
    opts: dict[str, str] = {}
    for part in filter(None, (x.strip() for x in rest[:-1].split(","))):
        k, eq, v = part.partition("=")
        if not eq:
            raise ValueError(f"profile id {text!r}: option {part!r} is not name=value")
        opts[k.strip()] = v.strip()
    return root, opts


def get(profile_id: str) -> Profile:
    """The profile a short id (with options) names; ValueError for an unknown id or option."""
    root, opts = parse_id(profile_id)
    base = _BY_ID.get(root)
    if base is None:
        raise ValueError(f"unknown ruleset {root!r} (known: {', '.join(sorted(_BY_ID))})")
    return base.with_options(**opts) if opts else base


def ids() -> list[str]:
    return sorted(_BY_ID)


def profile_for(white_wild: Any) -> Profile:
    """The ALGORI ruleset a match's ``first-player.white_wild`` calls for."""
    return {"skip_bind_2": SKIP_BIND_2, "bind_2": BIND_2}.get(white_wild, NO_WHITE_WILD)


def select(first_player: E.FirstPlayer) -> Profile:
    """The profile a deal calls for: its ``ruleset`` field when it names one, else its white-wild setting."""
    named = getattr(first_player, "ruleset", None)
    if isinstance(named, str):
        try:
            return get(named)
        except ValueError:
            pass
    return profile_for(first_player.white_wild)


def option_names() -> list[str]:
    return sorted(_OPTIONS)


__all__ = ["BIND_2", "GAME", "JUA_2016", "NO_WHITE_WILD", "PROFILES", "SKIP_BIND_2", "VERSION", "ChallengeRule", "Deck",
           "FirstCard", "Profile", "Scoring", "Stacking", "UnoRule", "get", "ids", "parse_id", "profile_for", "select"]
