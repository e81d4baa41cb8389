"""The ALGORI 2023 rulesets as data, and the one a log calls for (``first-player.contents.white_wild``).

A leaf module: the replay picks its ruleset here, and :mod:`rules.uno.ruleset` registers each
one with the replay that runs it (so neither of the two imports the other in a circle).

Version history (bump the version whenever a check's behaviour changes):

* ``1.0`` — first release: replay of the 2023 dealer (build ``0d7dc11``), 50 checks.
* ``1.1`` — timing from timestamps, dealer departures reported when they happen, log gaps as
  consistency findings, colour-timeout snapshot, ``wd4-last-card-draw`` looks for the draw (59 checks).
* ``1.2`` — every card accounted for (``conservation`` counts each face against the deck, not
  only the total); a penalty the log contradicts is the dealer's fault, never the penalised
  player's; every field of every dealer line compared; the replay follows the log after a
  divergence (one finding per cause).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.uno import events as E

GAME = "algori-uno"
VERSION = "1.2"


@dataclass(frozen=True)
class Profile:
    """What tells one ALGORI ruleset from another: its id, version and white-wild setting."""

    id: str
    white_wild: str | None
    version: str = VERSION
    game: str = GAME
    description: str = ""


SKIP_BIND_2 = Profile("algori-2023/skip_bind_2", "skip_bind_2",
                      description="ALGORI 2023 contest rules, white wild = skip + bind 2 (the contest setting)")
BIND_2 = Profile("algori-2023/bind_2", "bind_2", description="ALGORI 2023 rules with white wild = bind 2 (no skip)")
NO_WHITE_WILD = Profile("algori-2023/no-white-wild", None,
                        description="ALGORI 2023 rules on a log without a white-wild setting (109 cards)")
PROFILES = (SKIP_BIND_2, BIND_2, NO_WHITE_WILD)


def profile_for(white_wild: Any) -> Profile:
    """The ruleset a match's ``first-player.white_wild`` calls for."""
    return {"skip_bind_2": SKIP_BIND_2, "bind_2": BIND_2}.get(white_wild, NO_WHITE_WILD)


def select(first_player: E.FirstPlayer) -> Profile:
    return profile_for(first_player.white_wild)
