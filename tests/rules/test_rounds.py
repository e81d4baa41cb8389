"""What a replay carries across rounds: followed from the log alone, compared exactly."""

from __future__ import annotations

import gzip
import json

from rules.uno.replay import MatchReplay
from rules.uno.rounds import CarryScan, snapshot
from tests.conftest import SAMPLE


def _activities() -> list[dict]:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    return [{"seq": i, "event": d["event"], "player": d.get("player"), "turn": d.get("turn"),
             "contents": d.get("contents"), "desk": d.get("desk"), "date_ms": None} for i, d in enumerate(docs, 1)]  # fmt: skip


def test_a_warm_up_round_from_the_scan_reaches_the_true_state_at_every_deal() -> None:
    acts = _activities()
    deals = [i for i, a in enumerate(acts) if a["event"] == "first-player"]
    scan, marks = CarryScan(), {}
    for i, a in enumerate(acts):
        if a["event"] == "first-player":
            marks[i] = scan.mark()
        scan.observe(a)
    true = MatchReplay()
    fed = 0
    for prev, deal in zip(deals, deals[1:], strict=False):
        cut = deal + 2  # the deal itself has been replayed
        for a in acts[fed:cut]:
            true.feed(a)
        fed = cut
        warm = CarryScan.seed(marks[prev])
        for a in acts[prev:cut]:
            warm.feed(a)
        assert snapshot(warm) == snapshot(true), f"round after line {deal}"
    assert len(deals) == 40 and true.state.round_no == 40


def test_snapshots_tell_replays_apart_and_do_not_follow_them() -> None:
    acts = _activities()
    a, b = MatchReplay(), MatchReplay()
    for x in acts[:50]:
        a.feed(x)
        b.feed(x)
    before = snapshot(a)
    assert before == snapshot(b)
    a.feed(acts[50])
    assert snapshot(a) != snapshot(b)
    assert before == snapshot(b)  # a snapshot is a copy: the replay going on does not change it
    c = MatchReplay()
    for x in acts[:50]:
        c.feed(x)
    c.judge.titles["P-1"] = {"title"}  # any attribute counts, nested ones included
    assert snapshot(c) != snapshot(b)
