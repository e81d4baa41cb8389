"""Validator findings in words, with player names, in the viewer's language.

The validator (``rules/``, pure and English) writes one detailed message per finding.  English
viewers read that message with player codes replaced by names; Japanese viewers read the
check's title from the catalog (every check title is in ``kifu.po``) with the player's name
and what was expected against what happened.
"""

from __future__ import annotations

import re
from typing import Any

from app.i18n import _, current
from rules.chaser.checks import CHECKS as CHASER_CHECKS
from rules.kakomimasu.checks import CHECKS as KAKOMIMASU_CHECKS
from rules.uno.catalog import CHECKS as UNO_CHECKS

#: Every game's checks by code (codes are unique across games).
CHECKS = {**UNO_CHECKS, **KAKOMIMASU_CHECKS, **CHASER_CHECKS}


def with_names(text: Any, names: dict[str, str]) -> str:
    """A message with player codes replaced by their names."""
    s = "" if text is None else str(text)
    codes = sorted((c for c in names if c and names[c] != c), key=len, reverse=True)
    if not codes:
        return s
    return re.sub("|".join(re.escape(c) for c in codes), lambda m: names[m.group(0)], s)


def check_title(code: Any) -> str:
    check = CHECKS.get(str(code))
    return _(check.title) if check is not None else str(code)


def finding_sentence(f: dict[str, Any], names: dict[str, str]) -> str:
    """One finding as a sentence a contestant can read."""
    player = f.get("player")
    who = names.get(player, player) if isinstance(player, str) and player else None
    if current() == "en":
        message = with_names(f.get("message"), names)
        return message if who is None or who in message else _("{who}: {what}").format(who=who, what=message)
    text = check_title(f.get("code"))
    if who:
        text = _("{who}: {what}").format(who=who, what=text)
    expected, actual = f.get("expected"), f.get("actual")
    if isinstance(expected, str) and expected and isinstance(actual, str) and actual:
        text += _(" (expected: {expected}; actual: {actual})").format(
            expected=with_names(expected, names), actual=with_names(actual, names))
    return text


def finding_item(v: Any, names: dict[str, str]) -> dict[str, Any]:
    """A validator finding (``rules.core.Violation``) as the replayer shows it: severity, code, sentence."""
    row = {"code": v.code, "player": v.player, "message": v.message, "expected": v.expected, "actual": v.actual}
    return {"severity": v.severity, "code": v.code, "text": finding_sentence(row, names)}
