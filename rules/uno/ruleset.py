"""The ALGORI 2023 rulesets, registered with the replay that runs them.

The rulesets themselves (ids, versions, the version history, which one a log calls for) are
data in :mod:`rules.uno.profile`; this module adds what the registry's ``Ruleset`` protocol
asks for: ``replay``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from rules.core import REGISTRY, Frame
from rules.uno import profile as P
from rules.uno.profile import GAME, VERSION
from rules.uno.replay import MatchReplay

__all__ = ["BIND_2", "GAME", "NO_WHITE_WILD", "SKIP_BIND_2", "VERSION", "AlgoriRuleset", "ruleset_for"]


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


SKIP_BIND_2 = REGISTRY.register(AlgoriRuleset(P.SKIP_BIND_2))
BIND_2 = REGISTRY.register(AlgoriRuleset(P.BIND_2))
NO_WHITE_WILD = REGISTRY.register(AlgoriRuleset(P.NO_WHITE_WILD))
_BY_ID = {r.id: r for r in (SKIP_BIND_2, BIND_2, NO_WHITE_WILD)}


def ruleset_for(white_wild: Any) -> AlgoriRuleset:
    """The registered ruleset a match's ``first-player.white_wild`` calls for."""
    return _BY_ID[P.profile_for(white_wild).id]
