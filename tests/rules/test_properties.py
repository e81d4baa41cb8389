"""Property tests: random mutations of real rounds never crash the replay, and cards never vanish silently.

Hypothesis takes a real round (join-rooms + one round of a real dealer log) and applies a
random list of edits — delete, duplicate or swap events, rename an event, change the actor,
overwrite a contents field with arbitrary JSON.  The replay must finish, report only known
check codes, and whenever its board stops adding up to the whole deck it must have said so
(a consistency finding) rather than carry on silently.
"""

from __future__ import annotations

import copy
import functools
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core import CONSISTENCY
from rules.uno.catalog import CHECKS
from rules.uno.replay import replay
from tests.rules.helpers import activities, renumber, round_of

EVENTS = ["play-card", "draw-card", "play-draw-card", "challenge", "penalty", "next-player", "color-of-wild",
          "pointed-not-say-uno", "special-logic", "shuffle-wild", "finish-turn", "public-card", "mystery"]  # fmt: skip

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 30) | st.text(max_size=8)
    | st.integers() | st.floats() | st.sampled_from([1e308, -1e308, float("inf"), float("nan"), 2**64, 10**30, "12"])
    | st.sampled_from([{"color": "red", "number": 5}, {"color": "black", "special": "wild"}, "P-00000013", []]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


@functools.cache
def _rounds() -> list[list[dict[str, Any]]]:
    """Four real rounds (loaded on first use, so a checkout without the fixtures skips, not errors)."""
    probe = activities("speciallogic_timeout_probe_2")
    misbehave = activities("misbehave_bind2_40")
    return [round_of(probe, 1), round_of(probe, 2), round_of(misbehave, 5), round_of(misbehave, 8)]


N_ROUNDS = 4

edit = st.one_of(
    st.tuples(st.just("delete"), st.integers(0, 10_000)),
    st.tuples(st.just("duplicate"), st.integers(0, 10_000)),
    st.tuples(st.just("swap"), st.integers(0, 10_000)),
    st.tuples(st.just("rename"), st.integers(0, 10_000), st.sampled_from(EVENTS)),
    st.tuples(st.just("actor"), st.integers(0, 10_000), st.sampled_from(["", "P-00000013", "P-00000002", "nobody"])),
    st.tuples(st.just("field"), st.integers(0, 10_000), st.text(min_size=1, max_size=20), json_values),
)


def mutate(acts: list[dict[str, Any]], edits: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    acts = copy.deepcopy(acts)
    for e in edits:
        if not acts:
            break
        i = e[1] % len(acts)
        if e[0] == "delete":
            del acts[i]
        elif e[0] == "duplicate":
            acts.insert(i, copy.deepcopy(acts[i]))
        elif e[0] == "swap" and i + 1 < len(acts):
            acts[i], acts[i + 1] = acts[i + 1], acts[i]
        elif e[0] == "rename":
            acts[i]["event"] = e[2]
        elif e[0] == "actor":
            acts[i]["player"] = e[2]
        elif e[0] == "field":
            contents = acts[i]["contents"]
            if isinstance(contents, dict):
                keys = sorted(contents) or ["x"]
                key = keys[len(e[2]) % len(keys)] if e[2] != "new" else e[2]
                contents[key] = e[3]
    return renumber(acts)


@settings(max_examples=int(os.environ.get("KIFU_HYPOTHESIS_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, N_ROUNDS - 1), st.lists(edit, min_size=1, max_size=6))
def test_random_mutations_never_crash(which: int, edits: list[tuple[Any, ...]]) -> None:
    acts = mutate(_rounds()[which], edits)
    frames = list(replay(acts))
    # every line gets one frame (two lines written out of time order are replayed in time order)
    assert sorted(f.seq for f in frames if f.seq > 0) == [a["seq"] for a in acts]
    reported = False
    for f in frames:
        for v in f.violations:
            assert v.code in CHECKS
            assert v.family == CHECKS[v.code].family
            reported = reported or v.family == CONSISTENCY or v.code in ("round-end", "deal-and-first-card")
        s = f.after
        if s.in_round and f.event is not None and f.event.kind == "next-player" and not reported:
            assert s.card_total() == s.deck_size, f"cards lost silently at seq {f.seq}"


@settings(max_examples=40, deadline=None)
@given(st.integers(0, N_ROUNDS - 1))
def test_replay_is_deterministic(which: int) -> None:
    first = [(f.seq, f.after, f.violations) for f in replay(_rounds()[which])]
    second = [(f.seq, f.after, f.violations) for f in replay(copy.deepcopy(_rounds()[which]))]
    assert first == second


def test_card_text_round_trips() -> None:
    from rules.uno.cards import ALL_COLORS, SPECIALS, Card

    for color in ALL_COLORS:
        for face in [*range(10), *SPECIALS]:
            card = Card(color, face, None) if isinstance(face, int) else Card(color, None, face)
            assert Card.parse(str(card)) == card
            assert Card.from_dealer(card.to_dealer()) == card


@given(st.lists(st.fixed_dictionaries({"color": st.sampled_from(["red", "green", "black", 1]),
                                        "number": st.sampled_from([1, 1.0, True, 0, False, None, "1"])}), max_size=12))
@settings(max_examples=int(os.environ.get("KIFU_HYPOTHESIS_EXAMPLES", "60")), deadline=None)
def test_a_card_reads_the_same_whatever_was_read_before(payloads: list[dict[str, Any]]) -> None:
    """The card cache never lends one payload's card to an equal-looking one (1, 1.0 and True)."""
    from rules.uno import events
    from rules.uno.cards import Card

    events._CARD_CACHE.clear()
    for p in payloads:
        assert events.card_of(p) == Card.from_dealer(p), p
    assert events.card_of({"color": "red", "number": 1}) == Card("red", 1)
    assert events.card_of({"color": "red", "number": True}) is None
    assert events.card_of({"color": "red", "number": 1.0}) is None


@given(st.dictionaries(st.sampled_from(["round_no", "top", "hands", "stall", "gate", "names", "winner"]),
                       st.none() | st.integers() | st.text(max_size=4), max_size=4))
@settings(max_examples=int(os.environ.get("KIFU_HYPOTHESIS_EXAMPLES", "60")), deadline=None)
def test_state_replace_is_namedtuple_replace(changes: dict[str, Any]) -> None:
    """``GameState.replace`` (by field index, on the hot path) builds what ``_replace`` builds."""
    import pytest

    from rules.uno.state import GameState

    s = GameState(round_no=3, seats=("a", "b"), stall=2)
    got = s.replace(**changes)
    assert type(got) is GameState and got == s._replace(**changes) and got._asdict() == s._replace(**changes)._asdict()
    with pytest.raises(ValueError, match="unexpected field names"):
        s.replace(no_such_field=1, **changes)
