"""Cases written from the JUA rules text (shared/seeds/jua-competition-rules.ja.txt) for what an outside audit
found the validator and the referee got wrong: the turn as a state machine, two readings of the text, the
referee and the validator agreeing, and a profile the log does not fit.

Each case quotes its sentence. Expectations use the golden tests' notation (tests/rules/test_jua_golden.py):
``("code", "P")`` a player-rule finding blamed on P; a bare ``"code"`` a dealer-judgement or consistency
finding (its code only).
"""

from __future__ import annotations

from typing import Any

import pytest

from rules import get_ruleset
from rules.core import ERROR, PLAYER_RULE, WARNING
from rules.uno import events as E
from rules.uno import model as M
from rules.uno.profile import get
from tests.rules.jua_log import Log
from tests.rules.test_jua_golden import (
    ABC,
    DOES_NOT_MATCH,
    NEXT_PLAYER_INVALID,
    NO_UNO,
    ONLY_DRAWN,
    check,
    three,
    two,
    uno_round,
)

JUA = get("jua-2016")


def violations(log: Log) -> list[Any]:
    return [v for f in get_ruleset("jua-2016").replay(log.rows, match_id="truth") for v in f.violations]


# =============================================================================================
# 1. The turn as a state machine (R8, R14): one action a turn, then only the hand-over
# =============================================================================================


def test_second_draw_after_an_unplayable_draw_accepted_is_the_players_foul():
    """手番に使えるカードがない場合は山札から1枚ひく。…出せないカードなら手札に追加される。(one card a turn)"""
    log = three().next("B").draw("B", "b1", can_play=False).draw("B", "b2", can_play=False).next("C")
    check(log, ("turn-owner", "B"), "missing-penalty")


def test_second_draw_after_an_unplayable_draw_refused_is_a_justified_penalty():
    """手番に使えるカードがない場合は山札から1枚ひく。 A second draw refused with a penalty: B's foul, the referee right."""
    log = three().next("B").draw("B", "b1", can_play=False).refused_draw("B").penalty("B", NEXT_PLAYER_INVALID)
    log.next("C")
    check(log, ("turn-owner", "B"))
    assert not [v for v in violations(log) if v.code == "penalty-unjustified"]


def test_play_from_the_hand_after_an_unplayable_draw_refused():
    """ひいたカードが…出せないカードなら手札に追加される。…元の手札からはカードを出すことはできない。"""
    log = three().next("B").draw("B", "b1", can_play=False)
    log.play("B", "r7", refused=True).penalty("B", NEXT_PLAYER_INVALID).next("C")
    check(log, ("turn-owner", "B"))


def test_play_from_the_hand_after_an_unplayable_draw_accepted():
    """元の手札からはカードを出すことはできない: a play after the draw, accepted, is B's foul and the referee's miss."""
    log = three().next("B").draw("B", "b1", can_play=False).play("B", "r7").next("C")
    check(log, ("turn-owner", "B"), "missing-penalty")


def test_second_draw_in_the_drawn_card_window():
    """山札から1枚ひく。…このとき可能なら、ひいたカードは捨てることもできる (one draw; then play or keep that card)."""
    log = three().next("B").draw("B", "r9", can_play=True).refused_draw("B").penalty("B", ONLY_DRAWN).next("C")
    check(log, ("play-draw-allowed", "B"))


def test_play_after_keeping_the_drawn_card():
    """ひいたカードは捨てることもできるが、元の手札からはカードを出すことはできない。"""
    log = three().next("B").draw("B", "r9", can_play=True).keep_drawn("B")
    log.play("B", "r7", refused=True).penalty("B", NEXT_PLAYER_INVALID).next("C")
    check(log, ("turn-owner", "B"))


def test_second_play_in_one_turn():
    """場札の色か数字(記号)の同じカードを手札から1枚ずつ出してゆく (one card, or one pair, a turn)."""
    log = three().next("B").play("B", "r7").play("B", "b7").next("C")
    check(log, ("turn-owner", "B"), "missing-penalty")


def test_play_after_drawing_the_stack():
    """このカードで山札からカードをひかされたプレイヤーの手番はそこで終了し、場にカードを捨てることはできない。"""
    log = Log(ABC, "r3", {"A": "g1 g2 b4 b5 y6 y7 W", "B": "r+2 b7 g8 y9 y3 g0 gS", "C": "r8 r1 g9 b9 y1 y2 bS"})
    log.next("B").play("B", "r+2").next("C").draw("C", 2, draw_stack={"number": 2, "cards": [{"color": "red", "special": "draw_2"}]})
    log.play("C", "r8", refused=True).penalty("C", NEXT_PLAYER_INVALID).next("A")
    check(log, ("turn-owner", "C"))


