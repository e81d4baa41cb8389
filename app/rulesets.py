"""UNO's rule families (a profile's ``family``, :mod:`rules.uno.profile`) as the pages name them."""

from __future__ import annotations

from typing import Any

from app.i18n import N_, _

#: How the pages name each family.
RULE_FAMILIES = {"algori-2023": N_("ALGORI 2023 contest rules"), "jua-2016": N_("JUA competition rules (2016)")}
#: A family's short name (the sidebar's match labels).
RULE_SHORT = {"algori-2023": N_("ALGORI 2023"), "jua-2016": N_("JUA 2016")}
ALGORI, JUA = "algori-2023", "jua-2016"


def rules_family(ruleset: Any) -> str:
    """The rule family of a match's ``ruleset`` (``algori-2023`` or ``jua-2016``); a match whose log names no
    profile (an ALGORI dealer's log from before profiles) is ALGORI's."""
    from rules.uno.profile import get

    if not isinstance(ruleset, str) or not ruleset:
        return ALGORI
    try:
        return get(ruleset).family
    except ValueError:
        return JUA if ruleset.startswith("jua-") else ALGORI


def rules_words(ruleset: Any) -> str:
    """A match's rules as a person reads them: 'JUA competition rules (2016)'."""
    return _(RULE_FAMILIES[rules_family(ruleset)])
