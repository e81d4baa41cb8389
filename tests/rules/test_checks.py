"""One mutation per check: a real match is altered into exactly the fault a check exists for.

The base is the real ``speciallogic_timeout_probe_2`` match (2 rounds, 341 events, two
penalties of the probing bot); a few penalty checks use ``misbehave_skipbind2_80``.  Each
case asserts that its check fires; ``test_clean_match`` asserts what the unaltered match
gives, so a check that fires everywhere would fail there.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from rules.core import CONSISTENCY, DEALER_JUDGEMENT, PLAYER_RULE
from rules.uno.catalog import CHECKS
from rules.uno.cards import Card
from rules.uno.checks import Judge
from rules.uno.state import GameState, frozen
from tests.rules.helpers import activities, c, codes, find, findings, renumber

BASE = "speciallogic_timeout_probe_2"
Acts = list[dict[str, Any]]


def ev(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda a: a["event"] == kind


def hand_before_play(acts: Acts, i: int) -> list[dict[str, Any]]:
    """The actor's hand before play-card ``i`` (its hybrid desk shows the hand without the card)."""
    a = acts[i]
    return a["desk"]["card_of_player"][a["player"]] + [c(a)["card_play"]]


def top_before(acts: Acts, i: int) -> Card:
    j = max(k for k in range(i) if acts[k]["event"] == "next-player")
    return Card.from_dealer(c(acts[j])["card_before"])  # type: ignore[return-value]


def number_play(acts: Acts, start: int = 0, min_hand: int = 3) -> int:
    return find(acts, lambda a: a["event"] == "play-card" and "number" in (c(a).get("card_play") or {})
                and len(a["desk"]["card_of_player"][a["player"]]) + 1 >= min_hand, start)  # fmt: skip


def insert_after(acts: Acts, i: int, new: dict[str, Any]) -> None:
    base = copy.deepcopy(acts[i])
    base.update(new)
    acts.insert(i + 1, base)
    renumber(acts)


# --------------------------------------------------------------------------------- mutations


def m_turn_owner(acts: Acts) -> None:
    i = number_play(acts)
    a = acts[i]
    others = [p for p in a["desk"]["card_of_player"] if p != a["player"]]
    a["player"] = others[0]


def m_owed_draw(acts: Acts) -> None:
    j = find(acts, lambda a: a["event"] == "draw-card" and c(a).get("draw_reason") == "draw_2")
    drawer = acts[j]["player"]
    hand = acts[j - 1]["desk"]["card_of_player"][drawer]
    insert_after(acts, j - 1, {"event": "play-card", "player": drawer,
                               "contents": {"card_play": hand[0], "number_turn_play": c(acts[j])["number_turn_play"],
                                            "next_player": drawer, "yell_uno": False}})  # fmt: skip


def m_card_object(acts: Acts) -> None:
    c(acts[number_play(acts)])["card_play"] = {"color": "red", "number": 12}


def m_yell_field(acts: Acts) -> None:
    c(acts[number_play(acts)])["yell_uno"] = "yes"


def m_card_owned(acts: Acts) -> None:
    i = number_play(acts)
    held = {Card.from_dealer(x) for x in hand_before_play(acts, i)}
    missing = next(Card(col, n) for col in ("red", "blue", "green", "yellow") for n in range(10) if Card(col, n) not in held)
    c(acts[i])["card_play"] = missing.to_dealer()


def m_card_legal(acts: Acts) -> None:
    for i in range(len(acts)):
        if acts[i]["event"] != "play-card" or "number" not in (c(acts[i]).get("card_play") or {}):
            continue
        top = top_before(acts, i)
        bad = [x for x in hand_before_play(acts, i) if (k := Card.from_dealer(x)) and not k.is_wild
               and k.color != top.color and k.number != top.number and k.special != top.special]  # fmt: skip
        if bad:
            c(acts[i])["card_play"] = bad[0]
            return
    raise LookupError


def _wild_play(acts: Acts) -> dict[str, Any]:
    return c(acts[find(acts, lambda a: a["event"] == "play-card" and (c(a).get("card_play") or {}).get("special") == "wild")])


def m_wild_colour_given(acts: Acts) -> None:
    del _wild_play(acts)["color_of_wild"]


def m_wild_colour_valid(acts: Acts) -> None:
    _wild_play(acts)["color_of_wild"] = "purple"