def test_two_players_skip_then_a_lost_next_player_line_is_the_logs_gap():
    """2人でプレイしている場合は(リバースは)スキップと同じ効果を持つ: B plays again by the rules; a missing
    next-player line before it is the log's gap, not B's second action."""
    log = two(B="rS r7 g8 y9 y3 g0 gS").next("B").play("B", "rS").play("B", "r7").next("A")
    found = violations(log)
    assert [v.code for v in found] == ["event-sequence"]
    assert not [v for v in found if v.family == PLAYER_RULE]


def _state_after(log: Log) -> Any:
    from rules.uno.audit import ProfileReplay

    r = ProfileReplay(JUA)
    for a in log.rows:
        r.feed(a)
    r.close()
    return r.state


@pytest.mark.parametrize("what", ["play", "unplayable-draw", "kept-draw", "stack-draw"])
def test_the_model_offers_nothing_and_refuses_everything_after_a_turn_ends(what: str) -> None:
    """After a play, a draw kept or not playable, or a stack draw, the turn is over until the hand-over: ``legal``
    offers the player nothing and ``refusal`` refuses a play and a draw (the referee asks both)."""
    hands = {"A": "g1 g2 b4 b5 y6 y7 W", "B": "r+2 r7 b7 g8 y9 y3 g0", "C": "r8 r1 g9 b9 y1 y2 bS"}
    log = Log(ABC, "r3", hands).next("B")
    who = "B"
    if what == "play":
        log.play("B", "r7")
    elif what == "unplayable-draw":
        log.draw("B", "b1", can_play=False)
    elif what == "kept-draw":
        log.draw("B", "r9", can_play=True).keep_drawn("B")
    else:
        log.play("B", "r+2").next("C").draw("C", 2, draw_stack={"number": 2, "cards": [{"color": "red", "special": "draw_2"}]})
        who = "C"
    s = _state_after(log)
    assert s.to_act == who and M.turn_ended(s) and M.handover_due(s)
    assert M.legal(JUA, s, who) == []
    play = E.to_event({"seq": 0, "event": "play-card", "player": who, "turn": 1,
                       "contents": {"card_play": {"color": "blue", "number": 7}, "yell_uno": False}})
    draw = E.to_event({"seq": 0, "event": "draw-card", "player": who, "turn": 1, "contents": {"card_draw": [], "is_draw": True}})
    assert M.refusal(JUA, s, play) == ("turn-owner", NEXT_PLAYER_INVALID)
    assert M.refusal(JUA, s, draw) == ("turn-owner", NEXT_PLAYER_INVALID)


def test_the_model_keeps_the_turn_open_in_the_drawn_card_window() -> None:
    """ひいたカードが出せるカードなら捨てることができ: the window is open (play or keep the drawn card only)."""
    s = _state_after(three().next("B").draw("B", "r9", can_play=True))
    assert not M.turn_ended(s)
    assert [a["action"] for a in M.legal(JUA, s, "B")] == ["play_drawn", "play_drawn"]
    draw = E.to_event({"seq": 0, "event": "draw-card", "player": "B", "turn": 1, "contents": {"card_draw": [], "is_draw": True}})
    assert M.refusal(JUA, s, draw) == ("play-draw-allowed", ONLY_DRAWN)


def test_the_referee_refuses_a_second_draw_in_the_drawn_card_window() -> None:
    """Kifu's referee judges a bot's answer by the model: a draw instead of playing or keeping the drawn card is
    refused with a penalty (it used to stop the match), and the validator finds the bot's foul, the referee right."""
    import orjson

    from referee.match import Referee, Seat
    from tests.rules.helpers import replay_lines

    def drawer(view: dict[str, Any]) -> dict[str, Any]:
        if view["phase"] in ("point", "idle"):
            return {"action": "pass"}
        if view["phase"] == "color":
            return {"action": "color", "color": "red"}
        return {"action": "draw"}  # always a draw, also in the drawn-card window

    from referee.bots import builtin

    seats = [Seat("P-00000001", "drawer", drawer), Seat("P-00000002", "greedy", builtin("greedy", 5))]
    lines = [orjson.loads(x) for x in Referee(get("jua-2016(rounds=1)"), seats, seed=2).lines()]
    refused = [d for d in lines if d["event"] == "penalty"]
    assert refused and {d["contents"]["player"] for d in refused} == {"P-00000001"}
    assert {d["contents"]["error"] for d in refused} == {ONLY_DRAWN}
    _, found = replay_lines(lines)
    assert found and {(v.code, v.player) for v in found} == {("play-draw-allowed", "P-00000001")}


