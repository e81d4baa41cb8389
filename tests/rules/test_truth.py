"""Each action judged on what the log proves at that moment (docs/games.md, "The judging rule").

Single-line changes of real ALGORI rounds, chosen from what the rules and the dealer's log make
possible — a ``next-player`` naming another seat, flipping its direction or its owed draw,
showing another top card; a play of another card; a draw written under another seat's name; a
line stamped before the line above it; a line lost — and a Hypothesis property over them: **no
player other than the one whose own line changed gains a player-rule error**, and one change
gives a bounded number of findings (the divergence, not a cascade to the end of the round).
Then the whole-log and turn cases: a fifth player joining, a second play in one turn, the
seating of the deal contradicted by every hand-over.
"""

from __future__ import annotations

import copy
import functools
import os
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core import CONSISTENCY, DEALER_JUDGEMENT, PLAYER_RULE
from tests.rules.helpers import activities, c, findings, renumber, round_of

COLOURS = ("red", "yellow", "green", "blue")
#: Rounds of genuine logs: both white-wild settings, clean bots and misbehaving ones.
ROUNDS = (("demo4_bind2_60", 2), ("demo4_skipbind2_300", 5), ("misbehave_bind2_40", 15), ("misbehave_skipbind2_80", 64))


@functools.cache
def _round(which: int) -> tuple[dict[str, Any], ...]:
    match, no = ROUNDS[which]
    return tuple(round_of(activities(match), no))


@functools.cache
def _genuine(which: int) -> tuple[Counter[tuple[str, str | None]], frozenset[tuple[str, str | None, int | None]]]:
    found = findings(copy.deepcopy(list(_round(which))))
    return _errors(found), frozenset((v.code, v.player, v.seq) for v in found if v.severity != "info")


def _errors(found: list[Any]) -> Counter[tuple[str, str | None]]:
    return Counter((v.code, v.player) for v in found if v.family == PLAYER_RULE and v.severity == "error")


def _seats(acts: list[dict[str, Any]]) -> list[str]:
    return next(c(a)["play_order"] for a in acts if a["event"] == "first-player")


Change = tuple[str, Callable[[dict[str, Any]], None] | None, str | None]  # (name, change of the line or None = delete, author)


def _changes(acts: list[dict[str, Any]], i: int) -> list[Change]:
    """Every single change the suite makes to line ``i``, with the player whose own line it is
    (None for a dealer line: then nobody may gain a player-rule error)."""
    a, seats = acts[i], _seats(acts)
    ct, ev, actor = c(a), a["event"], a["player"] or None
    out: list[Change] = [("lost", None, actor)]
    if i > 1 and type(a["date_ms"]) is int:
        out.append(("stamped 10 s early", lambda x: x.__setitem__("date_ms", x["date_ms"] - 10_000), actor))
        above = acts[i - 1]["date_ms"]
        out.append(("stamped just before the line above", lambda x: x.__setitem__("date_ms", above - 1), actor))
    if ev == "next-player":
        for p in seats:
            if p != ct.get("next_player"):
                out.append((f"next_player {p}", lambda x, p=p: c(x).__setitem__("next_player", p), None))
        out.append(("turn_right flipped", lambda x: c(x).__setitem__("turn_right", not c(x).get("turn_right")), None))
        out.append(("must_call_draw_card flipped",
                    lambda x: c(x).__setitem__("must_call_draw_card", not c(x).get("must_call_draw_card")), None))
        top = ct.get("card_before")
        if isinstance(top, dict) and top.get("color") in COLOURS:
            other = COLOURS[(COLOURS.index(top["color"]) + 1) % 4]
            out.append(("card_before of another colour", lambda x: c(x)["card_before"].__setitem__("color", other), None))
    elif ev == "play-card":
        card = ct.get("card_play")
        if isinstance(card, dict) and card.get("color") in COLOURS:
            other = COLOURS[(COLOURS.index(card["color"]) + 1) % 4]
            out.append(("card of another colour", lambda x: c(x)["card_play"].__setitem__("color", other), actor))
            out.append(("a 7 of that colour", lambda x: c(x).__setitem__("card_play", {"color": card["color"], "number": 7}), actor))
    elif ev == "draw-card":
        for p in seats:
            if p != actor:
                out.append((f"written under {p}", lambda x, p=p: x.__setitem__("player", p), None))
    return out


