"""Every field of the dealer's ``next-player`` line is compared with the replay: a single changed
field in a genuine log is reported at that line, as the dealer's inconsistency, never as a foul."""

from __future__ import annotations

import functools

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


# ---------------------------------------------------------------------------------------------
# Every field the replay can predict is compared (docs/rules/algori-fields.md): one changed field in
# a genuine log gives exactly one finding, at that line, and blames nobody.

FIELDS_MATCH = "misbehave_bind2_40"


def _key(v):  # noqa: ANN001, ANN202
    return (v.code, v.seq, v.player, v.message)


@functools.cache
def _genuine(match: str) -> tuple:
    return tuple(findings(activities(match)))


def _one_field(acts: list[dict], i: int, change) -> list:  # noqa: ANN001
    """Findings the log with line ``i`` changed by ``change`` has beyond the genuine log's."""
    genuine = _genuine(FIELDS_MATCH)
    change(acts[i])
    found = findings(acts)
    assert not {_key(v) for v in genuine} - {_key(v) for v in found}, "a genuine finding was lost"
    return [v for v in found if _key(v) not in {_key(g) for g in genuine}]


def _pick(acts: list[dict], event: str, pred=lambda a: True, nth: float = 0.5) -> int:  # noqa: ANN001
    where = [i for i, a in enumerate(acts) if a["event"] == event and pred(a)]
    assert where, f"no {event} line fits"
    return where[int(len(where) * nth)]


def _contents(key: str, value):  # noqa: ANN001, ANN202
    def change(a: dict) -> None:
        a["contents"] = {**a["contents"], key: value(a["contents"]) if callable(value) else value}
    return change


def _other_seat(acts: list[dict], who: str) -> str:
    seats = next(a for a in acts if a["event"] == "first-player")["contents"]["play_order"]
    return next(p for p in seats if p != who)


def _card_other_than(card: dict) -> dict:
    return {"color": "red", "number": 0} if card != {"color": "red", "number": 0} else {"color": "blue", "number": 9}


def _case(name: str) -> tuple[list[dict], int, object, str, str]:
    """(log, line index, change, expected code, text the finding's message names)."""
    acts = activities(FIELDS_MATCH)
    c = lambda a: a["contents"]  # noqa: E731
    if name.startswith("number_turn_play:"):
        event = name.split(":", 1)[1]
        i = _pick(acts, event, lambda a: isinstance(c(a).get("number_turn_play"), int))
        return acts, i, _contents("number_turn_play", lambda x: x["number_turn_play"] + 7), "echo-fields", "number_turn_play"
    if name.startswith("round:"):
        i = _pick(acts, name.split(":", 1)[1])
        return acts, i, lambda a: a.update(turn=a["turn"] + 1), "echo-fields", "round"
    if name.startswith("draw_reason:"):
        was, now = name.split(":", 1)[1].split(">")
        i = _pick(acts, "next-player", lambda a: c(a).get("draw_reason") == was)
        return acts, i, _contents("draw_reason", now), "next-player-contents", "draw_reason"
    if name == "dealer-player":
        i = _pick(acts, "next-player")
        return acts, i, lambda a: a.update(player=c(a)["before_player"]), "echo-fields", "dealer line"
    if name == "draw_desk.before":
        i = _pick(acts, "draw-card", lambda a: c(a).get("is_draw") is True)
        return acts, i, _contents("draw_desk", lambda x: {**x["draw_desk"], "before": x["draw_desk"]["before"] + 1}), \
            "snapshot-mismatch", "draw_desk.before"
    if name == "before_card":
        i = _pick(acts, "draw-card", lambda a: c(a).get("can_play_draw_card") is True and "before_card" in c(a))
        return acts, i, _contents("before_card", lambda x: _card_other_than(x["before_card"])), "echo-fields", "before_card"
    if name == "play-draw-card.card_play":
        i = _pick(acts, "play-draw-card", lambda a: c(a).get("is_play_card") is True and isinstance(c(a).get("card_play"), dict))
        return acts, i, _contents("card_play", lambda x: _card_other_than(x["card_play"])), "echo-fields", "card_play"
    if name == "pointer":
        i = _pick(acts, "pointed-not-say-uno", lambda a: "pointer" in c(a))
        return acts, i, _contents("pointer", lambda x: _other_seat(acts, x["pointer"])), "echo-fields", "pointer"
    if name == "have_say_uno":
        i = _pick(acts, "pointed-not-say-uno", lambda a: isinstance(c(a).get("have_say_uno"), bool))
        return acts, i, _contents("have_say_uno", lambda x: not x["have_say_uno"]), "snapshot-mismatch", "have_say_uno"
    if name == "pointed.card_of_player":
        i = _pick(acts, "pointed-not-say-uno", lambda a: len(c(a).get("card_of_player") or []) >= 2)
        return acts, i, _contents("card_of_player", lambda x: x["card_of_player"][1:]), "snapshot-mismatch", "card_of_player"
    if name == "color-change-request.player":
        i = _pick(acts, "color-change-request")
        return acts, i, _contents("player", lambda x: _other_seat(acts, x["player"])), "echo-fields", "asks"
    if name == "shuffle-wild.player":
        i = _pick(acts, "shuffle-wild")
        return acts, i, _contents("player", lambda x: _other_seat(acts, x["player"])), "echo-fields", "shuffler"
    if name == "skip_player":
        i = _pick(acts, "play-card", lambda a: isinstance(c(a).get("card_play"), dict) and "number" in c(a)["card_play"]
                  and "skip_player" not in c(a) and isinstance(c(a).get("next_player"), str))
        return acts, i, _contents("skip_player", lambda x: _other_seat(acts, x["next_player"])), "predicted-next", "skip"
    if name == "finish-game.desk":
        i = _pick(acts, "finish-game")
        return acts, i, lambda a: a.update(desk={**a["desk"], "draw_desk_number": a["desk"]["draw_desk_number"] + 1}), \
            "snapshot-mismatch", "draw pile"
    raise KeyError(name)


