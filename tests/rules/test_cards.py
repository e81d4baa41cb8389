"""Every card accounted for: a copy of a card the deck does not have is found at the line that shows it.

The contest deck (カードの種類) holds one 0 and two of every other number per colour, two of
each coloured symbol, four wild, four wild draw 4, one wild shuffle and three white wild.  The
mutations below swap one card of one line for a face whose every copy is already in play (in a
hand or on the discard pile), so the total number of cards stays right and only a count per
card can see it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from rules.uno.cards import Card
from rules.uno.ledger import deck, face
from rules.uno.replay import replay
from tests.rules.helpers import activities, find, findings, round_of


MATCH = "demo4_bind2_60"
FULL = deck("bind_2")


def _in_play(acts: list[dict[str, Any]], *, pile_only: bool = False) -> list[tuple[int, Counter[Card]]]:
    """For each line: the faces in hands and on the discard pile after it, as the rules count them.

    Cards played go to the discard pile; when the draw pile runs out the discards but the top
    card are shuffled back in (contest rules ゲーム進行).
    """
    out = []
    pile: Counter[Card] = Counter()
    for fr in replay(acts):
        if fr.event is None:
            continue
        b, a = fr.before, fr.after
        if fr.event.kind == "first-player":
            pile = Counter([face(a.top)])
        elif a.discard == b.discard + 1:
            pile[face(a.top)] += 1
        elif a.discard == 1 and b.discard > 1:
            pile = Counter([face(a.top)])
        hands = Counter(face(c) for h in a.hands.values() for c in h)
        out.append((fr.seq, Counter(pile) if pile_only else hands + pile))
    return out


def _full_face(counts: Counter[Card]) -> Card | None:
    """A face with every copy in play, preferring the rarest (a 0, the wild shuffle)."""
    full = [f for f, n in counts.items() if n >= FULL[f]]
    return min(full, key=lambda f: (FULL[f], str(f))) if full else None


def _swap_in_desk(activity: dict[str, Any], old: dict[str, Any], new: dict[str, Any]) -> None:
    """The dealer's own view of the hands (``desk.card_of_player``) shows the same swap."""
    for hand in ((activity.get("desk") or {}).get("card_of_player") or {}).values():
        if old in hand:
            hand[hand.index(old)] = dict(new)
            return


def _errors(acts: list[dict[str, Any]]) -> Counter[tuple[str, str | None]]:
    return Counter((v.code, v.player) for v in findings(acts) if v.family == "player-rule" and v.severity != "info")


def _conservation(acts: list[dict[str, Any]]) -> list[Any]:
    return [v for v in findings(acts) if v.code == "conservation"]


def test_deck_is_the_contest_deck() -> None:
    assert FULL.total() == 112 and deck("skip_bind_2").total() == 112 and deck(None).total() == 109
    assert FULL[Card("red", 0)] == 1 and FULL[Card("red", 5)] == 2 and FULL[Card("blue", None, "draw_2")] == 2
    assert FULL[Card("black", None, "wild_shuffle")] == 1 and FULL[Card("white", None, "white_wild")] == 3
    assert deck(None)[Card("white", None, "white_wild")] == 0


def test_genuine_logs_keep_every_card() -> None:
    for match in ("demo4_bind2_60", "misbehave_bind2_40", "deckout_hoard3_aggressor1_12", "noprogress_hoard4_3"):
        assert _conservation(activities(match)) == [], match


def _deal_with_a_zero() -> tuple[list[dict[str, Any]], int, dict[str, Any], str]:
    """The first round whose deal holds a 0: (its lines, the deal's index, that 0, another seat)."""
    every = activities(MATCH)
    for round_no in range(1, 61):
        acts = round_of(every, round_no)
        i = find(acts, lambda a: a["event"] == "first-player")
        hands = acts[i]["contents"]["cards_receive"]
        zeros = [(p, c) for p, h in hands.items() for c in h if c.get("number") == 0]
        if zeros:
            owner, zero = zeros[0]
            return acts, i, zero, next(p for p in hands if p != owner)
    raise AssertionError(f"no deal of {MATCH} holds a 0")


def test_a_second_zero_in_the_deal_is_found_at_the_deal() -> None:
    acts, i, zero, other = _deal_with_a_zero()
    hands = acts[i]["contents"]["cards_receive"]
    _swap_in_desk(acts[i], hands[other][0], zero)
    hands[other][0] = dict(zero)
    found = _conservation(acts)
    assert found, "a second copy of a 0 dealt was not reported"
    first = found[0]
    assert first.seq == acts[i]["seq"] and first.family == "consistency"
    assert f"{zero['color']}-0" in first.message and "the deck holds 1" in first.message