def _changed(which: int, i: int, change: Change) -> list[dict[str, Any]]:
    acts = copy.deepcopy(list(_round(which)))
    if change[1] is None:
        del acts[i]
        return renumber(acts)
    change[1](acts[i])
    return acts


#: Findings one change may give at the most: the divergence and what the same line shows with it
#: (a lost play: the card then missing from the hand, the desk, the card count and the round's end).
MOST = 9


@settings(max_examples=int(os.environ.get("KIFU_HYPOTHESIS_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(which=st.integers(0, len(ROUNDS) - 1), line=st.integers(0, 10_000), pick=st.integers(0, 10_000))
def test_a_single_changed_line_blames_no_one_else(which: int, line: int, pick: int) -> None:
    base = _round(which)
    i = 4 + line % (len(base) - 4)  # any line after the join-rooms
    changes = _changes(list(base), i)
    change = changes[pick % len(changes)]
    before, seen = _genuine(which)
    found = findings(_changed(which, i, change))
    grown = {k: n for k, n in (_errors(found) - before).items() if k[1] != change[2]}
    assert not grown, (ROUNDS[which], base[i]["seq"], base[i]["event"], change[0], grown)
    new = [v for v in found if v.severity != "info" and (v.code, v.player, v.seq) not in seen]
    if change[1] is not None:  # (a lost line renumbers the lines after it)
        assert len(new) <= MOST, (change[0], [(v.seq, v.code, v.message) for v in new])


def test_every_change_kind_of_every_line_of_a_round_blames_no_one_else() -> None:
    """The property above, exhaustively over one clean round."""
    which = 0
    base = list(_round(which))
    before, _ = _genuine(which)
    for i in range(4, len(base)):
        for change in _changes(base, i):
            grown = {k: n for k, n in (_errors(findings(_changed(which, i, change))) - before).items() if k[1] != change[2]}
            assert not grown, (base[i]["seq"], base[i]["event"], change[0], grown)


# ---------------------------------------------------------------------------------- cases


def _new(acts: list[dict[str, Any]], which: int) -> list[Any]:
    _, seen = _genuine(which)
    return [v for v in findings(acts) if v.severity != "info" and (v.code, v.player, v.seq) not in seen]


def test_a_next_player_stamped_early_gives_no_one_a_response_time() -> None:
    """A hand-over stamped 10 s before the line above it: the player who answered it at once is not late."""
    acts = copy.deepcopy(list(_round(0)))
    i = next(i for i, a in enumerate(acts) if a["event"] == "next-player" and i > 10)
    acts[i]["date_ms"] -= 10_000
    new = _new(acts, 0)
    assert [(v.code, v.family, v.seq) for v in new] == [("event-sequence", CONSISTENCY, acts[i]["seq"])]
    assert "out of order" in new[0].message


def test_a_card_before_unlike_the_replay_is_one_finding_and_the_next_play_is_judged_on_both() -> None:
    acts = copy.deepcopy(list(_round(0)))
    i = next(i for i, a in enumerate(acts) if a["event"] == "next-player" and i > 10
             and acts[i + 1]["event"] == "play-card" and c(a)["card_before"].get("color") in COLOURS)  # fmt: skip
    c(acts[i])["card_before"]["color"] = COLOURS[(COLOURS.index(c(acts[i])["card_before"]["color"]) + 1) % 4]
    assert [(v.code, v.seq) for v in _new(acts, 0)] == [("next-player-contents", acts[i]["seq"])]


def test_a_forced_draw_written_under_another_seat_blames_neither_seat() -> None:
    which = 1  # skip_bind_2: the white wild binds the next player to two forced draws
    acts = copy.deepcopy(list(_round(which)))
    i = next(i for i, a in enumerate(acts) if a["event"] == "draw-card" and c(a).get("draw_reason") == "skip_bind_2")
    owner = acts[i]["player"]
    other = next(p for p in _seats(acts) if p != owner)
    acts[i]["player"] = other
    new = _new(acts, which)
    assert not [v for v in new if v.family == PLAYER_RULE], [(v.code, v.player, v.seq) for v in new]
    assert any(v.seq == acts[i]["seq"] and v.family == CONSISTENCY for v in new)
    assert len(new) <= 6


def test_a_second_play_in_one_turn_is_the_players_foul_and_the_dealers() -> None:
    """Once a card is played the turn is over until the hand-over: one action per turn."""
    acts = copy.deepcopy(list(_round(0)))
    for i in range(len(acts) - 1):
        a, nxt = acts[i], acts[i + 1]
        if a["event"] != "play-card" or nxt["event"] != "next-player" or "special" in c(a)["card_play"]:
            continue
        hand = (nxt.get("desk") or {}).get("card_of_player", {}).get(a["player"], [])
        same = [x for x in hand if x.get("color") == c(a)["card_play"]["color"] and "special" not in x]
        if same:
            break
    else:
        raise AssertionError("no play followed by a matching card in the same hand")
    second = copy.deepcopy(a)
    c(second)["card_play"] = same[0]
    second["date_ms"] += 5
    acts.insert(i + 1, second)
    renumber(acts)
    at = [(v.code, v.family, v.player) for v in findings(acts) if v.seq == i + 2]
    assert ("turn-owner", PLAYER_RULE, a["player"]) in at
    assert ("missing-penalty", DEALER_JUDGEMENT, a["player"]) in at


def test_a_fifth_player_joining_a_four_seat_dealer_is_reported_once() -> None:
    acts = activities("demo4_bind2_60")[:300]
    j = max(i for i, a in enumerate(acts) if a["event"] == "join-room")
    fifth = copy.deepcopy(acts[j])
    fifth["player"] = "P-00000099"
    fifth["contents"] = {"player_code": "P-00000099", "player_name": "Fifth"}
    before = {(v.code, v.seq) for v in findings(copy.deepcopy(acts))}
    acts.insert(j + 1, fifth)
    renumber(acts)
    new = [(v.code, v.family, v.seq) for v in findings(acts) if (v.code, v.seq - (v.seq > j + 1)) not in before]
    deal = next(a["seq"] for a in acts if a["event"] == "first-player")
    assert new == [("player-count", DEALER_JUDGEMENT, deal)]


@pytest.mark.parametrize("which", [0, 1])
def test_two_seats_exchanged_in_the_deal_are_a_few_findings_not_one_per_hand_over(which: int) -> None:
    """The deal's play_order with two players exchanged, every hand-over as the dealer really seated them:
    the replay takes the seating the hand-overs prove (one next-seat saying so) instead of a finding at each."""
    acts = copy.deepcopy(list(_round(which)))
    i = next(i for i, a in enumerate(acts) if a["event"] == "first-player")
    order = c(acts[i])["play_order"]
    c(acts[i])["play_order"] = [order[0], order[2], order[1], *order[3:]]
    new = _new(acts, which)
    assert not [v for v in new if v.family == PLAYER_RULE]
    assert any("fits the seating" in v.message for v in new if v.code == "next-seat")
    assert len(new) <= 8, Counter(v.code for v in new)


def test_a_turn_penalty_after_a_special_logic_answers_the_unlogged_draw_not_the_special_logic() -> None:
    """The dealer judges a special logic by its title only, at any time; 'Next player invalid.' right after
    one answers the sender's out-of-turn draw, which the dealer never logs: the sender's turn-owner, not a
    penalty the referee gave for a legal special logic."""
    acts = copy.deepcopy(list(_round(0)))
    i = next(i for i, a in enumerate(acts) if a["event"] == "play-card" and acts[i + 1]["event"] == "next-player"
             and i > 10)  # fmt: skip
    p = acts[i]["player"]
    t = acts[i]["date_ms"]
    special = {"seq": 0, "event": "special-logic", "player": p, "turn": acts[i]["turn"],
               "contents": {"title": "いちばん多い色を選ぶ", "number_turn_play": c(acts[i]).get("number_turn_play")},
               "desk": None, "date_ms": t + 1}  # fmt: skip
    penalty = {"seq": 0, "event": "penalty", "player": "", "turn": acts[i]["turn"],
               "contents": {"player": p, "cards_receive": [], "number_turn_play": c(acts[i]).get("number_turn_play"),
                            "error": {"message": "Next player invalid.", "code": "bad_request", "status": 400}},
               "desk": None, "date_ms": t + 2}  # fmt: skip
    acts[i + 1:i + 1] = [special, penalty]
    renumber(acts)
    at = [(v.code, v.family) for v in findings(acts) if v.seq in (i + 2, i + 3) or v.penalty_seq == i + 3]
    assert ("turn-owner", PLAYER_RULE) in at, at
    assert ("penalty-unjustified", DEALER_JUDGEMENT) not in at, at