def m_yell_at_two(acts: Acts) -> None:
    c(acts[number_play(acts, min_hand=4)])["yell_uno"] = True


def m_uno_missed(acts: Acts) -> None:
    c(acts[find(acts, lambda a: a["event"] == "play-card" and c(a).get("yell_uno") is True)])["yell_uno"] = False


def m_play_draw(acts: Acts) -> None:
    c(acts[find(acts, ev("play-draw-card"))])["is_play_card"] = "maybe"


def m_challenge_eligible(acts: Acts) -> None:
    i = find(acts, ev("next-player"), 10)
    insert_after(acts, i, {"event": "penalty", "player": "",
                           "contents": {"player": c(acts[i])["next_player"], "cards_receive": [],
                                        "number_turn_play": c(acts[i])["number_turn_play"], "error": "Can not challenge."}})  # fmt: skip


def m_colour_choice(acts: Acts) -> None:
    i = find(acts, ev("next-player"), 10)
    insert_after(acts, i, {"event": "color-of-wild", "player": c(acts[i])["next_player"],
                           "contents": {"color_of_wild": "red", "number_turn_play": c(acts[i])["number_turn_play"]}})  # fmt: skip


def m_pointing(acts: Acts) -> None:
    i = find(acts, ev("next-player"), 10)
    target = c(acts[i])["next_player"]
    insert_after(acts, i, {"event": "pointed-not-say-uno", "player": c(acts[i])["before_player"],
                           "contents": {"pointer": c(acts[i])["before_player"], "target": target,
                                        "have_say_uno": False, "card_of_player": c(acts[i])["card_of_player"]}})  # fmt: skip


def _special(acts: Acts, titles: list[str]) -> None:
    i = find(acts, ev("next-player"), 30)
    for title in titles:
        insert_after(acts, i, {"event": "special-logic", "player": c(acts[i])["next_player"],
                               "contents": {"title": title, "number_turn_play": c(acts[i])["number_turn_play"]}})  # fmt: skip


def m_special_valid(acts: Acts) -> None:
    _special(acts, ["x" * 40])


def m_special_limit(acts: Acts) -> None:
    _special(acts, ["go"] * 11)


def m_special_registry(acts: Acts) -> None:
    _special(acts, ["a", "b", "c", "d"])


def m_penalty_unjustified(acts: Acts) -> None:
    i = number_play(acts)
    insert_after(acts, i, {"event": "penalty", "player": "",
                           "contents": {"player": acts[i]["player"], "cards_receive": [],
                                        "number_turn_play": c(acts[i])["number_turn_play"],
                                        "error": "Card play invalid with card before."}})  # fmt: skip


def m_penalty_count(acts: Acts) -> None:
    p = c(acts[find(acts, ev("penalty"))])
    p["cards_receive"] = p["cards_receive"] + p["cards_receive"][:1]


def _forced_draw(acts: Acts) -> dict[str, Any]:
    return c(acts[find(acts, lambda a: a["event"] == "draw-card" and c(a).get("draw_reason") == "draw_2")])


def m_forced_amount(acts: Acts) -> None:
    d = _forced_draw(acts)
    d["card_draw"] = d["card_draw"][:1]


def m_draw_reason(acts: Acts) -> None:
    _forced_draw(acts)["draw_reason"] = "nothing"


def m_voluntary(acts: Acts) -> None:
    d = c(acts[find(acts, lambda a: a["event"] == "draw-card" and c(a).get("draw_reason") == "nothing"
                    and c(a).get("can_play_draw_card") is False)])  # fmt: skip
    d["can_play_draw_card"] = True


def _other_seat(acts: Acts, i: int, *avoid: str) -> str:
    return next(p for p in acts[i]["desk"]["card_of_player"] if p not in avoid)


def m_next_seat(acts: Acts) -> None:
    i = find(acts, ev("next-player"), 10)
    c(acts[i])["next_player"] = _other_seat(acts, i, c(acts[i])["next_player"], c(acts[i])["before_player"])


def m_predicted(acts: Acts) -> None:
    i = number_play(acts)
    c(acts[i])["next_player"] = _other_seat(acts, i, c(acts[i])["next_player"], acts[i]["player"])


def m_turn_counter(acts: Acts) -> None:
    c(acts[find(acts, ev("next-player"), 10)])["number_turn_play"] += 5


