"""Who is blamed: a player-rule finding needs the log to prove the foul (docs/rules/algori-uno.md).

A ``penalty`` line is the dealer's claim, not proof.  When the log contradicts it — a timeout
written before the player's 5 s were up, a penalty on a player other than the one whose action
(or whose missed UNO call) it answers, a cause text the board rules out — the finding is a
``dealer-judgement`` one (the referee's fault) and the penalised player gets no ``player-rule``
finding from that line.  The real offender keeps what the log proves against them.

Targeted mutations of real rounds first, then a Hypothesis property over single changes to one
penalty line of real rounds.
"""

from __future__ import annotations

import copy
import functools
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core import DEALER_JUDGEMENT, PLAYER_RULE
from rules.uno.catalog import ERROR_TO_CODE
from rules.uno.events import penalty_text
from tests.rules.helpers import activities, c, find, findings, renumber, round_of

UNO_MISS = {"message": "Did not say uno.", "code": "bad_request", "status": 400}


def _error(a: dict[str, Any]) -> str | None:
    return penalty_text(c(a).get("error")) if a["event"] == "penalty" else None


def _round_with(match: str, pred: Any) -> list[dict[str, Any]]:
    """The round (join-rooms + one round, renumbered) holding the first line matching ``pred``."""
    acts = activities(match)
    return round_of(acts, acts[find(acts, pred)]["turn"])


def _seats(acts: list[dict[str, Any]]) -> list[str]:
    return c(acts[find(acts, lambda a: a["event"] == "first-player")])["play_order"]


def _blamed(found: list[Any], player: str, *, severities: tuple[str, ...] = ("error", "warning")) -> list[Any]:
    return [v for v in found if v.family == PLAYER_RULE and v.player == player and v.severity in severities]


def _referee(found: list[Any], seq: int, *codes: str) -> list[Any]:
    return [v for v in found if v.family == DEALER_JUDGEMENT and (v.seq == seq or v.penalty_seq == seq)
            and (not codes or v.code in codes)]  # fmt: skip


def _player_errors(found: list[Any]) -> set[tuple[str, str | None, int | None]]:
    return {(v.code, v.player, v.seq) for v in found if v.family == PLAYER_RULE and v.severity == "error"}


# ---------------------------------------------------------------------------- timeouts


def _timeout_round() -> tuple[list[dict[str, Any]], int]:
    """A real round with a turn timeout right after the hand-over to the timed-out player."""
    acts = _round_with("misbehave_bind2_40", lambda a: _error(a) == "timeout" and a["turn"] == 20)
    i = find(acts, lambda a: _error(a) == "timeout")
    assert acts[i - 1]["event"] == "next-player" and c(acts[i - 1])["next_player"] == c(acts[i])["player"]
    assert acts[i]["date_ms"] - acts[i - 1]["date_ms"] >= 5_000
    return acts, i


def test_a_genuine_timeout_is_the_players() -> None:
    acts, i = _timeout_round()
    found = findings(acts)
    victim = c(acts[i])["player"]
    assert [(v.code, v.penalty_seq) for v in _blamed(found, victim) if v.seq == acts[i]["seq"]] == [
        ("response-time", acts[i]["seq"])]
    assert _referee(found, acts[i]["seq"]) == []


@pytest.mark.parametrize("after_ms", [0, 300, 2_000, 4_800])
def test_a_timeout_before_5_seconds_is_the_referees_fault(after_ms: int) -> None:
    acts, i = _timeout_round()
    victim, seq = c(acts[i])["player"], acts[i]["seq"]
    acts[i]["date_ms"] = acts[i - 1]["date_ms"] + after_ms
    found = findings(acts)
    assert [v for v in _blamed(found, victim) if v.code == "response-time" or v.penalty_seq == seq] == []
    assert {v.code for v in _referee(found, seq)} == {"penalty-unjustified", "timeout-early"}
    assert [v.player for v in _referee(found, seq, "penalty-unjustified")] == [victim]