# =============================================================================================
# 2. Readings fixed to the text
# =============================================================================================


def test_pair_finish_without_the_call_has_no_penalty():
    """◆ウノコールをしていなかった場合はペナルティはないが、あがることもできず、カードは1枚のみしか捨てることはできない。
    Nobody points: the pair-finish finding alone (no missed-call finding: the text gives no penalty for it)."""
    log = two(A="b1 y2 y3 y4 y5 y6 y7", B="rS rR gR gS bS b8 b8").next("B").chain("B", "rS rR gR gS bS")
    log.play("B", "b8", pair="b8", only_one=True).next("A").play("A", "b1").next("B")
    check(log, ("pair-finish-uno", "B"))


def test_pair_finish_without_the_call_penalised_is_the_referees_fault():
    """◆…ペナルティはない: a 'Did not say uno.' penalty after it is the referee's fault, linked to the penalty."""
    log = two(B="rS rR gR gS bS b8 b8").next("B").chain("B", "rS rR gR gS bS")
    log.play("B", "b8", pair="b8", only_one=True).next("A").point("A", "B").penalty("B", NO_UNO)
    check(log, ("pair-finish-uno", "B"), "uno-pointing-outcome")
    pen = log.rows[-1]["seq"]
    fault = [v for v in violations(log) if v.code == "uno-pointing-outcome"]
    assert fault[0].penalty_seq == pen and fault[0].family != PLAYER_RULE


def test_pair_finish_pointing_without_penalty_has_no_effect():
    """◆…ペナルティはない: a pointing at it has no effect (the pointer's info finding), no penalty follows."""
    log = two(B="rS rR gR gS bS b8 b8").next("B").chain("B", "rS rR gR gS bS")
    log.play("B", "b8", pair="b8", only_one=True).next("A").point("A", "B")
    check(log, ("pair-finish-uno", "B"), ("pointing-without-effect", "A"))


def test_the_referee_does_not_point_out_a_pair_finish() -> None:
    """The model leaves nobody to point at after a pair finish without the call (so the referee asks nobody)."""
    log = two(B="rS rR gR gS bS b8 b8").next("B").chain("B", "rS rR gR gS bS")
    s = _state_after(log.play("B", "b8", pair="b8", only_one=True))
    assert len(s.hand("B")) == 1 and s.pointable is None


def test_first_wild_colour_asked_of_the_wrong_player():
    """場札が…ワイルドのときはディーラーがそのカードを出したときと同じように処理する (R5: the start player A
    chooses). The referee asks B: its fault; B, who answered the request, is not at fault."""
    log = three("W").colour("B", "green").next("B").play("B", "g8").next("C")
    found = violations(log)
    assert [v.code for v in found] == ["next-seat"]
    assert found[0].seq == 5 and found[0].family != PLAYER_RULE  # the color-change-request line


def test_first_wild_colour_asked_of_the_right_player_answered_by_another():
    """Only the player asked answers: a colour sent by another player is that player's foul."""
    log = three("W")
    log._row("color-change-request", "", {"player": "A"})
    log._row("color-of-wild", "C", {"color_of_wild": "green"})
    log.penalty("C", "Already changed color.")
    log._row("color-of-wild", "A", {"color_of_wild": "green"})
    log.next("B").play("B", "g8").next("C")
    check(log, ("colour-choice-eligible", "C"))


# =============================================================================================
# 3. The referee and the validator agree
# =============================================================================================


def test_uno_call_missed_and_penalised_is_an_error_linked_to_the_penalty():
    """この"ウノコール"を忘れたらペナルティとして山札から2枚ひかなければいけない。"""
    log = uno_round(yell_at_one=False).draw("C", "b3", can_play=False).next("A")
    log.point("A", "B").penalty("B", NO_UNO)
    pen = log.rows[-1]["seq"]
    play = next(r["seq"] for r in reversed(log.rows) if r["event"] == "play-card" and r["player"] == "B")
    (v,) = violations(log)
    assert (v.code, v.player, v.severity, v.penalty_seq, v.seq) == ("uno-call-missed", "B", ERROR, pen, play)


def test_uno_call_missed_not_pointed_out_is_a_warning():
    """ただし次のプレイヤーが既にカードを捨てたあとでの指摘ではペナルティは無効。 (no penalty: a warning)"""
    log = uno_round(yell_at_one=False).play("C", "y7").next("A")
    play = next(r["seq"] for r in reversed(log.rows) if r["event"] == "play-card" and r["player"] == "B")
    (v,) = violations(log)
    assert (v.code, v.player, v.severity, v.penalty_seq, v.seq) == ("uno-call-missed", "B", WARNING, None, play)


