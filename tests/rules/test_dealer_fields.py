"""Every field of the dealer's ``next-player`` line is compared with the replay: a single changed
field in a genuine log is reported at that line, as the dealer's inconsistency, never as a foul."""

from __future__ import annotations

import pytest

from rules.core import PLAYER_RULE
from tests.rules.helpers import activities, findings

MATCH = "misbehave_bind2_40"


def _flipped(want: bool) -> tuple[list[dict], int]:
    """The genuine log with the first next-player whose must_call_draw_card is ``want`` flipped."""
    acts = activities(MATCH)
    i = next(i for i, a in enumerate(acts)
             if a["event"] == "next-player" and a["contents"].get("must_call_draw_card") is want)  # fmt: skip
    acts[i] = {**acts[i], "contents": {**acts[i]["contents"], "must_call_draw_card": not want}}
    return acts, i + 1


@pytest.mark.parametrize("want", [False, True], ids=["set-with-nothing-pending", "cleared-with-a-draw-pending"])
def test_a_wrong_must_call_draw_card_is_reported_at_its_line(want: bool) -> None:
    genuine = findings(activities(MATCH))
    acts, seq = _flipped(want)
    found = findings(acts)
    at = [v for v in found if v.seq == seq and v.code == "next-player-contents"]
    assert at and "must_call_draw_card" in at[0].message, [(v.code, v.message) for v in found if v.seq == seq]
    assert at[0].family != PLAYER_RULE
    blame = {(v.code, v.player, v.seq) for v in found if v.family == PLAYER_RULE}
    assert blame <= {(v.code, v.player, v.seq) for v in genuine if v.family == PLAYER_RULE}


def test_genuine_logs_state_must_call_draw_card_as_the_rules_do() -> None:
    for match in ("misbehave_bind2_40", "demo4_skipbind2_300", "deckout_hoard3_aggressor1_12"):
        assert not [v for v in findings(activities(match)) if "must_call_draw_card" in v.message], match