def m_deal(acts: Acts) -> None:
    c(acts[find(acts, ev("first-player"))])["first_card"] = {"color": "black", "special": "wild_draw_4"}


def _challenge(acts: Acts) -> dict[str, Any]:
    return c(acts[find(acts, lambda a: a["event"] == "challenge" and c(a).get("is_challenge") is True)])


def m_challenge_verdict(acts: Acts) -> None:
    _challenge(acts)["result"]["is_challenge_success"] = True


def m_challenge_outcome(acts: Acts) -> None:
    r = _challenge(acts)["result"]
    r["cards_receive"] = r["cards_receive"][:5]


def m_public_card(acts: Acts) -> None:
    p = c(acts[find(acts, ev("public-card"))])
    p["cards"] = p["cards"][1:]


def m_shuffle(acts: Acts) -> None:
    hands = c(acts[find(acts, ev("shuffle-wild"))])["cards_receive"]
    a, b = list(hands)[:2]
    hands[b].append(hands[a].pop())


def _finish(acts: Acts) -> dict[str, Any]:
    return c(acts[find(acts, ev("finish-turn"))])


def m_round_end(acts: Acts) -> None:
    f = _finish(acts)
    f["winner"] = next(p for p in f["score"] if p != f["winner"])


def m_round_score(acts: Acts) -> None:
    f = _finish(acts)
    f["score"][f["winner"]] += 1


def m_total_score(acts: Acts) -> None:
    f = _finish(acts)
    first = next(iter(f["total_score"]))
    f["total_score"][first] += 10


def m_match_result(acts: Acts) -> None:
    g = c(acts[find(acts, ev("finish-game"))])
    g["winner"] = next(p for p in g["score"] if p != g["winner"])


def m_timeout_effects(acts: Acts) -> None:
    i = find(acts, lambda a: a["event"] == "penalty" and c(a).get("error") == "timeout")
    c(acts[i])["player"] = _other_seat(acts, i, c(acts[i])["player"])


def m_snapshot(acts: Acts) -> None:
    desk = acts[find(acts, ev("next-player"), 10)]["desk"]
    hand = next(iter(desk["card_of_player"].values()))
    hand.pop()


def m_next_contents(acts: Acts) -> None:
    c(acts[find(acts, ev("next-player"), 10)])["card_of_player"].pop()


def m_echo(acts: Acts) -> None:
    c(acts[number_play(acts)])["number_turn_play"] += 3


def m_event_sequence(acts: Acts) -> None:
    del acts[find(acts, ev("finish-turn"))]
    renumber(acts)


def m_finish_hands(acts: Acts) -> None:
    f = _finish(acts)
    loser = next(p for p in f["card_of_player"] if p != f["winner"])
    f["card_of_player"][loser].append({"color": "red", "number": 1})


def m_conservation(acts: Acts) -> None:
    acts[find(acts, ev("next-player"), 10)]["desk"]["draw_desk_number"] += 5


def m_cards_played(acts: Acts) -> None:
    c(acts[find(acts, ev("next-player"), 10)])["number_card_play"] += 1


def _shift_from(acts: Acts, i: int, ms: int) -> None:
    for a in acts[i:]:
        a["date_ms"] += ms


def m_timeout_early(acts: Acts) -> None:
    i = find(acts, lambda a: a["event"] == "penalty" and c(a).get("error") == "timeout")
    j = max(k for k in range(i) if acts[k]["event"] == "next-player")
    _shift_from(acts, i, -(acts[i]["date_ms"] - acts[j]["date_ms"]) + 1_500)  # the timeout 1.5 s into the turn
    for k in range(i + 1, len(acts)):  # keep the log in time order after it
        acts[k]["date_ms"] = max(acts[k]["date_ms"], acts[k - 1]["date_ms"])


def m_timeout_missed(acts: Acts) -> None:
    _shift_from(acts, number_play(acts, start=40), 6_000)  # a bot that thinks 6 s, and the dealer lets it