@pytest.mark.parametrize("after_ms", [4_900, 4_950, 5_000])
def test_a_timeout_after_5_seconds_stays_the_players(after_ms: int) -> None:
    acts, i = _timeout_round()
    acts[i]["date_ms"] = acts[i - 1]["date_ms"] + after_ms
    assert acts[i]["date_ms"] <= acts[i + 1]["date_ms"]  # still in log order
    found = findings(acts)
    assert "response-time" in {v.code for v in _blamed(found, c(acts[i])["player"], severities=("error",))}
    assert _referee(found, acts[i]["seq"]) == []


def test_a_timeout_without_timestamps_keeps_the_dealers_word() -> None:
    """The log cannot decide: the player keeps the finding, as before (docs say so)."""
    acts, i = _timeout_round()
    acts[i - 1]["date_ms"] = None
    acts[i]["date_ms"] = None
    found = findings(acts)
    assert "response-time" in {v.code for v in _blamed(found, c(acts[i])["player"], severities=("error",))}


def test_a_timeout_given_to_another_seat_blames_nobody_but_the_referee() -> None:
    acts, i = _timeout_round()
    before = _player_errors(findings(acts))
    waiting = c(acts[i])["player"]
    for other in [p for p in _seats(acts) if p != waiting]:
        mutated = copy.deepcopy(acts)
        c(mutated[i])["player"] = other
        found = findings(mutated)
        assert [v for v in _blamed(found, other) if v.seq == acts[i]["seq"] or v.penalty_seq == acts[i]["seq"]] == []
        assert {v.code for v in _referee(found, acts[i]["seq"])} == {"timeout-effects"}
        assert {e for e in _player_errors(found) if e[1] == other} <= before


def test_a_colour_timeout_text_on_a_turn_timeout_is_judged_on_its_clock() -> None:
    """The colour timeout waits for the chooser; nobody was asked for a colour: the referee's fault."""
    acts, i = _timeout_round()
    c(acts[i])["error"] = "color-of-wild timeout"
    found = findings(acts)
    assert _blamed(found, c(acts[i])["player"], severities=("error",)) == [
        v for v in _blamed(findings(_timeout_round()[0]), c(acts[i])["player"], severities=("error",))
        if v.seq != acts[i]["seq"]]  # fmt: skip
    assert _referee(found, acts[i]["seq"], "timeout-effects")


# ---------------------------------------------------------------------------- "Did not say uno."


def _uno_round() -> tuple[list[dict[str, Any]], int, str]:
    """The real round with a caught UNO miss; the pointing line is made a bystander's (a valid pointing)."""
    acts = _round_with("misbehave_skipbind2_80", lambda a: c(a).get("error") == UNO_MISS)
    i = find(acts, lambda a: c(a).get("error") == UNO_MISS)
    target = c(acts[i])["player"]
    assert acts[i - 1]["event"] == "pointed-not-say-uno" and c(acts[i - 1])["target"] == target
    pointer = next(p for p in _seats(acts) if p != target)
    acts[i - 1]["player"] = pointer
    return acts, i, pointer


def test_a_valid_pointing_penalises_the_target() -> None:
    acts, i, pointer = _uno_round()
    target = c(acts[i])["player"]
    found = findings(acts)
    assert [(v.code, v.severity, v.penalty_seq) for v in _blamed(found, target) if v.code == "uno-call-missed"] == [
        ("uno-call-missed", "error", acts[i]["seq"])]
    assert _blamed(found, pointer) == []


@pytest.mark.parametrize("who", ["pointer", "bystander"])
def test_an_uno_penalty_on_the_wrong_seat_is_the_referees_fault(who: str) -> None:
    acts, i, pointer = _uno_round()
    target = c(acts[i])["player"]
    before = findings(acts)
    innocent = pointer if who == "pointer" else next(p for p in _seats(acts) if p not in (pointer, target))
    c(acts[i])["player"] = innocent
    found = findings(acts)
    assert [v for v in _blamed(found, innocent) if v.code == "uno-call-missed"] == []
    assert _player_errors([v for v in found if v.player == innocent]) <= _player_errors(before)
    # the real offender keeps what the log proves: the play line without the yell, caught in time
    missed = [v for v in _blamed(found, target) if v.code == "uno-call-missed"]
    assert [(v.severity, v.seq) for v in missed] == [
        (v.severity, v.seq) for v in _blamed(before, target) if v.code == "uno-call-missed"] == [("error", missed[0].seq)]
    outcome = _referee(found, acts[i]["seq"], "uno-pointing-outcome")
    assert [(v.player, v.penalty_seq) for v in outcome] == [(innocent, acts[i]["seq"])]