@pytest.mark.parametrize(("event", "match"), [("draw-card", MATCH), ("penalty", "misbehave_bind2_40")])
def test_a_copy_too_many_drawn_is_found_at_that_line(event: str, match: str) -> None:
    acts = activities(match)[:3000]
    key = "card_draw" if event == "draw-card" else "cards_receive"
    state = dict(_in_play(acts))
    for i, a in enumerate(acts):
        c = a["contents"] or {}
        if a["event"] != event or not c.get(key) or a["seq"] - 1 not in state:
            continue
        f = _full_face(state[a["seq"] - 1])
        if f is not None and face(Card.from_dealer(c[key][0]) or f) != f:
            break
    else:
        raise AssertionError(f"{match} has no {event} line with a face fully in play before it")
    baseline = _errors(acts)
    _swap_in_desk(a, c[key][0], f.to_dealer())
    c[key][0] = f.to_dealer()
    found = _conservation(acts)
    assert found and found[0].seq == a["seq"], f"{event} of copy {FULL[f] + 1} of {f} not reported at seq {a['seq']}"
    assert f"{FULL[f] + 1} copies of {f}" in found[0].message
    assert len([v for v in found if str(f) in v.message]) == 1, "the same card from nowhere reported more than once"
    assert _errors(acts) <= baseline + Counter(), "a card from nowhere blamed on a player"


def test_a_card_the_deck_does_not_have() -> None:
    acts = round_of(activities(MATCH), 1)
    i = find(acts, lambda a: a["event"] == "draw-card" and bool((a["contents"] or {}).get("card_draw")))
    _swap_in_desk(acts[i], acts[i]["contents"]["card_draw"][0], {"color": "white", "number": 5})
    acts[i]["contents"]["card_draw"][0] = {"color": "white", "number": 5}  # well-typed, but no such face
    found = _conservation(acts)
    assert found and found[0].seq == acts[i]["seq"] and "the deck has no such card" in found[0].message


def test_white_wild_without_a_white_wild_setting() -> None:
    acts = round_of(activities(MATCH), 1)
    i = find(acts, lambda a: a["event"] == "first-player")
    acts[i]["contents"].pop("white_wild", None)  # the 109-card deck: no white wild
    hands = acts[i]["contents"]["cards_receive"]
    p = next(iter(hands))
    _swap_in_desk(acts[i], hands[p][0], {"color": "white", "special": "white_wild"})
    hands[p][0] = {"color": "white", "special": "white_wild"}
    found = [v for v in _conservation(acts) if v.seq == acts[i]["seq"]]
    assert any("white-white_wild" in v.message and "no such card" in v.message for v in found)


def test_a_copy_of_a_card_on_the_discard_pile_drawn_again() -> None:
    """A card played stays on the discard pile until the pile is shuffled back: drawing it again is a copy too many."""
    acts = activities(MATCH)[:3000]
    state = dict(_in_play(acts))
    pile = dict(_in_play(acts, pile_only=True))
    for a in acts:
        c = a["contents"] or {}
        before = a["seq"] - 1
        if a["event"] != "draw-card" or not c.get("card_draw") or before not in state:
            continue
        full = [f for f, n in pile[before].items() if n and state[before][f] >= FULL[f] and f.number is not None]
        if full:
            f = full[0]
            break
    else:
        raise AssertionError("no draw-card line after a fully played number card")
    _swap_in_desk(a, c["card_draw"][0], f.to_dealer())
    c["card_draw"][0] = f.to_dealer()
    found = _conservation(acts)
    assert found and found[0].seq == a["seq"] and "discard pile" in found[0].message, found[:1]


def test_the_line_alone_is_judged_even_when_its_desk_disagrees() -> None:
    """A deal that gives a second 0 is reported as such, not only as a snapshot difference."""
    acts, i, zero, other = _deal_with_a_zero()
    hands = acts[i]["contents"]["cards_receive"]
    hands[other][0] = dict(zero)  # desk.card_of_player left as the dealer wrote it
    found = _conservation(acts)
    assert found and found[0].seq == acts[i]["seq"] and "the deck holds 1" in found[0].message


@pytest.mark.parametrize(("event", "key", "bad"), [
    ("draw-card", "card_draw", {"color": "red", "number": 10}),
    ("penalty", "cards_receive", {"color": "green", "special": "wild"}),
    ("draw-card", "card_draw", "red-5"),
], ids=["number-10", "green-wild", "a-string"])  # fmt: skip
def test_what_is_not_a_card_of_the_deck_is_reported_where_the_dealer_gives_it(event: str, key: str, bad: Any) -> None:
    acts = activities("misbehave_bind2_40")[:3000]
    i = find(acts, lambda a: a["event"] == event and bool((a["contents"] or {}).get(key)))
    acts[i]["contents"][key][0] = bad
    found = [v for v in findings(acts) if v.seq == acts[i]["seq"] and v.code == "conservation"]
    assert found, f"{event} giving {bad!r} not reported at its line"
    assert repr(bad)[:20] in found[0].message or "no such card" in found[0].message
    assert all(v.family == "consistency" for v in found)