MUTATIONS: dict[str, Callable[[Acts], None]] = {
    "turn-owner": m_turn_owner,
    "owed-draw-respected": m_owed_draw,
    "card-object-valid": m_card_object,
    "yell-field-valid": m_yell_field,
    "card-owned": m_card_owned,
    "card-legal-on-top": m_card_legal,
    "wild-colour-given": m_wild_colour_given,
    "wild-colour-valid": m_wild_colour_valid,
    "yell-only-at-two": m_yell_at_two,
    "uno-call-missed": m_uno_missed,
    "play-draw-allowed": m_play_draw,
    "challenge-eligible": m_challenge_eligible,
    "colour-choice-eligible": m_colour_choice,
    "pointing-valid": m_pointing,
    "special-logic-valid": m_special_valid,
    "special-logic-limit": m_special_limit,
    "special-logic-registry": m_special_registry,
    "penalty-unjustified": m_penalty_unjustified,
    "missing-penalty": m_turn_owner,
    "penalty-count": m_penalty_count,
    "forced-draw-amount": m_forced_amount,
    "voluntary-draw": m_voluntary,
    "draw-reason": m_draw_reason,
    "next-seat": m_next_seat,
    "predicted-next": m_predicted,
    "turn-counter": m_turn_counter,
    "deal-and-first-card": m_deal,
    "challenge-verdict": m_challenge_verdict,
    "challenge-outcome": m_challenge_outcome,
    "public-card": m_public_card,
    "shuffle-redistribution": m_shuffle,
    "round-end": m_round_end,
    "round-score": m_round_score,
    "total-score": m_total_score,
    "match-result": m_match_result,
    "timeout-effects": m_timeout_effects,
    "snapshot-mismatch": m_snapshot,
    "next-player-contents": m_next_contents,
    "echo-fields": m_echo,
    "event-sequence": m_event_sequence,
    "finish-hands": m_finish_hands,
    "conservation": m_conservation,
    "cards-played-counter": m_cards_played,
    "timeout-early": m_timeout_early,
    "timeout-missed": m_timeout_missed,
}


def test_clean_match() -> None:
    """The unaltered match: its two real penalties and the 12 s turn the special-logic let pass."""
    found = findings(activities(BASE))
    assert sorted((v.code, v.severity, v.seq, v.penalty_seq) for v in found if v.severity != "info") == [
        ("response-time", "error", 21, 21), ("response-time", "warning", 15, None),
        ("special-logic-timer", "warning", 15, None), ("special-logic-valid", "error", 19, 20),
    ]


def test_special_logic_disables_the_timer() -> None:
    """Probe lines 13–15: special-logic accepted, then the prober plays 12 s later and no timeout comes."""
    found = [v for v in findings(activities(BASE)) if v.code == "special-logic-timer"]
    assert [(v.seq, v.family, v.player) for v in found] == [(15, DEALER_JUDGEMENT, "P-00000013")]
    assert "special-logic at seq 14" in found[0].message and "12023 ms" in found[0].message
    # a rejected special-logic leaves the timer running: the timeout at seq 21 is on time (5,015 ms)
    assert not [v for v in findings(activities(BASE)) if v.code in ("timeout-early", "timeout-missed")]


def test_think_times_follow_the_dealer_clock() -> None:
    from rules.uno.replay import replay

    frames = {f.seq: f for f in replay(activities(BASE))}
    assert frames[15].think_ms == 12023  # from next-player seq 13, not from the special-logic
    assert frames[12].think_ms == 21  # play-card 21 ms after its next-player
    assert frames[13].think_ms is None  # next-player is the dealer's line
    assert all(f.think_ms is None or f.event.player is not None for f in frames.values())


def _penalties_of(match: str, code: str) -> list[Any]:
    return [v for v in findings(activities(match)) if v.code == code]


def test_wild_without_colour_is_a_rules_departure() -> None:
    found = _penalties_of("misbehave_skipbind2_80", "wild-colour-rejected")
    assert found and {v.family for v in found} == {DEALER_JUDGEMENT} and all(v.penalty_seq for v in found)
    fouls = {v.penalty_seq for v in findings(activities("misbehave_skipbind2_80"))
             if v.code in ("wild-colour-given", "wild-colour-valid")}  # fmt: skip
    assert {v.penalty_seq for v in found} <= fouls  # always beside the player's own finding


def test_bound_challenge_is_a_rules_departure() -> None:
    found = _penalties_of("misbehave_bind2_40", "bound-challenge-refused")
    assert len(found) == 1 and found[0].penalty_seq and found[0].family == DEALER_JUDGEMENT


def test_silent_refusal_at_25_cards_is_reported() -> None:
    found = _penalties_of("misbehave_skipbind2_80", "penalty-cap-silent")
    assert len(found) == 6 and {v.severity for v in found} == {"info"} and all(v.penalty_seq is None for v in found)


