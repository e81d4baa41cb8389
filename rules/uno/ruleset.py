"""The UNO profiles, registered with the audit that judges their logs.

The profiles themselves (ids, versions, rules, which one a log calls for) are data in
:mod:`rules.uno.profile`; this module adds what the registry's ``Ruleset`` protocol asks
for: ``replay`` — the ALGORI dealer audit (:class:`rules.uno.replay.MatchReplay`) for the
ALGORI 2023 profiles, the profile audit (:mod:`rules.uno.audit`) for the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from rules.core import REGISTRY, Frame
from rules.uno import profile as P
from rules.uno.profile import GAME, VERSION
from rules.uno.replay import MatchReplay

__all__ = ["BIND_2", "GAME", "JUA_2016", "NO_WHITE_WILD", "SKIP_BIND_2", "VERSION", "AlgoriRuleset", "ProfileRuleset",
           "ruleset", "ruleset_for"]


@dataclass(frozen=True)
class AlgoriRuleset:
    profile: P.Profile

    id = property(lambda self: self.profile.id)
    white_wild = property(lambda self: self.profile.white_wild)
    version = property(lambda self: self.profile.version)
    game = property(lambda self: self.profile.game)
    description = property(lambda self: self.profile.description)

    def replay(self, activities: Iterable[dict[str, Any]], *, match_id: str | None = None) -> Iterator[Frame]:
        r = MatchReplay(match_id=match_id, ruleset=self)
        for a in activities:
            yield from r.feed(a)
        yield from r.close()


@dataclass(frozen=True)
class ProfileRuleset:
    """A profile judged by the profile audit (the JUA competition rules, …)."""

    profile: P.Profile

    id = property(lambda self: self.profile.id)
    version = property(lambda self: self.profile.version)
    game = property(lambda self: self.profile.game)
    description = property(lambda self: self.profile.description)

    def replay(self, activities: Iterable[dict[str, Any]], *, match_id: str | None = None) -> Iterator[Frame]:
        r = MatchReplay(match_id=match_id, ruleset=self.profile)
        for a in activities:
            yield from r.feed(a)
        yield from r.close()


def ruleset(profile_id: str) -> AlgoriRuleset | ProfileRuleset:
    """The ruleset a profile id (options included, e.g. ``jua-2016(rounds=3)``) names."""
    prof = P.get(profile_id)
    return AlgoriRuleset(prof) if prof.audit == P.DEALER_AUDIT else ProfileRuleset(prof)


SKIP_BIND_2 = REGISTRY.register(AlgoriRuleset(P.SKIP_BIND_2))
BIND_2 = REGISTRY.register(AlgoriRuleset(P.BIND_2))
NO_WHITE_WILD = REGISTRY.register(AlgoriRuleset(P.NO_WHITE_WILD))
JUA_2016 = REGISTRY.register(ProfileRuleset(P.JUA_2016))
_BY_ID = {r.id: r for r in (SKIP_BIND_2, BIND_2, NO_WHITE_WILD)}


def ruleset_for(white_wild: Any) -> AlgoriRuleset:
    """The registered ruleset a match's ``first-player.white_wild`` calls for."""
    return _BY_ID[P.profile_for(white_wild).id]