def test_a_short_referee_match_names_its_rounds_and_validates_clean() -> None:
    """全5ラウンド (R24) is the profile's default; `kifu play --rounds 3` plays the option rounds=3 and says so."""
    import orjson

    from referee.bots import builtin
    from referee.match import Referee, Seat
    from tests.rules.helpers import replay_lines

    seats = [Seat(f"P-{i:08d}", f"b{i}", builtin("greedy", i)) for i in (1, 2, 3)]
    ref = Referee(get("jua-2016"), seats, seed=3, rounds=3)
    lines = [orjson.loads(x) for x in ref.lines()]
    assert {d["contents"]["ruleset"] for d in lines if d["event"] == "first-player"} == {"jua-2016(rounds=3)"}
    assert [d["event"] for d in lines].count("finish-turn") == 3
    r, found = replay_lines(lines)
    assert r.ruleset.rounds == 3 and found == []


def test_the_match_of_the_profiles_rounds_keeps_the_plain_id() -> None:
    from referee.bots import builtin
    from referee.match import Referee, Seat

    seats = [Seat(f"P-{i:08d}", f"b{i}", builtin("greedy", i)) for i in (1, 2)]
    assert Referee(get("jua-2016"), seats, seed=1, rounds=5).profile.id == "jua-2016"


# =============================================================================================
# 4. A profile the log does not fit
# =============================================================================================


def _algori(match: str) -> list[dict[str, Any]]:
    from tests.rules.helpers import activities

    return activities(match)


@pytest.mark.parametrize("match", ["demo4_bind2_60", "misbehave_skipbind2_80"])
def test_an_algori_log_judged_as_jua_gets_one_finding(match: str) -> None:
    """カード内容 108枚 ◆それ以外のカード(とりかえっこワイルドなど)は使用しない: an ALGORI 2023 log (white wild setting,
    112 cards) is not a JUA log; judged under jua-2016 it gets one finding saying so, nothing else."""
    frames = list(get_ruleset("jua-2016").replay(_algori(match), match_id="x"))
    found = [v for f in frames for v in f.violations]
    assert len(found) == 1, [(v.code, v.message) for v in found[:5]]
    assert found[0].code == "deal-and-first-card" and "does not fit the profile jua-2016" in found[0].message
    assert found[0].player is None


def test_a_deal_naming_another_rule_set_does_not_fit():
    log = Log(ABC, "r3", {"A": "g1 g2 b4 b5 y6 y7 W", "B": "r7 b7 g8 y9 y3 g0 gS", "C": "r8 r1 g9 b9 y1 y2 bS"},
              ruleset="algori-2023/bind_2")
    log.next("B").play("B", "b7", refused=True).penalty("B", DOES_NOT_MATCH).next("C")
    found = [v for f in get_ruleset("jua-2016").replay(log.rows, match_id="x") for v in f.violations]
    assert [v.code for v in found] == ["deal-and-first-card"] and "algori-2023/bind_2" in found[0].message


def test_a_deal_with_a_card_outside_the_deck_and_no_ruleset_does_not_fit():
    log = Log(ABC, "r3", {"A": "g1 g2 b4 b5 y6 y7 W", "B": "r7 b7 g8 y9 y3 g0 gS", "C": "r8 r1 g9 b9 y1 y2 bS"},
              ruleset=None, strict=False)  # type: ignore[arg-type]
    log.rows[-1]["contents"]["cards_receive"]["C"][-1] = {"color": "white", "special": "white_wild"}
    log.rows[-1]["contents"].pop("ruleset")
    log.next("B").play("B", "r7").next("C")
    found = [v for f in get_ruleset("jua-2016").replay(log.rows, match_id="x") for v in f.violations]
    assert [v.code for v in found] == ["deal-and-first-card"] and "does not fit" in found[0].message


def test_a_jua_log_dealing_a_card_outside_the_deck_is_still_judged():
    """A log that names jua-2016 is a JUA log: a wrong card in its deal is the dealer's fault, and the rest is judged."""
    log = Log(ABC, "r3", {"A": "g1 g2 b4 b5 y6 y7 W", "B": "r7 b7 g8 y9 y3 g0 gS", "C": "r8 r1 g9 b9 y1 y2 bS"},
              strict=False)
    log.rows[-1]["contents"]["cards_receive"]["C"][-1] = {"color": "black", "special": "wild_shuffle"}
    log.next("B").play("B", "b7").next("C")
    found = violations(log)
    assert ("card-legal-on-top", "B") in {(v.code, v.player) for v in found}
    assert not [v for v in found if "does not fit" in v.message]