def test_deck_exhaustion_departure() -> None:
    found = _penalties_of("deckout_hoard3_aggressor1_12", "deck-exhausted-continues")
    assert len(found) == 1 and "empty draw pile" in found[0].message


def test_pointing_window_departure() -> None:
    """A went down to one card without yelling; B only drew; C points at A: the dealer says 'Out of target.'."""
    from rules.uno import events as E

    seats = ("A", "B", "C", "D")
    s = GameState(seats=seats, hands=frozen({"A": (Card("red", 1),), "B": (Card("blue", 2),) * 3, "C": (Card("red", 2),),
                                             "D": (Card("red", 3),)}), top=Card("red", 5), to_act="C", prev_actor="B",
                  yell=frozen({p: False for p in seats}), in_round=True)  # fmt: skip
    judge = Judge()
    judge.last_card_actor = "A"
    point = E.PointedNotSayUno(seq=9, round_no=1, turn_no=3, player="C", desk=None, date_ms=None, target="A")
    out = judge.check(s, point, s)
    assert ("pointing-window", DEALER_JUDGEMENT) in [(v.code, v.family) for v in out]
    judge.last_card_actor = "D"  # somebody played since: the rules' window is closed too
    assert "pointing-window" not in [v.code for v in judge.check(s, point, s)]


def test_wd4_last_card_draw_looks_for_the_draw() -> None:
    """On a dealer build that does make the next seat draw 4 (kit 2024-01-13), nothing is reported."""
    acts = activities("demo4_bind2_60")
    before = len(_wd4_findings(acts))
    i = find(acts, lambda a: a["event"] == "finish-turn" and acts[a["seq"] - 3]["event"] == "play-card"
             and (c(acts[a["seq"] - 3]).get("card_play") or {}).get("special") == "wild_draw_4")  # fmt: skip
    winner = acts[i - 2]["player"]
    seats = c(next(a for a in reversed(acts[:i]) if a["event"] == "first-player"))["play_order"]
    nxt = seats[(seats.index(winner) + 1) % 4]
    insert_after(acts, i - 1, {"event": "draw-card", "player": nxt, "desk": None,
                               "contents": {"card_draw": [{"color": "red", "number": 1}] * 4, "is_draw": True,
                                            "can_play_draw_card": False, "draw_reason": "wild_draw_4"}})  # fmt: skip
    assert len(_wd4_findings(acts)) == before - 1


def _wd4_findings(acts: Acts) -> list[Any]:
    return [v for v in findings(acts) if v.code == "wd4-last-card-draw"]


def test_colour_timeout_penalty_shows_the_fallback_colour() -> None:
    """timeoutColorOfWild sets the fallback colour before it writes the penalty line (digest §4.3)."""
    acts = activities(BASE)
    i = find(acts, lambda a: a["event"] == "color-of-wild" and acts[a["seq"] - 2]["event"] == "color-change-request")
    chooser = acts[i]["player"]
    desk = copy.deepcopy(acts[i]["desk"])
    cards = [{"color": "red", "number": 1}, {"color": "red", "number": 2}]
    desk["card_of_player"][chooser] += cards
    desk["draw_desk_number"] -= 2
    fallback = c(acts[i - 4])["card_before"]["color"]  # the top before the shuffle card: its next-player
    acts[i] = {**acts[i], "event": "penalty", "player": None,
               "contents": {"player": chooser, "cards_receive": cards, "number_turn_play": c(acts[i])["number_turn_play"],
                            "error": "color-of-wild timeout"}, "desk": desk}  # fmt: skip
    black = copy.deepcopy(acts)
    desk["before_card_play"] = {"color": fallback, "special": "wild_shuffle"}
    at = acts[i]["seq"]
    assert not [v for v in findings(acts) if v.seq == at and v.family == CONSISTENCY]
    assert [v.code for v in findings(black) if v.seq == at and v.family == CONSISTENCY] == ["snapshot-mismatch"]


@pytest.mark.parametrize("code", sorted(MUTATIONS))
def test_mutation_fires_its_check(code: str) -> None:
    acts = activities(BASE)
    MUTATIONS[code](acts)
    found = findings(acts)
    hits = [v for v in found if v.code == code]
    assert hits, f"{code} did not fire; got {sorted({v.code for v in found})}"
    assert all(v.family == CHECKS[code].family for v in hits)


