"""Game-independent pieces of the rules engine: findings, frames, rulesets, the registry.

A *ruleset* knows how to turn a game's log into events and fold them into states while
judging them.  ``replay`` yields one :class:`Frame` per event: the state before and after
and the violations found at that event.  Every violation carries the ruleset id and
version, so a stored finding always says which rules judged it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

PLAYER_RULE = "player-rule"
DEALER_JUDGEMENT = "dealer-judgement"
CONSISTENCY = "consistency"
FAMILIES = (PLAYER_RULE, DEALER_JUDGEMENT, CONSISTENCY)

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)


@dataclass(frozen=True, slots=True)
class Check:
    """One kind of finding: its stable code, family, default severity and the rule it enforces."""

    code: str
    family: str
    severity: str
    title: str
    source: str


@dataclass(frozen=True, slots=True)
class Violation:
    """One finding of the validator."""

    code: str
    family: str
    severity: str
    message: str
    seq: int | None = None
    round_no: int | None = None
    turn_no: int | None = None
    player: str | None = None
    expected: str | None = None
    actual: str | None = None
    penalty_seq: int | None = None
    ruleset: str | None = None
    ruleset_version: str | None = None
    match_id: str | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """One step of a replay."""

    seq: int
    event: Any
    before: Any
    after: Any
    violations: tuple[Violation, ...] = ()
    think_ms: int | None = None  # for a timed player action: ms since the actor's clock started


class Ruleset(Protocol):
    id: str
    version: str
    game: str
    description: str

    def replay(self, activities: Iterable[dict[str, Any]], *, match_id: str | None = None) -> Iterator[Frame]: ...


@dataclass
class Registry:
    """Rulesets by id; games register theirs on import."""

    rulesets: dict[str, Ruleset] = field(default_factory=dict)
    selectors: list[Callable[[dict[str, Any]], str | None]] = field(default_factory=list)

    def register(self, ruleset: Ruleset) -> Ruleset:
        self.rulesets[ruleset.id] = ruleset
        return ruleset

    def get(self, ruleset_id: str) -> Ruleset:
        try:
            return self.rulesets[ruleset_id]
        except KeyError:
            known = ", ".join(sorted(self.rulesets))
            raise KeyError(f"unknown ruleset {ruleset_id!r} (known: {known})") from None


REGISTRY = Registry()