FIELD_CASES = [
    *(f"number_turn_play:{e}" for e in ("draw-card", "challenge", "public-card", "color-change-request", "shuffle-wild",
                                        "penalty", "finish-turn")),
    "round:play-card", "round:draw-card", "round:next-player",
    "draw_reason:nothing>draw_2", "draw_reason:draw_2>nothing", "draw_reason:wild_draw_4>nothing",
    "draw_reason:bind_2>nothing", "dealer-player", "draw_desk.before", "before_card", "play-draw-card.card_play",
    "pointer", "have_say_uno", "pointed.card_of_player", "color-change-request.player", "shuffle-wild.player",
    "skip_player", "finish-game.desk",
]  # fmt: skip


@pytest.mark.parametrize("name", FIELD_CASES)
def test_a_changed_field_is_one_finding_at_its_line(name: str) -> None:
    acts, i, change, code, text = _case(name)
    new = _one_field(acts, i, change)
    assert [(v.code, v.seq) for v in new] == [(code, i + 1)], [(v.code, v.seq, v.message) for v in new]
    assert text in new[0].message, new[0].message
    assert new[0].family != PLAYER_RULE


# ---------------------------------------------------------------------------------------------
# After a divergence the replay follows the log: a line removed mid-round is reported once, with
# its cause, not as a run of counter warnings to the end of the round (docs/rules/algori-uno.md,
# "After a divergence").  Measured before the change (same picks): next-player 1, play-card up to 176,
# draw-card up to 5, play-draw-card up to 128, penalty up to 66, color-of-wild up to 3, challenge up to 6.

FOLLOW_ON_BOUND = 3
REMOVED = ["next-player", "play-card", "draw-card", "play-draw-card", "penalty", "color-of-wild",
           "pointed-not-say-uno", "special-logic", "challenge", "public-card", "shuffle-wild", "color-change-request"]  # fmt: skip


def _follow_on(match: str, kind: str, pick: float) -> tuple[int, list]:
    from collections import Counter

    from tests.rules.helpers import renumber

    def key(v):  # noqa: ANN001, ANN202
        return (v.code, v.player, v.round_no)

    acts = activities(match)
    where = [i for i, a in enumerate(acts) if a["event"] == kind and 3 < i < len(acts) - 8
             and acts[i - 2]["event"] != "first-player" and acts[i + 2]["event"] != "finish-turn"]  # fmt: skip
    if not where:
        pytest.skip(f"{match} has no {kind} line mid-round")
    i = where[int(len(where) * pick)]
    del acts[i]
    renumber(acts)
    found = findings(acts)
    extra = Counter(map(key, found)) - Counter(map(key, _genuine(match)))
    return sum(extra.values()), [(v.seq, v.code, v.message[:120]) for v in found if extra[key(v)] > 0]


@pytest.mark.parametrize("pick", [0.25, 0.5, 0.75])
@pytest.mark.parametrize("kind", REMOVED)
def test_a_removed_line_is_reported_once_not_to_the_end_of_the_round(kind: str, pick: float) -> None:
    n, extra = _follow_on(FIELDS_MATCH, kind, pick)
    assert n <= FOLLOW_ON_BOUND, extra


@pytest.mark.parametrize("kind", ["play-card", "play-draw-card", "penalty"])
def test_the_counters_follow_the_log_after_a_lost_line(kind: str) -> None:
    """A lost play (or the penalty line of a refused one) shifts number_card_play for the rest of the
    round: the first next-player after it is the only line that reports it."""
    for pick in (0.125, 0.375, 0.625, 0.875):
        n, extra = _follow_on("demo4_bind2_60" if kind != "penalty" else FIELDS_MATCH, kind, pick)
        assert n <= FOLLOW_ON_BOUND, extra
        assert sum(1 for _, code, _ in extra if code in ("cards-played-counter", "turn-counter")) <= 1, extra


def test_a_lost_penalty_line_is_one_finding_that_names_it() -> None:
    acts = activities(FIELDS_MATCH)
    i = next(i for i, a in enumerate(acts) if a["event"] == "penalty" and i > 1300
             and acts[i - 1]["event"] == "play-card" and acts[i + 1]["event"] == "next-player")  # fmt: skip
    from tests.rules.helpers import renumber

    del acts[i]
    renumber(acts)
    new = [v for v in findings(acts) if v.seq == i + 1]
    assert any(v.code == "event-sequence" and "penalty line answering" in v.message for v in new), new
    assert not [v for v in new if v.code in ("cards-played-counter", "next-player-contents", "snapshot-mismatch")]