def test_an_uno_penalty_after_an_invalid_pointing_blames_the_pointer_for_the_pointing_only() -> None:
    """Pointing at a player with several cards is the pointer's foul (own line); 'Did not say uno.' on
    the pointer is then a wrong cause, and on the target a wrong outcome — never the target's miss."""
    acts, i, pointer = _uno_round()
    target = c(acts[i])["player"]
    other = next(p for p in _seats(acts) if p not in (pointer, target))
    c(acts[i - 1])["target"] = other  # holds more than one card
    for victim, codes in [(pointer, {"penalty-cause"}), (other, {"uno-pointing-outcome", "missing-penalty"})]:
        mutated = copy.deepcopy(acts)
        c(mutated[i])["player"] = victim
        found = findings(mutated)
        assert [v.code for v in _blamed(found, other) if v.code == "uno-call-missed"] == []
        assert "pointing-valid" in {v.code for v in _blamed(found, pointer, severities=("error",))}
        assert {v.code for v in _referee(found, mutated[i]["seq"])} | {
            v.code for v in _referee(found, mutated[i - 1]["seq"])} >= codes


def test_an_uno_penalty_with_no_pointing_on_a_player_with_many_cards() -> None:
    acts, i, pointer = _uno_round()
    target = c(acts[i])["player"]
    other = next(p for p in _seats(acts) if p not in (pointer, target))
    del acts[i - 1]  # no pointing line: the log alone must prove the miss
    renumber(acts)
    i -= 1
    c(acts[i])["player"] = other
    found = findings(acts)
    assert [v for v in _blamed(found, other) if v.code == "uno-call-missed"] == []
    assert _referee(found, acts[i]["seq"], "penalty-unjustified")


# ---------------------------------------------------------------------------- action penalties


def _action_penalty_round(error: str, action: str = "play-card") -> tuple[list[dict[str, Any]], int]:
    acts = _round_with("misbehave_bind2_40", lambda a: _error(a) == error)
    i = find(acts, lambda a: _error(a) == error)
    assert acts[i - 1]["event"] == action and acts[i - 1]["player"] == c(acts[i])["player"]
    return acts, i


@pytest.mark.parametrize("error", ["Card play not exist of player.", "Card play invalid with card before.",
                                   "Special logic title too long."])  # fmt: skip
def test_an_action_penalty_on_a_bystander_blames_the_actor_and_the_referee(error: str) -> None:
    acts, i = _action_penalty_round(error, "special-logic" if "logic" in error else "play-card")
    actor, seq = acts[i - 1]["player"], acts[i]["seq"]
    before = findings(acts)
    proven = {(v.code, v.seq) for v in _blamed(before, actor, severities=("error",)) if v.seq == acts[i - 1]["seq"]}
    assert proven
    for other in [p for p in _seats(acts) if p != actor]:
        mutated = copy.deepcopy(acts)
        c(mutated[i])["player"] = other
        found = findings(mutated)
        assert [v for v in _blamed(found, other) if v.seq in (seq, acts[i - 1]["seq"]) or v.penalty_seq == seq] == []
        assert _player_errors([v for v in found if v.player == other]) <= _player_errors(before)
        assert {(v.code, v.seq) for v in _blamed(found, actor, severities=("error",))} >= proven  # the actor's own line
        assert {v.code for v in _referee(found, seq, "penalty-unjustified")} == {"penalty-unjustified"}


@pytest.mark.parametrize("new", ["Special logic title too long.", "Did not say uno.", "timeout", "Already changed color.",
                                 "Player name invalid."])  # fmt: skip
