"""Judging: player-rule and dealer-judgement checks (filled in below)."""

from __future__ import annotations

from typing import Any

from rules.core import Violation
from rules.uno import events as E
from rules.uno.state import GameState


class Judge:
    def __init__(self, ruleset: Any = None) -> None:
        self.ruleset = ruleset

    def check(self, before: GameState, ev: E.Event, after: GameState) -> list[Violation]:
        return []

    def finish(self, s: GameState) -> list[Violation]:
        return []