def test_penalty_cause_mismatch_is_the_dealers() -> None:
    acts = activities("misbehave_skipbind2_80")
    i = find(acts, lambda a: a["event"] == "penalty" and c(a).get("error") == "Card play invalid with card before.")
    c(acts[i])["error"] = "Card play not exist of player."
    found = [v for v in findings(acts) if v.penalty_seq == acts[i]["seq"]]
    assert {(v.code, v.family) for v in found} == {
        ("card-legal-on-top", PLAYER_RULE), ("penalty-cause", DEALER_JUDGEMENT)
    }


def test_pointing_without_penalty_is_a_dealer_finding() -> None:
    acts = activities("misbehave_skipbind2_80")
    i = find(acts, lambda a: a["event"] == "penalty" and c(a).get("error") == {"message": "Did not say uno.",
                                                                             "code": "bad_request", "status": 400})  # fmt: skip
    assert acts[i - 1]["event"] == "pointed-not-say-uno"
    assert "uno-call-missed" in codes(acts, min_severity="error")
    del acts[i]
    renumber(acts)
    assert "uno-pointing-outcome" in codes(acts)


def test_pointing_at_a_yeller_or_out_of_reach_has_no_effect() -> None:
    found = [v for v in findings(activities("misbehave_bind2_40")) if v.code == "pointing-without-effect"]
    assert found and {v.severity for v in found} == {"info"} and all(v.penalty_seq is None for v in found)
    assert {"out of reach" in v.message or "had yelled" in v.message for v in found} == {True}


def test_wd4_bluff_is_info_not_a_foul() -> None:
    found = [v for v in findings(activities("deckout_hoard3_aggressor1_12")) if v.code == "wd4-bluff"]
    assert len(found) == 16 and {v.severity for v in found} == {"info"}


def test_challenge_rule_departure_white_wild() -> None:
    """A wild draw 4 played while holding only a white wild: the dealer lets it stand, the rules do not."""
    base = Card("red", 5)
    seats = ("A", "B", "C", "D")
    s = GameState(seats=seats, hands=frozen({"A": (Card("white", None, "white_wild"), Card("blue", 1)), "B": (Card("red", 1),),
                                             "C": (), "D": ()}),
                  top=Card("blue", None, "wild_draw_4"), wd4_base=base, pending=4, owes_draw=True, to_act="B",
                  prev_actor="A", in_round=True)  # fmt: skip
    from rules.uno import events as E

    challenge = E.Challenge(seq=9, round_no=1, turn_no=3, player="B", desk=None, date_ms=None, target="A",
                            is_challenge_raw=True, success=False, receiver="B", cards=(base,) * 6)  # fmt: skip
    judge = Judge()
    judge.prev_kind = "public-card"  # the dealer's line before every challenge that is made
    out = judge.check(s, challenge, s)
    assert [(v.code, v.family) for v in out] == [("challenge-rule-departure", DEALER_JUDGEMENT)]
    assert out[0].expected == "True" and out[0].actual == "False"


def test_every_check_has_a_test() -> None:
    tested = set(MUTATIONS) | {"penalty-cause", "uno-pointing-outcome", "wd4-bluff", "challenge-rule-departure",
                               "response-time", "pointing-without-effect", "wd4-last-card-draw",
                               "special-logic-timer", "wild-colour-rejected", "bound-challenge-refused",
                               "penalty-cap-silent", "deck-exhausted-continues", "pointing-window"}  # fmt: skip
    from tests.rules.test_jua_golden import REQUIRED as JUA_GOLDEN  # each fires in a golden JUA scenario

    assert set(CHECKS) - tested - JUA_GOLDEN == set()


def test_every_check_says_which_profiles_it_applies_to() -> None:
    from rules.uno.catalog import PROFILE_CHECKS, PROFILE_ONLY, applies_to

    assert all(applies_to(code) for code in CHECKS)
    assert PROFILE_CHECKS <= set(CHECKS) and PROFILE_ONLY <= PROFILE_CHECKS
    assert applies_to("stack-answer") == ("jua-2016",) and applies_to("special-logic-valid") == ("algori-2023",)
    assert applies_to("card-legal-on-top") == ("algori-2023", "jua-2016")


def test_consistency_family_for_snapshot_checks() -> None:
    assert {CHECKS[k].family for k in ("snapshot-mismatch", "next-player-contents", "conservation")} == {CONSISTENCY}