def test_an_action_penalty_with_another_cause_adds_no_foul(new: str) -> None:
    acts, i = _action_penalty_round("Card play invalid with card before.")
    actor, seq = acts[i - 1]["player"], acts[i]["seq"]
    before = _player_errors(findings(acts))
    c(acts[i])["error"] = new
    found = findings(acts)
    assert _player_errors(found) <= before  # the play line still proves card-legal-on-top, nothing more
    assert ("card-legal-on-top", actor, acts[i - 1]["seq"]) in _player_errors(found)
    assert [v for v in _blamed(found, actor) if v.seq == seq] == []
    assert _referee(found, seq) or _referee(found, acts[i - 1]["seq"], "missing-penalty")


def test_a_timeout_renamed_to_an_action_error_blames_nobody() -> None:
    acts, i = _timeout_round()
    victim, seq = c(acts[i])["player"], acts[i]["seq"]
    c(acts[i])["error"] = "Card play invalid."
    found = findings(acts)
    assert [v for v in _blamed(found, victim) if v.seq == seq or v.penalty_seq == seq] == []
    assert _referee(found, seq, "penalty-unjustified")


def test_a_timeout_right_after_the_players_own_action_is_the_referees_fault() -> None:
    """The action line shows the player answered in time: a timeout after it proves nothing against them."""
    acts, i = _action_penalty_round("Card play invalid with card before.")
    actor, seq = acts[i - 1]["player"], acts[i]["seq"]
    before = _player_errors(findings(acts))
    c(acts[i])["error"] = "timeout"
    found = findings(acts)
    assert [v for v in _blamed(found, actor) if v.seq == seq or v.penalty_seq == seq] == []
    assert _player_errors(found) <= before
    assert [v.code for v in _referee(found, seq, "penalty-unjustified")] == ["penalty-unjustified"]


def test_next_player_invalid_for_the_player_to_act_is_the_referees_fault() -> None:
    acts = activities("misbehave_bind2_40")
    i = find(acts, lambda a: _error(a) == "Next player invalid." and acts[a["seq"] - 2]["event"] == "next-player")
    acts = round_of(acts, acts[i]["turn"])
    i = find(acts, lambda a: _error(a) == "Next player invalid." and acts[a["seq"] - 2]["event"] == "next-player")
    to_act, seq = c(acts[i - 1])["next_player"], acts[i]["seq"]
    assert c(acts[i])["player"] != to_act  # the genuine line: an out-of-turn draw or challenge
    c(acts[i])["player"] = to_act
    found = findings(acts)
    assert [v for v in _blamed(found, to_act) if v.seq == seq or v.penalty_seq == seq] == []
    assert {v.code for v in _referee(found, seq)} == {"penalty-unjustified"}


def test_a_penalty_only_foul_moved_to_another_seat_is_disowned_by_the_desk() -> None:
    """An out-of-turn draw leaves only its penalty line; that line's desk shows who drew the cards."""
    acts = activities("misbehave_bind2_40")
    i = find(acts, lambda a: _error(a) == "Next player invalid." and acts[a["seq"] - 2]["event"] == "next-player")
    acts = round_of(acts, acts[i]["turn"])
    i = find(acts, lambda a: _error(a) == "Next player invalid." and acts[a["seq"] - 2]["event"] == "next-player")
    genuine, seq = c(acts[i])["player"], acts[i]["seq"]
    assert "turn-owner" in {v.code for v in _blamed(findings(acts), genuine) if v.penalty_seq == seq}
    for other in [p for p in _seats(acts) if p not in (genuine, c(acts[i - 1])["next_player"])]:
        mutated = copy.deepcopy(acts)
        c(mutated[i])["player"] = other
        found = findings(mutated)
        assert [v for v in _blamed(found, other) if v.seq == seq or v.penalty_seq == seq] == []
        assert _referee(found, seq, "penalty-unjustified")


