"""Every real dealer log replays end to end and meets the validator's acceptance criteria.

* zero ``consistency`` findings of severity error (the dealer's snapshot-timing quirks are
  modelled, see docs/rules/algori-uno.md);
* zero ``player-rule`` errors in rounds where the dealer issued no penalty;
* every ``penalty`` explained by a ``player-rule`` violation of the penalised player;
* the ruleset comes from the log and stamps every finding.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from rules.uno.catalog import CHECKS
from rules.uno.replay import replay
from rules.uno.ruleset import VERSION
from tests.conftest import MATCHES
from tests.rules.helpers import activities

RULESET = {
    "demo4_bind2_60": "algori-2023/bind_2",
    "misbehave_bind2_40": "algori-2023/bind_2",
}


@pytest.mark.parametrize("match", MATCHES)
def test_fixture_meets_the_acceptance_criteria(match: str) -> None:
    acts = activities(match)
    frames = list(replay(acts, match_id=match))
    assert [f.seq for f in frames if f.seq > 0] == [a["seq"] for a in acts]
    found = [v for f in frames for v in f.violations]
    consistency = [v for v in found if v.family == "consistency" and v.severity == "error"]
    assert consistency == []
    penalties = {a["seq"]: a for a in acts if a["event"] == "penalty"}
    penalised_rounds = {a["turn"] for a in penalties.values()}
    assert [v for v in found if v.family == "player-rule" and v.severity == "error"
            and v.round_no not in penalised_rounds] == []  # fmt: skip
    explained = {
        v.penalty_seq for v in found
        if v.family == "player-rule" and v.penalty_seq in penalties
        and v.player == penalties[v.penalty_seq]["contents"]["player"]
    }  # fmt: skip
    assert set(penalties) - explained == set()
    ruleset = RULESET.get(match, "algori-2023/skip_bind_2")
    assert {(v.ruleset, v.ruleset_version, v.match_id) for v in found} <= {(ruleset, VERSION, match)}
    assert {v.code for v in found} <= set(CHECKS)
    for v in found:
        assert (v.family, v.severity) in {(CHECKS[v.code].family, s) for s in ("error", "warning", "info")}


def test_penalty_causes_map_to_check_codes() -> None:
    acts = activities("misbehave_skipbind2_80")
    found = [v for f in replay(acts) for v in f.violations]
    by_penalty = {v.penalty_seq: v.code for v in found if v.family == "player-rule" and v.penalty_seq}
    causes = Counter()
    for a in acts:
        if a["event"] == "penalty":
            err = a["contents"]["error"]
            causes[(err["message"] if isinstance(err, dict) else err, by_penalty[a["seq"]])] += 1
    assert causes[("timeout", "response-time")] == 6
    assert causes[("Did not say uno.", "uno-call-missed")] == 1
    assert causes[("Special logic title too long.", "special-logic-valid")] > 0
    assert all(code for (_, code) in causes)


def test_replayed_cards_are_conserved_in_every_clean_round() -> None:
    for match in ("demo4_bind2_60", "speciallogic_timeout_probe_2", "misbehave_bind2_40"):
        for f in replay(activities(match)):
            s = f.after
            if s.in_round and f.event is not None and f.event.kind in ("next-player", "draw-card", "penalty"):
                assert s.card_total() == s.deck_size, (match, f.seq)


def test_known_dealer_departures_are_reported_as_dealer_judgements() -> None:
    found = [v for f in replay(activities("demo4_bind2_60")) for v in f.violations]
    departures = [v for v in found if v.code == "wd4-last-card-draw"]
    assert departures and all(v.family == "dealer-judgement" and v.severity == "warning" for v in departures)


def test_a_title_too_long_is_shown_cut_with_its_length() -> None:
    """The finding shows a long special-logic title whole, or cut with an ellipsis, the closing quote and
    its length (never cut silently mid-title)."""
    from rules.uno.checks import TITLE_SHOWN, _title

    assert _title("T" * 49) == "'" + "T" * TITLE_SHOWN + "…' (49 characters)"
    assert _title("T" * TITLE_SHOWN) == "'" + "T" * TITLE_SHOWN + "'"
    found = [v for f in replay(activities("misbehave_skipbind2_80")) for v in f.violations
             if v.code == "special-logic-valid" and "too long" in v.message]  # fmt: skip
    assert found
    for v in found:
        assert re.match(r"special-logic title ('T{1,40}'|'T{40}…' \((\d+) characters\)): ", v.message), v.message