def test_can_not_challenge_for_a_live_challenger_is_the_referees_fault() -> None:
    acts = activities("misbehave_bind2_40")
    wd4 = lambda a: a["event"] == "next-player" and c(a).get("draw_reason") == "wild_draw_4"  # noqa: E731
    i = find(acts, wd4)
    while acts[i + 1]["event"] == "penalty":  # a hand-over without a penalty after it: the challenger is free
        i = find(acts, wd4, i + 1)
    acts = round_of(acts, acts[i]["turn"])
    i = find(acts, wd4)
    while acts[i + 1]["event"] == "penalty":
        i = find(acts, wd4, i + 1)
    to_act = c(acts[i])["next_player"]
    acts.insert(i + 1, {"seq": 0, "event": "penalty", "player": "", "turn": acts[i]["turn"], "desk": None,
                        "date_ms": acts[i]["date_ms"] + 5,
                        "contents": {"player": to_act, "cards_receive": [], "error": "Can not challenge.",
                                     "number_turn_play": c(acts[i])["number_turn_play"]}})  # fmt: skip
    renumber(acts)
    found = findings(acts)
    seq = acts[i + 1]["seq"]
    assert [v for v in _blamed(found, to_act) if v.seq == seq or v.penalty_seq == seq] == []
    assert "penalty-unjustified" in {v.code for v in _referee(found, seq)}  # (and penalty-count: no cards drawn)


# ---------------------------------------------------------------------------- property


@functools.cache
def _rounds() -> list[list[dict[str, Any]]]:
    """Small real rounds with many kinds of penalty: timeouts after a hand-over and after a
    pointing, the one caught UNO miss, action penalties, out-of-turn and challenge penalties."""
    bind2 = activities("misbehave_bind2_40")
    skip = activities("misbehave_skipbind2_80")
    probe = activities("speciallogic_timeout_probe_2")
    return [round_of(bind2, 15), round_of(bind2, 16), round_of(bind2, 20), round_of(skip, 64), round_of(probe, 1)]


@functools.cache
def _errors_of(which: int) -> frozenset[tuple[str, str | None, int | None]]:
    return frozenset(_player_errors(findings(copy.deepcopy(_rounds()[which]))))


DEALER_TEXTS = sorted(ERROR_TO_CODE) + ["color-of-wild timeout"]


@settings(max_examples=int(os.environ.get("KIFU_HYPOTHESIS_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(which=st.integers(0, 4), pick=st.integers(0, 10_000), change=st.one_of(
    st.tuples(st.just("time"), st.sampled_from([-6_000, -4_990, -4_700, -2_000, -300, -1, 1, 300, 2_000, 6_000]),),
    st.tuples(st.just("victim"), st.integers(0, 3)),
    st.tuples(st.just("cause"), st.sampled_from(DEALER_TEXTS)),
))  # fmt: skip
def test_a_changed_penalty_line_never_blames_anyone_new(which: int, pick: int, change: tuple[Any, ...]) -> None:
    """Any single change to one penalty line of a real round: no player other than the line's
    original victim gets a player-rule error the unmutated log did not give them (so a newly
    named victim gets none either)."""
    acts = copy.deepcopy(_rounds()[which])
    lines = [i for i, a in enumerate(acts) if a["event"] == "penalty"]
    i = lines[pick % len(lines)]
    line = c(acts[i])
    original = line["player"]
    if change[0] == "time":  # kept between its neighbours: a line out of time order is a log gap (test_log_gaps)
        low, high = acts[i - 1]["date_ms"], acts[i + 1]["date_ms"] if i + 1 < len(acts) else None
        acts[i]["date_ms"] = max(low, acts[i]["date_ms"] + change[1])
        acts[i]["date_ms"] = min(high, acts[i]["date_ms"]) if high is not None else acts[i]["date_ms"]
    elif change[0] == "victim":
        line["player"] = _seats(acts)[change[1]]
    else:
        line["error"] = change[1]
    before = _errors_of(which)
    after = _player_errors(findings(acts))
    grown = {e for e in after - before if e[1] != original}
    assert grown == set(), (change, acts[i]["seq"], original)


# ---------------------------------------------------------------------------- whose turn it was


def _turn_lines(acts: list[dict[str, Any]]) -> list[int]:
    """Indices of next-player lines followed at once by a play-card of the player they name."""
    return [i for i in range(len(acts) - 1)
            if acts[i]["event"] == "next-player" and acts[i + 1]["event"] == "play-card"
            and acts[i + 1]["player"] == c(acts[i])["next_player"]]  # fmt: skip


def _fouls(acts: list[dict[str, Any]]) -> set[tuple[str, str | None]]:
    return {(v.code, v.player) for v in findings(acts) if v.family == PLAYER_RULE and v.severity != "info"}


@functools.cache
def _clean_fouls() -> frozenset[tuple[str, str | None]]:
    return frozenset(_fouls(round_of(activities("demo4_bind2_60"), 2)))


def _clean() -> tuple[list[dict[str, Any]], frozenset[tuple[str, str | None]]]:
    """A round of a clean match (a fresh copy) and the fouls the genuine round gives."""
    return round_of(activities("demo4_bind2_60"), 2), _clean_fouls()


@pytest.mark.parametrize("k", [0, 3, 7])
def test_a_next_player_naming_the_wrong_seat_does_not_blame_the_player_whose_turn_it_was(k: int) -> None:
    """The dealer names another seat, then accepts the play of the seat the rules give the turn to."""
    acts, genuine = _clean()
    i = _turn_lines(acts)[k]
    right = c(acts[i])["next_player"]
    wrong = next(p for p in _seats(acts) if p != right)
    c(acts[i])["next_player"] = wrong
    found = findings(acts)
    assert any(v.code == "next-seat" and v.seq == acts[i]["seq"] for v in found)
    assert _fouls(acts) <= genuine, "the player whose turn it was by the rules is blamed"


def test_a_play_by_a_bystander_is_the_bystanders_foul_and_the_wild_colour_line_stays_the_dealers() -> None:
    acts, genuine = _clean()
    for i in _turn_lines(acts):
        card = c(acts[i + 1]).get("card_play") or {}
        if card.get("special") in ("wild", "wild_draw_4") and acts[i + 2]["event"] == "color-of-wild":
            break
    else:
        raise AssertionError("the round has no wild played in turn")
    player = acts[i + 1]["player"]
    bystander = next(p for p in _seats(acts) if p not in (player, c(acts[i + 1]).get("next_player")))
    acts[i + 1]["player"] = bystander
    found = findings(acts)
    assert ("turn-owner", bystander) in {(v.code, v.player) for v in found if v.seq == acts[i + 1]["seq"]}
    assert not [v for v in found if v.family == PLAYER_RULE and v.player == player and v.seq == acts[i + 2]["seq"]], \
        "the dealer's colour line after the wild judged as a colour choice of the player it names"


def test_two_plays_swapped_around_their_hand_over_blame_nobody() -> None:
    """Lines out of order (each keeps its timestamp): the log does not prove anyone acted out of turn."""
    acts, genuine = _clean()
    for i in _turn_lines(acts):
        j = i + 2
        if j + 1 < len(acts) and acts[j]["event"] == "next-player" and acts[j + 1]["event"] == "play-card" \
                and acts[j + 1]["player"] == c(acts[j])["next_player"] != acts[i + 1]["player"]:  # fmt: skip
            break
    else:
        raise AssertionError("no two plays in a row in the round")
    acts[i + 1], acts[j + 1] = acts[j + 1], acts[i + 1]
    renumber(acts)
    assert _fouls(acts) <= genuine


def test_a_drawn_card_said_unplayable_but_played_blames_nobody_and_is_one_finding() -> None:
    """The dealer's draw-card says can_play_draw_card false for a playable card, then takes its play."""
    every = activities("demo4_bind2_60")

    def pair(acts: list[dict[str, Any]]) -> int | None:
        return next((i for i in range(len(acts) - 1) if acts[i]["event"] == "draw-card"
                     and c(acts[i]).get("can_play_draw_card") and acts[i + 1]["event"] == "play-draw-card"
                     and c(acts[i + 1]).get("is_play_card")), None)  # fmt: skip

    acts = next(r for r in (round_of(every, n) for n in range(1, 61)) if pair(r) is not None)
    i = pair(acts)
    assert i is not None
    genuine = _fouls(acts)
    before = {(v.code, v.seq) for v in findings(acts)}
    c(acts[i])["can_play_draw_card"] = False
    new = [v for v in findings(acts) if (v.code, v.seq) not in before]
    assert [(v.code, v.seq) for v in new] == [("voluntary-draw", acts[i]["seq"])], [(v.code, v.seq, v.message) for v in new]
    assert _fouls(acts) <= genuine
