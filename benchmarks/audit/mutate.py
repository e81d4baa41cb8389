#!/usr/bin/env python3
"""Mutation audit of Kifu's validators (ALGORI UNO, Kakomimasu, CHaser).

Takes genuine logs from tests/fixtures/, applies single-change mutations derived from the
written rules (../shared/seeds, ../shared/reference), ingests each mutant into a fresh DuckDB
with Kifu's CLI, reads the `violations` / `load_issues` tables and `kifu validate --format json`,
and compares with the unmutated run of the same fixture (cached per run).

Usage:  .venv/bin/python benchmarks/audit/mutate.py [--game algori|kakomimasu|chaser]
            [--out /tmp/audit.json] [--only ID[,ID...]] [--kifu-root DIR] [--snapshot]

Only Kifu's public interface is used: `python -m kifu.cli ingest|validate` (the console script
`kifu`) and the tables of the database it writes. All mutations are deterministic.
"""
from __future__ import annotations

import argparse
import copy
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
MAIN = HERE.parent.parent
FIX = MAIN / "tests" / "fixtures"
PY = MAIN / ".venv" / "bin" / "python"

# ----------------------------------------------------------------------------------------------
# Mutation record
# ----------------------------------------------------------------------------------------------


@dataclass
class Mut:
    id: str
    game: str                      # algori | kakomimasu | chaser
    fixture: str                   # key into FIXTURES
    desc: str
    rule: str                      # the rule sentence it comes from (source + quote)
    expect: str                    # what should be reported
    build: Callable                # fixture-data -> Built
    expect_codes: tuple = ()       # acceptable codes at/near the line (empty: any new finding)
    expect_player_rule: bool = False   # True: a player-rule finding on a guilty player is expected
    guilty: tuple = ()             # players who really broke a rule (others are innocent)
    forbid: tuple = ()             # (player, code) pairs that must not appear at/near the line
    expect_none: bool = False      # control: no new player-rule/dealer finding, no follow-on
    precise_codes: tuple = ()      # the specific check(s) the rule names (digest ids / Kifu codes)


@dataclass
class Built:
    data: bytes
    line: int                      # ALGORI/CHaser: 1-based line in the mutant; Kakomimasu: turn
    line_end: int                  # last line/turn touched
    map_to_orig: dict | None       # mutant line -> original line (ALGORI only); None = identity
    round: int | None = None       # ALGORI round (turn field) of the mutated line
    turn: int | None = None        # CHaser/Kakomimasu turn of the mutation
    at_end: bool = False           # mutation of an end-of-game/round line
    guilty: tuple = ()             # resolved at build time (player codes)
    forbid: tuple = ()
    note: str = ""


class NotApplicable(Exception):
    pass


# ----------------------------------------------------------------------------------------------
# ALGORI helpers
# ----------------------------------------------------------------------------------------------

A_FIX = {
    "SL": "algori-2023/speciallogic_timeout_probe_2.stored.jsonl.gz",
    "MB": "algori-2023/misbehave_bind2_40.stored.jsonl.gz",
    "MS": "algori-2023/misbehave_skipbind2_80.stored.jsonl.gz",
    "DK": "algori-2023/deckout_hoard3_aggressor1_12.stored.jsonl.gz",
    "NP": "algori-2023/noprogress_hoard4_3.stored.jsonl.gz",
    "DM": "algori-2023/demo4_bind2_60.stored.jsonl.gz",
}

_cache: dict = {}


class ALog:
    def __init__(self, path: Path):
        with gzip.open(path, "rb") as fh:
            self.raw = fh.read().split(b"\n")
        if self.raw and self.raw[-1] == b"":
            self.raw.pop()
        self._p: dict[int, dict] = {}

    def __len__(self):
        return len(self.raw)

    def p(self, i: int) -> dict:  # 0-based
        if i not in self._p:
            self._p[i] = json.loads(self.raw[i])
        return self._p[i]

    def ev(self, i):
        return self.p(i)["event"]

    def find(self, pred, start=0):
        for i in range(start, len(self.raw)):
            try:
                if pred(i, self.p(i)):
                    return i
            except (KeyError, TypeError, IndexError):
                continue
        raise NotApplicable("no candidate line")


def aload(key) -> ALog:
    if key not in _cache:
        _cache[key] = ALog(FIX / A_FIX[key])
    return _cache[key]


def dumps(d) -> bytes:
    return json.dumps(d, ensure_ascii=False, separators=(",", ":")).encode()


def fresh_id(d: dict, salt: int = 1) -> dict:
    d = copy.deepcopy(d)
    if "_id" in d and isinstance(d["_id"], dict):
        oid = d["_id"]["$oid"]
        d["_id"]["$oid"] = f"{0xfff000 + salt:06x}" + oid[6:]
    return d


def bump_date(d: dict, ms: int) -> dict:
    from datetime import datetime, timedelta, timezone
    d = copy.deepcopy(d)
    for k in ("dateCreated", "dateUpdated"):
        v = d.get(k)
        if isinstance(v, dict) and "$date" in v:
            t = datetime.strptime(v["$date"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
            t = t + timedelta(milliseconds=ms)
            v["$date"] = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
        elif isinstance(v, (int, float)):
            d[k] = v + ms
    return d


def a_replace(log: ALog, i: int, new: dict, **kw) -> Built:
    raw = list(log.raw)
    raw[i] = dumps(new)
    return Built(b"\n".join(raw) + b"\n", i + 1, i + 1, None, round=log.p(i).get("turn"), **kw)


def a_delete(log: ALog, i: int, **kw) -> Built:
    raw = log.raw[:i] + log.raw[i + 1:]
    m = {k: (k if k <= i else k + 1) for k in range(1, len(raw) + 1)}
    return Built(b"\n".join(raw) + b"\n", i + 1, i + 1, m, round=log.p(i).get("turn"), **kw)


def a_insert(log: ALog, i: int, new: dict, **kw) -> Built:
    """insert `new` so that it becomes line i+1 (0-based index i)."""
    raw = log.raw[:i] + [dumps(new)] + log.raw[i:]
    m = {}
    for k in range(1, len(raw) + 1):
        m[k] = k if k <= i else (None if k == i + 1 else k - 1)
    return Built(b"\n".join(raw) + b"\n", i + 1, i + 1, m, round=new.get("turn"), **kw)


def a_swap(log: ALog, i: int, j: int, **kw) -> Built:
    raw = list(log.raw)
    raw[i], raw[j] = raw[j], raw[i]
    m = {k: k for k in range(1, len(raw) + 1)}
    m[i + 1], m[j + 1] = j + 1, i + 1
    return Built(b"\n".join(raw) + b"\n", min(i, j) + 1, max(i, j) + 1, m, round=log.p(i).get("turn"), **kw)


WILDS = ("black", "white")


def playable(c, top):
    if c.get("color") in WILDS:
        return True
    if c.get("color") == top.get("color"):
        return True
    if "number" in c and "number" in top and c["number"] == top["number"]:
        return True
    if "special" in c and c.get("special") == top.get("special"):
        return True
    return False


def is_demo(code: str) -> bool:
    return True


def prev_next_player(log: ALog, i: int, actor: str):
    """the next-player line right before line i giving `actor` the turn (hand + top)."""
    j = i - 1
    if j >= 0 and log.ev(j) == "next-player" and log.p(j)["contents"]["next_player"] == actor:
        return log.p(j)["contents"]
    return None


def players_of(log: ALog, i: int):
    j = i
    while j >= 0 and log.ev(j) != "first-player":
        j -= 1
    return log.p(j)["contents"]["play_order"]


# ----------------------------------------------------------------------------------------------
# ALGORI mutations
# ----------------------------------------------------------------------------------------------
R_DECK = ("R カードの種類 / digest §1.1: 数字カード 赤・黄・緑・青 各0が1枚, 1〜9が各2枚 … "
          "ワイルド4枚, ワイルドドロー4 4枚, シャッフルワイルド1枚, 白いワイルド3枚 (112枚)")
R_DEAL = "R 基本ルール / digest §1.2: 28 cards are dealt … so each player gets 7"
R_DRAW1 = "digest §2.2 / S §5(3)3: voluntary draw: count = pending if pending > 0, else 1 (1 card)"
R_FORCED = "R カードの種類 ドロー2: 次のプレイヤーは2枚カードを引く; digest #26 draw_2 → 2"
R_PEN = "S §5(5) / R ゲーム進行: ペナルティとして2枚カードを引く (25 枚を手札の枚数上限として)"
R_PENJ = ("digest #22 penalty-justified: each `penalty` matches the first failing check of §2 for the "
          "preceding action (or a timeout) … No penalty without a violation")
R_TIMEOUT = "R ゲーム進行 / digest #21,#49: 5 s without an accepted action → timeout; penalty target = player to act"
R_NP = ("algori-log-format.md next-player: `next_player`, `before_player`, `card_before`, `card_of_player` "
        "(next player's hand), `turn_right`, `must_call_draw_card`, `draw_reason`, `number_card_play`, "
        "`number_turn_play`, `number_card_of_player`; digest #59 next-player-contents")


def _penalty_line(log, cause, start=0, hand_max=23):
    def pred(i, d):
        if d["event"] != "penalty" or d["contents"].get("error") != cause:
            return False
        pl = d["contents"]["player"]
        return len(d["contents"].get("cards_receive", [])) == 2 and len(d["desk"]["card_of_player"][pl]) <= hand_max + 2
    return log.find(pred, start)


def m_deal_dup_zero(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "first-player")
    d = copy.deepcopy(log.p(i))
    cr = d["contents"]["cards_receive"]
    zero = None
    for pl, hand in cr.items():
        for c in hand:
            if c.get("number") == 0:
                zero = (pl, c)
                break
        if zero:
            break
    if not zero:
        raise NotApplicable("no 0 in deal")
    for pl, hand in cr.items():
        if pl != zero[0]:
            for k, c in enumerate(hand):
                if "number" in c and c != zero[1]:
                    hand[k] = dict(zero[1])
                    return a_replace(log, i, d, note=f"{pl} card {c} -> second {zero[1]}")
    raise NotApplicable


def m_deal_short(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "first-player")
    d = copy.deepcopy(log.p(i))
    pl = d["contents"]["play_order"][2]
    gone = d["contents"]["cards_receive"][pl].pop()
    return a_replace(log, i, d, note=f"{pl} dealt 6 cards ({gone} vanished)")


def m_first_card_wd4(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "first-player")
    d = copy.deepcopy(log.p(i))
    d["contents"]["first_card"] = {"color": "black", "special": "wild_draw_4"}
    return a_replace(log, i, d, at_end=False)


def _vol_draw(log, start=0):
    return log.find(lambda i, d: d["event"] == "draw-card" and d["contents"].get("draw_reason") == "nothing"
                    and d["contents"].get("is_draw") is True and len(d["contents"]["card_draw"]) == 1
                    and d["contents"].get("can_play_draw_card") is False, start)


def m_draw_dup(_):
    log = aload("SL")
    i = _vol_draw(log, 30)
    d = copy.deepcopy(log.p(i))
    d["contents"]["card_draw"].append(dict(d["contents"]["card_draw"][0]))
    return a_replace(log, i, d, note=f"draws {d['contents']['card_draw']}")


def m_draw_vanish(_):
    log = aload("SL")
    i = _vol_draw(log, 60)
    d = copy.deepcopy(log.p(i))
    d["contents"]["card_draw"] = []
    return a_replace(log, i, d)


def m_draw_face_changed(_):
    log = aload("SL")
    i = _vol_draw(log, 90)
    d = copy.deepcopy(log.p(i))
    old = d["contents"]["card_draw"][0]
    new = {"color": "black", "special": "wild_shuffle"} if old.get("special") != "wild_shuffle" else {"color": "red", "number": 1}
    d["contents"]["card_draw"] = [new]
    return a_replace(log, i, d, note=f"{old} -> {new} (hand snapshot keeps {old})")


def m_draw_nonexistent(_):
    log = aload("SL")
    i = _vol_draw(log, 120)
    d = copy.deepcopy(log.p(i))
    d["contents"]["card_draw"] = [{"color": "red", "number": 10}]
    return a_replace(log, i, d)


def m_penalty_colored_wild(_):
    log = aload("MB")
    i = _penalty_line(log, "Card play invalid with card before.")
    d = copy.deepcopy(log.p(i))
    d["contents"]["cards_receive"][0] = {"color": "green", "special": "wild"}
    return a_replace(log, i, d)


def m_forced_draw_short(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "draw-card" and d["contents"].get("draw_reason") == "draw_2"
                 and len(d["contents"]["card_draw"]) == 2)
    d = copy.deepcopy(log.p(i))
    d["contents"]["card_draw"].pop()
    return a_replace(log, i, d)


def m_penalty_extra(_):
    log = aload("MB")
    i = _penalty_line(log, "Card play invalid with card before.")
    d = copy.deepcopy(log.p(i))
    d["contents"]["cards_receive"].append(dict(d["contents"]["cards_receive"][0]))
    return a_replace(log, i, d, guilty=(d["contents"]["player"],))


def m_penalty_vanish(_):
    log = aload("MB")
    i = _penalty_line(log, "Card play not exist of player.")
    d = copy.deepcopy(log.p(i))
    d["contents"]["cards_receive"].pop()
    return a_replace(log, i, d, guilty=(d["contents"]["player"],))


def m_fifth_wild(_):
    log = aload("DK")
    for i in range(len(log)):
        if log.ev(i) != "finish-turn":
            continue
        d = log.p(i)
        hands = d["contents"]["card_of_player"]
        nw = sum(1 for h in hands.values() for c in h if c.get("special") == "wild")
        if nw == 4:
            d = copy.deepcopy(d)
            for pl, h in d["contents"]["card_of_player"].items():
                for k, c in enumerate(h):
                    if "number" in c:
                        h[k] = {"color": "black", "special": "wild"}
                        return a_replace(log, i, d, at_end=True, note=f"finish-turn: {pl} {c} -> 5th wild")
    raise NotApplicable("no finish-turn with 4 wilds in hands")


def m_challenge_short(_):
    log = aload("MB")
    i = log.find(lambda i, d: d["event"] == "challenge" and d["contents"].get("is_challenge") is True
                 and d["contents"]["result"]["is_challenge_success"] is True)
    d = copy.deepcopy(log.p(i))
    d["contents"]["result"]["cards_receive"].pop()
    return a_replace(log, i, d)


def m_challenge_flip(_):
    log = aload("MB")
    i = log.find(lambda i, d: d["event"] == "challenge" and d["contents"].get("is_challenge") is True
                 and d["contents"]["result"]["is_challenge_success"] is True, 2000)
    d = copy.deepcopy(log.p(i))
    d["contents"]["result"]["is_challenge_success"] = False
    return a_replace(log, i, d)


def m_shuffle_dup(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "shuffle-wild")
    d = copy.deepcopy(log.p(i))
    cr = d["contents"]["cards_receive"]
    pls = [p for p in cr if cr[p]]
    a, b = pls[0], pls[1]
    old = cr[a][0]
    cr[a][0] = dict(cr[b][-1])
    return a_replace(log, i, d, note=f"{a}: {old} -> copy of {b}'s {cr[b][-1]}")


# penalties contradicted -----------------------------------------------------------------------

def _innocent(log, i, offender):
    order = players_of(log, i)
    # first demo player of the order that is not the offender
    for p in order:
        if p != offender:
            return p
    raise NotApplicable


def m_pen_victim(_):
    log = aload("MB")
    i = _penalty_line(log, "Card play invalid with card before.", 2000)
    d = copy.deepcopy(log.p(i))
    off = d["contents"]["player"]
    inn = _innocent(log, i, off)
    d["contents"]["player"] = inn
    return a_replace(log, i, d, guilty=(off,), note=f"victim {off} -> innocent {inn}")


def m_pen_timeout_victim(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "penalty" and d["contents"].get("error") == "timeout")
    d = copy.deepcopy(log.p(i))
    off = d["contents"]["player"]
    inn = _innocent(log, i, off)
    d["contents"]["player"] = inn
    return a_replace(log, i, d, guilty=(off,), forbid=((inn, "response-time"),),
                     note=f"timeout victim {off} -> {inn} (not to act)")


def m_pen_fake_timeout(_):
    log = aload("MB")
    i = _penalty_line(log, "Card play invalid with card before.", 3000)
    d = copy.deepcopy(log.p(i))
    off = d["contents"]["player"]
    d["contents"]["error"] = "timeout"
    return a_replace(log, i, d, guilty=(off,), forbid=((off, "response-time"),),
                     note=f"cause -> timeout although {off} answered within ms")


def m_pen_early_timeout(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "penalty" and d["contents"].get("error") == "timeout")
    # the turn began at the last next-player to this player
    d = copy.deepcopy(log.p(i))
    off = d["contents"]["player"]
    j = i - 1
    while log.ev(j) != "next-player":
        j -= 1
    start = log.p(j)
    d["dateCreated"] = copy.deepcopy(start["dateCreated"])
    d["dateUpdated"] = copy.deepcopy(start["dateCreated"])
    d = bump_date(d, 1000)
    return a_replace(log, i, d, forbid=((off, "response-time"),),
                     note=f"timeout stamped 1000 ms after its turn began (line {j + 1})")


def m_pen_cause_swapped(_):
    log = aload("MB")
    i = _penalty_line(log, "Card play invalid with card before.", 4000)
    d = copy.deepcopy(log.p(i))
    off = d["contents"]["player"]
    d["contents"]["error"] = "Card play not exist of player."
    return a_replace(log, i, d, guilty=(off,), forbid=((off, "card-owned"),),
                     note="card is held: cause contradicted by the hand")


def m_pen_uno_on_yeller(_):
    log = aload("MB")
    i = log.find(lambda i, d: d["event"] == "pointed-not-say-uno" and d["contents"].get("have_say_uno") is True
                 and len(d["contents"].get("card_of_player", [])) == 1 and log.ev(i + 1) != "penalty")
    pt = log.p(i)
    tgt = pt["contents"]["target"]
    # two cards: the two first cards of the next draw in the log (a plausible face, no more)
    cards = [{"color": "red", "number": 5}, {"color": "blue", "special": "skip"}]
    base = fresh_id(log.p(i + 1), 7)
    new = {"_id": base["_id"], "dealer_code": pt["dealer_code"], "event": "penalty", "dealer": pt["dealer"],
           "player": "", "turn": pt["turn"],
           "contents": {"player": tgt, "cards_receive": cards,
                        "number_turn_play": log.p(i + 1)["contents"].get("number_turn_play"),
                        "error": "Did not say uno."},
           "desk": copy.deepcopy(log.p(i + 1).get("desk", pt.get("desk"))),
           "dateCreated": copy.deepcopy(pt["dateCreated"]), "dateUpdated": copy.deepcopy(pt["dateCreated"])}
    new = bump_date(new, 1)
    b = a_insert(log, i + 1, new, forbid=((tgt, "uno-call-missed"), (tgt, "uno-call-made")),
                 note=f"'Did not say uno.' inserted on {tgt} who had yelled (have_say_uno true)")
    return b


def m_pen_before_action(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "penalty" and d["contents"].get("error") == "Special logic title too long.")
    return a_swap(log, i - 1, i, guilty=(log.p(i)["contents"]["player"],),
                  note="penalty logged before the special-logic that caused it")


# next-player fields ---------------------------------------------------------------------------

def _np_line(log, start, must=False):
    return log.find(lambda i, d: d["event"] == "next-player" and d["contents"]["must_call_draw_card"] is must
                    and d["contents"]["number_turn_play"] > 3 and log.ev(i + 1) in ("play-card", "draw-card"), start)


def np_mut(fieldname, fn, must=False, start=40):
    def build(_):
        log = aload("SL")
        i = _np_line(log, start, must)
        d = copy.deepcopy(log.p(i))
        old = copy.deepcopy(d["contents"][fieldname])
        fn(d["contents"], log, i)
        return a_replace(log, i, d, note=f"{fieldname}: {json.dumps(old)[:80]} -> {json.dumps(d['contents'][fieldname])[:80]}")
    return build


def _other_player(c, log, i, key):
    order = players_of(log, i)
    c[key] = next(p for p in order if p != c["next_player"] and p != c["before_player"])


def _np_card_before(c, log, i):
    t = c["card_before"]
    c["card_before"] = {"color": "green" if t.get("color") != "green" else "red", "number": (t.get("number", 3) + 1) % 10}


def _np_hand(c, log, i):
    c["card_of_player"] = c["card_of_player"][:-1]


def _np_counts(c, log, i):
    k = c["next_player"]
    c["number_card_of_player"][k] += 1


# illegal plays ---------------------------------------------------------------------------------

def _play_with_hand(log, pred, start=0):
    def p(i, d):
        if d["event"] != "play-card":
            return False
        ctx = prev_next_player(log, i, d["player"])
        if ctx is None or ctx["must_call_draw_card"]:
            return False
        return pred(i, d, ctx)
    return log.find(p, start)


def m_wrong_colour(_):
    log = aload("SL")
    def pred(i, d, ctx):
        top = ctx["card_before"]
        return any(not playable(c, top) for c in ctx["card_of_player"]) and "number" in d["contents"]["card_play"]
    i = _play_with_hand(log, pred, 20)
    d = copy.deepcopy(log.p(i))
    ctx = prev_next_player(log, i, d["player"])
    bad = next(c for c in ctx["card_of_player"] if not playable(c, ctx["card_before"]))
    d["contents"]["card_play"] = bad
    return a_replace(log, i, d, guilty=(d["player"],), note=f"plays {bad} on {ctx['card_before']}")


def m_not_in_hand(_):
    log = aload("SL")
    def pred(i, d, ctx):
        top = ctx["card_before"]
        return top.get("color") not in WILDS and "number" in d["contents"]["card_play"]
    i = _play_with_hand(log, pred, 60)
    d = copy.deepcopy(log.p(i))
    ctx = prev_next_player(log, i, d["player"])
    col = ctx["card_before"]["color"]
    held = {c.get("number") for c in ctx["card_of_player"] if c.get("color") == col}
    n = next(n for n in range(1, 10) if n not in held)
    d["contents"]["card_play"] = {"color": col, "number": n}
    return a_replace(log, i, d, guilty=(d["player"],), note=f"plays {col} {n}, not in hand")


def m_draw_owed_ignored(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "draw-card" and d["contents"].get("draw_reason") == "draw_2"
                 and log.ev(i - 1) == "next-player" and log.p(i - 1)["contents"]["must_call_draw_card"])
    ctx = log.p(i - 1)["contents"]
    actor = ctx["next_player"]
    top = ctx["card_before"]
    card = next((c for c in ctx["card_of_player"] if c.get("color") == top.get("color") and c.get("special") != "draw_2"),
                ctx["card_of_player"][0])
    d = copy.deepcopy(log.p(i))
    d["event"] = "play-card"
    d["player"] = actor
    d["contents"] = {"card_play": card, "number_turn_play": ctx["number_turn_play"],
                     "next_player": log.p(i + 1)["contents"].get("next_player"), "yell_uno": False}
    return a_replace(log, i, d, guilty=(actor,), note=f"forced draw replaced by play of {card}")


def m_wd4_bluff(_):
    log = aload("DM")
    def pred(i, d, ctx):
        return ("number" in d["contents"]["card_play"]
                and any(c.get("special") == "wild_draw_4" for c in ctx["card_of_player"])
                and len(ctx["card_of_player"]) > 2)
    i = _play_with_hand(log, pred, 100)
    d = copy.deepcopy(log.p(i))
    d["contents"]["card_play"] = {"color": "black", "special": "wild_draw_4"}
    d["contents"]["color_of_wild"] = "red"
    return a_replace(log, i, d, guilty=(d["player"],), note="a legal number card play turned into a WD4 while holding it")


def m_uno_not_yelled(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "play-card" and d["contents"].get("yell_uno") is True)
    d = copy.deepcopy(log.p(i))
    d["contents"]["yell_uno"] = False
    return a_replace(log, i, d, guilty=(d["player"],))


def m_yell_wrong_count(_):
    log = aload("SL")
    def pred(i, d, ctx):
        return d["contents"].get("yell_uno") is False and len(ctx["card_of_player"]) >= 4
    i = _play_with_hand(log, pred, 30)
    d = copy.deepcopy(log.p(i))
    d["contents"]["yell_uno"] = True
    return a_replace(log, i, d, guilty=(d["player"],))


def m_out_of_turn(_):
    log = aload("SL")
    def pred(i, d, ctx):
        return True
    i = _play_with_hand(log, pred, 50)
    d = copy.deepcopy(log.p(i))
    real = d["player"]
    ctx = prev_next_player(log, i, real)
    other = next(p for p in players_of(log, i) if p not in (real, ctx["before_player"]))
    d["player"] = other
    return a_replace(log, i, d, guilty=(other,), note=f"play by {other}, to act was {real}")


def m_special_long(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "special-logic" and log.ev(i + 1) != "penalty")
    d = copy.deepcopy(log.p(i))
    d["contents"]["title"] = "T" * 33
    return a_replace(log, i, d, guilty=(d["player"],))


# removed / swapped / duplicated lines -----------------------------------------------------------

def m_rm_play(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "play-card" and "number" in d["contents"]["card_play"]
                 and log.ev(i + 1) == "next-player", 70)
    return a_delete(log, i, note=f"removed play-card of {log.p(i)['player']}")


def m_rm_forced_draw(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "draw-card" and d["contents"].get("draw_reason") == "draw_2", 40)
    return a_delete(log, i, note=f"removed forced draw of {log.p(i)['player']}")


def m_rm_next_player(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "next-player" and log.ev(i + 1) == "play-card", 100)
    return a_delete(log, i)


def m_rm_penalty(_):
    log = aload("MB")
    i = _penalty_line(log, "Card play not exist of player.", 1000)
    return a_delete(log, i, guilty=(log.p(i)["contents"]["player"],), note="action kept, its penalty removed")


def m_swap_play_next(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "play-card" and log.ev(i + 1) == "next-player", 140)
    return a_swap(log, i, i + 1)


def m_swap_two_plays(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "play-card" and log.ev(i + 1) == "next-player"
                 and log.ev(i + 2) == "play-card", 200)
    return a_swap(log, i, i + 2, note="two consecutive players' plays exchanged")


def a_dup(key, pred, start, salt, same_id=False, actor_guilty=False, **kw):
    def build(_):
        log = aload(key)
        i = log.find(pred, start)
        d = log.p(i)
        if same_id:
            raw = log.raw[: i + 1] + [log.raw[i]] + log.raw[i + 1:]
        else:
            nd = bump_date(fresh_id(d, salt), 0)
            raw = log.raw[: i + 1] + [dumps(nd)] + log.raw[i + 1:]
        m = {k: (k if k <= i + 1 else k - 1) for k in range(1, len(raw) + 1)}
        m[i + 2] = None
        g = (d["player"],) if actor_guilty else ()
        return Built(b"\n".join(raw) + b"\n", i + 2, i + 2, m, round=d.get("turn"), guilty=g, **kw)
    return build


# end of round / match -------------------------------------------------------------------------

def m_round_score(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "finish-turn")
    d = copy.deepcopy(log.p(i))
    k = next(iter(d["contents"]["score"]))
    d["contents"]["score"][k] += 10
    return a_replace(log, i, d, at_end=True, note=f"round score of {k} +10")


def m_game_winner(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "finish-game")
    d = copy.deepcopy(log.p(i))
    w = d["contents"]["winner"]
    other = next(p for p in d["contents"]["score"] if p != w)
    d["contents"]["winner"] = other
    b = a_replace(log, i, d, at_end=True, note=f"winner {w} -> {other}")
    b.round = None
    return b


ALGORI_MUTS = [
    # card accounting
    Mut("A01-deal-dup-zero", "algori", "SL", "first-player: a dealt card replaced by a second copy of a colour's only 0",
        R_DECK, "card-multiplicity / deal error at the first-player line; nobody's player-rule", m_deal_dup_zero),
    Mut("A02-deal-short", "algori", "SL", "first-player: one player dealt 6 cards (a card vanishes)",
        R_DEAL, "deal-and-first-card error at the first-player line", m_deal_short),
    Mut("A03-first-card-wd4", "algori", "SL", "first-player: first card turned is a wild_draw_4",
        "R 基本ルール: 最初の場札がワイルドドロー4・シャッフルワイルド・白いワイルドの場合は山札に戻し…",
        "deal-and-first-card error at line 5", m_first_card_wd4),
    Mut("A04-draw-dup", "algori", "SL", "voluntary draw-card draws 2 cards (the drawn card duplicated)",
        R_DRAW1, "voluntary-draw / card accounting error at the draw line; drawer not blamed", m_draw_dup),
    Mut("A05-draw-vanish", "algori", "SL", "voluntary draw-card with is_draw true but no card (card vanishes)",
        R_DRAW1, "voluntary-draw / accounting error at the draw line", m_draw_vanish),
    Mut("A06-draw-face-changed", "algori", "SL", "draw-card reports a different card (a 2nd wild_shuffle) than the hand receives",
        R_DECK + "; digest #57 draw-from-pile", "card-multiplicity / draw-from-pile at the draw line", m_draw_face_changed),
    Mut("A07-draw-nonexistent", "algori", "SL", "draw-card draws {red, number 10}, a face not in the deck",
        "S §5(1): number 0〜9; digest §1.1 'exactly 56 distinct card faces'", "card face / accounting error at the line",
        m_draw_nonexistent),
    Mut("A08-penalty-coloured-wild", "algori", "MB", "penalty cards_receive contains {green, wild} (no such face in the HEAD build)",
        "digest §1.1: wild … colour `black`; 56 distinct faces", "card face / accounting error at the penalty line",
        m_penalty_colored_wild),
    Mut("A09-forced-draw-short", "algori", "SL", "forced draw after draw_2 takes only 1 card",
        R_FORCED, "forced-draw-amount at the draw line; drawer not blamed", m_forced_draw_short),
    Mut("A10-penalty-3-cards", "algori", "MB", "penalty gives 3 cards (a penalty card duplicated)",
        R_PEN, "penalty-count at the penalty line", m_penalty_extra),
    Mut("A11-penalty-1-card", "algori", "MB", "penalty gives 1 card with a small hand (a penalty card vanishes)",
        R_PEN, "penalty-count at the penalty line", m_penalty_vanish),
    Mut("A12-fifth-wild", "algori", "DK", "finish-turn hands of the deck-exhausted round show a 5th wild",
        R_DECK + " (ワイルド 4枚)", "card-multiplicity / finish-hands at the finish-turn line", m_fifth_wild),
    Mut("A13-challenge-4-cards", "algori", "MB", "successful challenge returns the WD4 + 3 cards (4 instead of 5)",
        "R チャレンジルール: チャレンジ成功 … ワイルドドロー4を出したプレイヤーが4枚引く (+ WD4 back: digest #35)",
        "challenge-outcome at the challenge line", m_challenge_short),
    Mut("A14-challenge-verdict-flipped", "algori", "MB", "successful challenge logged as failed (is_challenge_success false)",
        "R チャレンジルール: 出せるカードを持っていた場合はチャレンジ成功", "challenge-verdict at the challenge line",
        m_challenge_flip),
    Mut("A15-shuffle-dup", "algori", "SL", "shuffle-wild: one card of a hand replaced by a copy of another hand's card",
        "R シャッフルワイルド: 全員の手札を集めシャッフルして配り直す; digest #39 multiset == union",
        "shuffle-redistribution at the shuffle-wild line", m_shuffle_dup),
    # penalties contradicted
    Mut("A16-penalty-victim-innocent", "algori", "MB", "penalty for Misbehaver's bad play written against another (innocent) player",
        R_PENJ, "penalty-justified (dealer) at the penalty line; the named player must get no player-rule error",
        m_pen_victim),
    Mut("A17-timeout-victim-innocent", "algori", "SL", "timeout penalty given to a player who is not to act",
        R_TIMEOUT, "timeout-effects / penalty-justified (dealer); no response-time error for the named player",
        m_pen_timeout_victim),
    Mut("A18-fake-timeout", "algori", "MB", "penalty cause rewritten to 'timeout' though the bot answered in ms",
        R_TIMEOUT, "dealer-judgement (timeout without 5 s); no response-time error for the bot", m_pen_fake_timeout),
    Mut("A19-early-timeout", "algori", "SL", "timeout penalty stamped 1 s after its turn began",
        R_TIMEOUT + " (gap since turn start ≥ 5 s, soft)", "timeout-effects (dealer) at the penalty; the bot is not slow",
        m_pen_early_timeout),
    Mut("A20-penalty-cause-swapped", "algori", "MB", "cause 'Card play invalid with card before.' rewritten 'Card play not exist of player.' (card was held)",
        R_PENJ, "penalty-justified (dealer); no card-owned error for the bot", m_pen_cause_swapped),
    Mut("A21-uno-penalty-on-yeller", "algori", "MB", "'Did not say uno.' penalty inserted after a pointing at a player who had yelled",
        "R ゲーム進行: UNOを宣言しなかった場合 … 指摘されると2枚 (only if not yelled); digest #37",
        "uno-pointing-outcome / penalty-justified (dealer); target not blamed", m_pen_uno_on_yeller),
    Mut("A22-penalty-before-action", "algori", "SL", "'Special logic title too long.' penalty logged before the special-logic line",
        R_PENJ + "; Appendix A: special-logic → penalty", "event-sequence / penalty-justified near the two lines",
        m_pen_before_action),
    # next-player fields
    Mut("A23-np-next_player", "algori", "SL", "next-player: next_player names another seat", R_NP,
        "next-seat (dealer) at the line; the player who then acts (correct by replay) not blamed",
        np_mut("next_player", lambda c, log, i: _other_player(c, log, i, "next_player"))),
    Mut("A24-np-before_player", "algori", "SL", "next-player: before_player names another seat", R_NP,
        "next-player-contents at the line", np_mut("before_player", lambda c, log, i: _other_player(c, log, i, "before_player"))),
    Mut("A25-np-card_before", "algori", "SL", "next-player: card_before is a different card", R_NP,
        "next-player-contents at the line; next play judged on the replayed top", np_mut("card_before", _np_card_before)),
    Mut("A26-np-card_of_player", "algori", "SL", "next-player: the next player's hand misses a card", R_NP,
        "next-player-contents at the line", np_mut("card_of_player", _np_hand)),
    Mut("A27-np-turn_right", "algori", "SL", "next-player: turn_right flipped", R_NP,
        "next-player-contents at the line", np_mut("turn_right", lambda c, l, i: c.__setitem__("turn_right", not c["turn_right"]))),
    Mut("A28-np-must_call-true", "algori", "SL", "next-player: must_call_draw_card true on a free turn", R_NP,
        "next-player-contents at the line; the player who then plays is not blamed (owed-draw)",
        np_mut("must_call_draw_card", lambda c, l, i: c.__setitem__("must_call_draw_card", True))),
    Mut("A29-np-must_call-false", "algori", "SL", "next-player: must_call_draw_card false although draw_2 is owed", R_NP,
        "next-player-contents at the line", np_mut("must_call_draw_card", lambda c, l, i: c.__setitem__("must_call_draw_card", False), must=True, start=0)),
    Mut("A30-np-draw_reason", "algori", "SL", "next-player: draw_reason draw_2 on a free turn", R_NP + "; digest #28",
        "draw-reason / next-player-contents at the line", np_mut("draw_reason", lambda c, l, i: c.__setitem__("draw_reason", "draw_2"))),
    Mut("A31-np-number_card_play", "algori", "SL", "next-player: number_card_play +1", R_NP + "; digest #64",
        "cards-played-counter at the line", np_mut("number_card_play", lambda c, l, i: c.__setitem__("number_card_play", c["number_card_play"] + 1))),
    Mut("A32-np-number_turn_play", "algori", "SL", "next-player: number_turn_play +1", R_NP + "; digest #31",
        "turn-counter at the line", np_mut("number_turn_play", lambda c, l, i: c.__setitem__("number_turn_play", c["number_turn_play"] + 1))),
    Mut("A33-np-number_card_of_player", "algori", "SL", "next-player: number_card_of_player of the next player +1", R_NP,
        "next-player-contents at the line", np_mut("number_card_of_player", _np_counts)),
    # illegal plays
    Mut("A34-wrong-colour", "algori", "SL", "play-card of a held card that matches neither colour nor number/symbol, unpenalised",
        "R ゲーム進行: 場札と同じ色・数字・記号のカード … を出すことができる", "card-legal-on-top on the player + missing penalty",
        m_wrong_colour, expect_codes=("card-legal-on-top",), expect_player_rule=True),
    Mut("A35-not-in-hand", "algori", "SL", "play-card of a card of the top's colour that the player does not hold",
        "S §5(3)2: Card play not exist of player. (card not held)", "card-owned on the player + missing penalty",
        m_not_in_hand, expect_codes=("card-owned",), expect_player_rule=True),
    Mut("A36-draw-owed-ignored", "algori", "SL", "forced draw_2 draw replaced by a play-card (draw owed ignored)",
        "R ドロー2: 次のプレイヤーは2枚カードを引き、カードを出すことはできない; digest #2", "owed-draw-respected on the player",
        m_draw_owed_ignored, expect_codes=("owed-draw-respected",), expect_player_rule=True),
    Mut("A37-wd4-bluff", "algori", "DM", "a legal number-card play replaced by a WD4 while holding playable cards",
        "R ワイルドドロー4: 場札の色と同じ色のカードを持っていない場合にのみ出せる; digest #11 (report even if unchallenged)",
        "wd4-honest/wd4-bluff on the player at the line", m_wd4_bluff, expect_codes=("wd4-bluff", "wd4-honest"),
        expect_player_rule=True),
    Mut("A38-uno-not-yelled", "algori", "SL", "2→1 play with yell_uno false (UNO not yelled)",
        "R ゲーム進行: 残り1枚になったら「UNO」と宣言しなければならない; digest #10", "uno-call-made/missed on the player",
        m_uno_not_yelled, expect_codes=("uno-call-missed", "uno-call-made"), expect_player_rule=True),
    Mut("A39-yell-at-5-cards", "algori", "SL", "yell_uno true on a play from ≥ 4 cards, unpenalised",
        "S §5(3)2: Can not say uno and play card. (yell with hand ≠ 2); digest #9", "yell-only-at-two on the player",
        m_yell_wrong_count, expect_codes=("yell-only-at-two",), expect_player_rule=True),
    Mut("A40-play-out-of-turn", "algori", "SL", "play-card line attributed to a player who is not to act",
        "S §5(3): Next player invalid. (sender is not the player to act); digest #1", "turn-owner on the new actor; real actor not blamed",
        m_out_of_turn, expect_codes=("turn-owner",), expect_player_rule=True),
    Mut("A41-special-logic-33", "algori", "SL", "accepted special-logic with a 33-character title, no penalty",
        "R スペシャルロジックについて: 32文字以内; S §5(3)7 Special logic title too long.", "special-logic-valid on the sender",
        m_special_long, expect_codes=("special-logic-valid",), expect_player_rule=True),
    Mut("A42-rm-play-card", "algori", "SL", "a play-card line removed", "digest Appendix A: play-card → next-player; #61 event-sequence",
        "consistency/dealer finding at the gap; no player blamed", m_rm_play),
    Mut("A43-rm-forced-draw", "algori", "SL", "the forced draw after a draw_2 removed", R_FORCED + "; Appendix A forced draw",
        "dealer/consistency at the gap; the drawer not blamed", m_rm_forced_draw),
    Mut("A44-rm-next-player", "algori", "SL", "a next-player line removed", "digest 'Hand-over': a `next-player` event is written",
        "event-sequence at the gap; the acting player not blamed", m_rm_next_player),
    Mut("A45-rm-penalty", "algori", "MB", "the penalty after 'Card play not exist of player.' removed",
        R_PENJ + " (no violation without its penalty)", "penalty missing (dealer) at the action", m_rm_penalty),
    Mut("A46-swap-play-next", "algori", "SL", "play-card and its next-player swapped", "digest Appendix A: play-card → next-player",
        "event-sequence near the lines; nobody blamed", m_swap_play_next),
    Mut("A47-swap-two-plays", "algori", "SL", "two consecutive plays by different players swapped",
        "digest #1 turn-owner / #61 event-sequence", "consistency near the lines", m_swap_two_plays),
    Mut("A48-dup-play-card", "algori", "SL", "a play-card line duplicated (fresh _id)", "digest #1 turn-owner, #5 card-owned",
        "duplicate action flagged at the copy", a_dup("SL", lambda i, d: d["event"] == "play-card", 100, 1, actor_guilty=True)),
    Mut("A49-dup-next-player", "algori", "SL", "a next-player line duplicated (fresh _id)", "digest #31 turn-counter, #61",
        "flagged at the copy", a_dup("SL", lambda i, d: d["event"] == "next-player", 120, 2)),
    Mut("A50-dup-draw-card", "algori", "SL", "a draw-card line duplicated (fresh _id): the card drawn twice",
        R_DRAW1 + "; digest #57", "flagged at the copy; drawer not blamed",
        a_dup("SL", lambda i, d: d["event"] == "draw-card" and d["contents"].get("draw_reason") == "nothing", 150, 3)),
    Mut("A51-dup-penalty", "algori", "MB", "a penalty line duplicated (fresh _id): 4 cards for one fault",
        R_PEN, "penalty-count / penalty-justified at the copy",
        a_dup("MB", lambda i, d: d["event"] == "penalty" and d["contents"].get("error") == "Card play invalid with card before.", 500, 4)),
    Mut("A52-dup-exact-same-id", "algori", "SL", "control: a line repeated byte for byte (same _id): a re-export duplicate",
        "README: stored lines are MongoDB documents; the same _id is the same record", "deduplicated, nothing new reported",
        a_dup("SL", lambda i, d: d["event"] == "play-card", 100, 0, same_id=True), expect_none=True),
    Mut("A53-round-score", "algori", "SL", "finish-turn: one player's round score +10",
        "R 得点の計算: 勝者は他のプレイヤーの手札の点数の合計を得る; digest #46", "round-score at the finish-turn",
        m_round_score),
    Mut("A54-game-winner", "algori", "SL", "finish-game: winner names a player who is not top", "R 予選大会進行 / digest #48 match-result",
        "match-result at the finish-game line", m_game_winner),
]


def log_ok(d):
    return True


# ----------------------------------------------------------------------------------------------
# Kakomimasu
# ----------------------------------------------------------------------------------------------
K_FIX = {"K22": "kakomimasu/v1_games/game22_A-2.json", "K02": "kakomimasu/v1_games/game02_A-2.json",
         "K19": "kakomimasu/v1_games/game19_A-1.json"}


def kload(key):
    if key not in _cache:
        _cache[key] = json.loads((FIX / K_FIX[key]).read_text())
    return _cache[key]


def k_state(g, upto):
    """positions and walls after turn `upto` (1-based), from successful (res 0) actions only."""
    n = g["nPlayer"]
    pos = {(p, a): None for p in range(n) for a in range(g["nAgent"])}
    wall = {}
    for t in range(upto):
        for p, pl in enumerate(g["log"][t]["players"]):
            for a in pl["actions"]:
                if a["res"] != 0:
                    continue
                if a["type"] in (1, 3):
                    pos[(p, a["agentId"])] = (a["x"], a["y"])
                    wall[(a["x"], a["y"])] = p
                elif a["type"] == 4:
                    wall.pop((a["x"], a["y"]), None)
    return pos, wall


def k_build(g, t, note="", guilty=(), at_end=False):
    return Built(json.dumps(g, ensure_ascii=False, separators=(",", ":")).encode(), t, t, None, turn=t,
                 note=note, guilty=guilty, at_end=at_end)


def k_find(g, pred, start=1):
    for t in range(start, len(g["log"]) + 1):
        for p, pl in enumerate(g["log"][t - 1]["players"]):
            for k, a in enumerate(pl["actions"]):
                if pred(t, p, a):
                    return t, p, k
    raise NotApplicable


def pid(g, p):
    return g["players"][p]["id"]


def k_on_opp_wall(key, kind):
    def build(_):
        g = copy.deepcopy(kload(key))
        W, H = g["field"]["width"], g["field"]["height"]
        for t in range(2, len(g["log"]) + 1):
            pos, wall = k_state(g, t - 1)
            occupied = {v for v in pos.values() if v}
            for p, pl in enumerate(g["log"][t - 1]["players"]):
                for a in pl["actions"]:
                    if a["res"] != 0 or a["type"] != kind:
                        continue
                    if kind == 3:
                        x0, y0 = pos[(p, a["agentId"])]
                        cands = [(x0 + dx, y0 + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
                    else:
                        cands = sorted(wall)
                    for c in cands:
                        if wall.get(c) not in (None, p) and c not in occupied and 0 <= c[0] < W and 0 <= c[1] < H:
                            old = (a["x"], a["y"])
                            a["x"], a["y"] = c
                            return k_build(g, t, f"turn {t}: {pid(g, p)} agent {a['agentId']} {'MOVE' if kind == 3 else 'PUT'} {old}->{c} (opponent wall), res 0",
                                           guilty=(pid(g, p),))
        raise NotApplicable
    return build


def k_move2(_):
    g = copy.deepcopy(kload("K22"))
    W = g["field"]["width"]
    t, p, k = k_find(g, lambda t, p, a: a["type"] == 3 and a["res"] == 0 and t > 3)
    a = g["log"][t - 1]["players"][p]["actions"][k]
    pos, wall = k_state(g, t - 1)
    x0, y0 = pos[(p, a["agentId"])]
    nx = x0 + 2 if x0 + 2 < W else x0 - 2
    old = (a["x"], a["y"])
    a["x"], a["y"] = nx, y0
    return k_build(g, t, f"turn {t}: {pid(g, p)} agent {a['agentId']} from {(x0, y0)} MOVE {old}->{(nx, y0)} (2 squares), res 0",
                   guilty=(pid(g, p),))


def k_move_off(_):
    g = copy.deepcopy(kload("K22"))
    W = g["field"]["width"]
    for t in range(2, len(g["log"]) + 1):
        pos, _w = k_state(g, t - 1)
        for p, pl in enumerate(g["log"][t - 1]["players"]):
            for a in pl["actions"]:
                if a["type"] == 3 and a["res"] == 0:
                    x0, y0 = pos[(p, a["agentId"])]
                    if x0 in (0, W - 1):
                        nx = -1 if x0 == 0 else W
                        old = (a["x"], a["y"])
                        a["x"], a["y"] = nx, y0
                        return k_build(g, t, f"turn {t}: {pid(g, p)} agent {a['agentId']} at {(x0, y0)} MOVE {old}->{(nx, y0)} off board, res 0",
                                       guilty=(pid(g, p),))
    # fallback: a PUT off board
    t, p, k = k_find(g, lambda t, p, a: a["type"] == 1 and a["res"] == 0)
    a = g["log"][t - 1]["players"][p]["actions"][k]
    a["x"] = W
    return k_build(g, t, f"turn {t}: PUT at x={W} (off board), res 0", guilty=(pid(g, p),))


def k_remove(target):
    def build(_):
        g = copy.deepcopy(kload("K02"))
        for t in range(3, len(g["log"]) + 1):
            pos, wall = k_state(g, t - 1)
            occupied = {v for v in pos.values() if v}
            for p, pl in enumerate(g["log"][t - 1]["players"]):
                for a in pl["actions"]:
                    if a["type"] not in (4, 3) or a["res"] != 0:
                        continue
                    x0, y0 = pos[(p, a["agentId"])]
                    for dx in (-1, 0, 1):
                        for dy in (-1, 0, 1):
                            c = (x0 + dx, y0 + dy)
                            if (dx or dy) and 0 <= c[0] < 10 and 0 <= c[1] < 10 and c not in occupied:
                                ok = (wall.get(c) == p) if target == "own" else (c not in wall)
                                if ok:
                                    old = (a["type"], a["x"], a["y"])
                                    a["type"], a["x"], a["y"] = 4, c[0], c[1]
                                    # removing one's own wall is allowed by the rules (除去: 城壁マスを取り除く):
                                    # only the REMOVE of an empty tile is a rule break of the player
                                    return k_build(g, t, f"turn {t}: {pid(g, p)} agent {a['agentId']} {old} -> REMOVE {c} ({target} tile), res 0",
                                                   guilty=(pid(g, p),) if target == "empty" else ())
        raise NotApplicable
    return build


def k_points(_):
    g = copy.deepcopy(kload("K22"))
    t = 5
    g["log"][t - 1]["players"][0]["point"]["wallPoint"] += 5
    return k_build(g, t, f"turn {t}: player 0 wallPoint +5")


def k_final_points(_):
    g = copy.deepcopy(kload("K02"))
    g["players"][1]["point"]["areaPoint"] += 7
    t = len(g["log"])
    return k_build(g, t, "final players[1].point.areaPoint +7", at_end=True)


def k_removed_action(_):
    g = copy.deepcopy(kload("K22"))
    t, p, k = k_find(g, lambda t, p, a: a["type"] == 3 and a["res"] == 0 and t > 4)
    a = g["log"][t - 1]["players"][p]["actions"].pop(k)
    return k_build(g, t, f"turn {t}: successful {a} of {pid(g, p)} removed from the log")


def k_res_conflict(_):
    g = copy.deepcopy(kload("K22"))
    t, p, k = k_find(g, lambda t, p, a: a["type"] == 3 and a["res"] == 0 and t > 5)
    g["log"][t - 1]["players"][p]["actions"][k]["res"] = 1
    return k_build(g, t, f"turn {t}: {pid(g, p)} successful MOVE logged res 1 (conflict) with no rival action")


def k_two_on_one(_):
    g = copy.deepcopy(kload("K19"))
    for t in range(2, len(g["log"]) + 1):
        for p, pl in enumerate(g["log"][t - 1]["players"]):
            ok = [a for a in pl["actions"] if a["res"] == 0 and a["type"] in (1, 3)]
            if len(ok) >= 2:
                a, b = ok[0], ok[1]
                if b["type"] == 1:
                    old = (b["x"], b["y"])
                    b["x"], b["y"] = a["x"], a["y"]
                    return k_build(g, t, f"turn {t}: {pid(g, p)} agents {a['agentId']},{b['agentId']} both land on {(a['x'], a['y'])} (res 0), was {old}",
                                   guilty=(pid(g, p),))
    raise NotApplicable


def k_final_tile(_):
    g = copy.deepcopy(kload("K22"))
    tiles = g["field"]["tiles"]
    k = next(i for i, c in enumerate(tiles) if c["type"] == 1 and c["player"] == 0)
    tiles[k]["player"] = 1
    return k_build(g, len(g["log"]), f"final field.tiles[{k}] wall owner 0 -> 1", at_end=True)


def k_put_placed(_):
    g = copy.deepcopy(kload("K22"))
    t, p, k = k_find(g, lambda t, p, a: a["type"] == 3 and a["res"] == 0 and t > 3)
    a = g["log"][t - 1]["players"][p]["actions"][k]
    a["type"] = 1
    return k_build(g, t, f"turn {t}: {pid(g, p)} agent {a['agentId']} (already on the board) PUT at {(a['x'], a['y'])}, res 0",
                   guilty=(pid(g, p),))


R_K_PUT = "公式ルール 配置: 未配置のエージェントを…配置する … ただし、相手チームの壁となっているマスには配置できません。"
R_K_MOVE = "公式ルール 移動: 周囲8方向のいずれかのマスに移動する … ただし、相手チームの壁となっているマスには移動できません。"
R_K_INV = "公式ルール 無効: フィールド外への配置と移動 / 壁が築かれていないマスへの除去 / 相手チームの壁が築かれているマスへの配置と移動"
R_K_PTS = "公式ルール 得点: 壁ポイント (マスの点数) と陣地ポイント (絶対値) の合計"

KAKO_MUTS = [
    Mut("K01-move-onto-opp-wall", "kakomimasu", "K22", "successful MOVE retargeted onto an adjacent opponent wall", R_K_MOVE,
        "the logged res 0 contradicts the rule (should be invalid, res 2)", k_on_opp_wall("K22", 3)),
    Mut("K02-put-on-opp-wall", "kakomimasu", "K02", "successful PUT retargeted onto an opponent wall", R_K_PUT,
        "res 0 contradicts the rule (should be invalid)", k_on_opp_wall("K02", 1)),
    Mut("K03-move-2-squares", "kakomimasu", "K22", "successful MOVE of 2 squares", "公式ルール 移動: 周囲8方向のいずれかのマスに移動する",
        "res 0 contradicts the rule (not adjacent)", k_move2),
    Mut("K04-move-off-board", "kakomimasu", "K22", "successful MOVE off the board", R_K_INV, "res 0 contradicts the rule", k_move_off),
    Mut("K05-remove-own-wall", "kakomimasu", "K02", "a successful action turned into REMOVE of the agent's own wall (res 0)",
        "公式ルール 除去: 周囲8方向にある城壁マスを取り除く (own walls too: the log's res must follow the engine)",
        "replay must agree with res/points; any deviation flagged at the turn", k_remove("own")),
    Mut("K06-remove-empty-tile", "kakomimasu", "K02", "REMOVE of a tile with no wall, res 0", R_K_INV + " (壁が築かれていないマスへの除去)",
        "res 0 contradicts the rule (should be invalid)", k_remove("empty")),
    Mut("K07-points-changed", "kakomimasu", "K22", "turn 5 wallPoint of player 0 +5", R_K_PTS, "points mismatch at turn 5", k_points),
    Mut("K08-final-points-changed", "kakomimasu", "K02", "final areaPoint of player 1 +7", R_K_PTS + "; 勝敗判定",
        "final score mismatch", k_final_points),
    Mut("K09-action-removed", "kakomimasu", "K22", "a successful MOVE removed from the turn log", "公式ルール: 行動の送信がなかった場合…停留として扱われます",
        "replay diverges from logged points/positions at that turn", k_removed_action),
    Mut("K10-res-conflict-fake", "kakomimasu", "K22", "a successful MOVE logged res 1 (conflict) with no competing action",
        "公式ルール 競合: 複数のエージェントが同じマスに対して指定した行動", "res mismatch at that turn; nobody blamed for a conflict",
        k_res_conflict),
    Mut("K11-two-agents-one-square", "kakomimasu", "K19", "two agents of one player land on the same square, both res 0",
        "公式ルール 配置/移動: 同じマスに複数のエージェントを配置(移動)することもできません; 競合", "conflict should have been res 1",
        k_two_on_one),
    Mut("K12-final-tile-owner", "kakomimasu", "K22", "final field: one wall of player 0 credited to player 1",
        "公式ルール: 配置/移動したマスは自分チームの壁となります", "final board mismatch", k_final_tile),
    Mut("K13-put-already-placed", "kakomimasu", "K22", "a MOVE of a placed agent turned into a PUT (placing an already placed agent), res 0",
        "公式ルール 配置: 未配置のエージェントをフィールド内の任意のマスに配置する", "res 0 contradicts the rule", k_put_placed),
]

# ----------------------------------------------------------------------------------------------
# CHaser
# ----------------------------------------------------------------------------------------------

C_FIX = {n: f"chaser/games/log[{n}].txt" for n in (
    "20261122045541", "20261122045617", "20261122045634", "20261122045659", "20261122045707",
    "20261122045726", "20261122045744", "20261122045801", "20261122045821", "20261122045903",
    "20261122045958", "20261122050156")}


class CLog:
    def __init__(self, key):
        self.data = (FIX / C_FIX[key]).read_bytes()
        self.lines = self.data.splitlines(keepends=True)
        self.T = None
        for ln in self.lines:
            s = ln.decode("utf-8", "replace").strip()
            if s.startswith("T:"):
                self.T = int(s[2:])
                break

    def s(self, i):
        return self.lines[i].decode("utf-8", "replace").rstrip("\r\n")

    def turn_at(self, i):
        import re
        for j in range(i, -1, -1):
            m = re.match(r"-----残(\d+)ターン-----", self.s(j))
            if m:
                return self.T - int(m.group(1)) + 1
        return 1

    def find(self, pred, start=0):
        for i in range(start, len(self.lines)):
            if pred(i, self.s(i)):
                return i
        raise NotApplicable

    def rfind(self, pred):
        for i in range(len(self.lines) - 1, -1, -1):
            if pred(i, self.s(i)):
                return i
        raise NotApplicable

    def out(self, lines, i, note="", at_end=False, guilty=()):
        return Built(b"".join(lines), i + 1, i + 1, None, turn=self.turn_at(min(i, len(self.lines) - 1)),
                     note=note, at_end=at_end, guilty=guilty)


def cl(key):
    k = "C" + key
    if k not in _cache:
        _cache[k] = CLog(key)
    return _cache[k]


def c_replace(key, pred, fn, start=0, rev=False, **kw):
    def build(_):
        c = cl(key)
        i = c.rfind(pred) if rev else c.find(pred, start)
        lines = list(c.lines)
        end = lines[i][len(lines[i].rstrip(b"\r\n")):]
        new = fn(c.s(i))
        lines[i] = new.encode("utf-8") + end
        return c.out(lines, i, note=f"{c.s(i)} -> {new}", **kw)
    return build


def c_delete(key, pred, start=0, rev=False, **kw):
    def build(_):
        c = cl(key)
        i = c.rfind(pred) if rev else c.find(pred, start)
        lines = c.lines[:i] + c.lines[i + 1:]
        return c.out(lines, i, note=f"removed: {c.s(i)}", **kw)
    return build


def c_dup(key, pred, start=0, **kw):
    def build(_):
        c = cl(key)
        i = c.find(pred, start)
        lines = c.lines[: i + 1] + [c.lines[i]] + c.lines[i + 1:]
        return c.out(lines, i + 1, note=f"duplicated: {c.s(i)}", **kw)
    return build


def c_swap(key, pred, start=0, **kw):
    def build(_):
        c = cl(key)
        i = c.find(pred, start)
        j = i + 2  # the other player's action line (action, status, action, status)
        lines = list(c.lines)
        lines[i], lines[i + 1], lines[j], lines[j + 1] = lines[j], lines[j + 1], lines[i], lines[i + 1]
        return c.out(lines, i, note=f"swapped action pairs: {c.s(i)} <-> {c.s(j)}", **kw)
    return build


def is_act(team=None):
    def p(i, s):
        return "[行動]" in s and (team is None or f"]{team}が" in s)
    return p


R_C_WIN = "ルール 1. 勝敗について (1)〜(6)"
C_GREEDY = "20261122045726"   # greedy vs walker, items 19:0 at time-up

CHASER_MUTS = [
    Mut("C01-item-count-changed", "chaser", C_GREEDY, "[得点] COOL items 19 → 18",
        "ルール 1(2): 既定のターン数を終了した時点でのアイテム数が多い", "item count mismatch with the replayed pickups",
        c_replace(C_GREEDY, lambda i, s: "[得点]" in s, lambda s: s.replace("COOL:19", "COOL:18"), rev=True, at_end=True)),
    Mut("C02-pickup-line-removed", "chaser", C_GREEDY, "a [取得] line removed (an item pickup not stated)",
        "ルール 4 / 1(2): アイテム数 (a walk onto an item takes it)", "missing pickup flagged at that turn",
        c_delete(C_GREEDY, lambda i, s: "[取得]" in s, 200)),
    Mut("C03-pickup-line-duplicated", "chaser", C_GREEDY, "a [取得] line duplicated", "ルール 1(2) アイテム数",
        "duplicate pickup flagged at that turn", c_dup(C_GREEDY, lambda i, s: "[取得]" in s, 300)),
    Mut("C04-action-line-removed", "chaser", "20261122045903", "a COOL [行動] line removed",
        "ルール 7: ターンとは Cool と Hot がそれぞれ命令を実行した時点で 1 ターン", "missing action flagged at that turn",
        c_delete("20261122045903", is_act("COOL"), 150)),
    Mut("C05-status-line-removed", "chaser", "20261122045903", "a HOT status line (HOT:1xxxxxxxxx) removed",
        "ルール 7 (each action answers with the 3×3 surroundings)", "missing status line flagged at that turn",
        c_delete("20261122045903", lambda i, s: s.startswith("[") and "]HOT:1" in s, 200)),
    Mut("C06-action-line-duplicated", "chaser", "20261122045903", "a COOL action+status pair's action line duplicated (COOL acts twice)",
        "ルール 7: Cool 100 命令 Hot 100 命令", "double action flagged at that turn", c_dup("20261122045903", is_act("COOL"), 250)),
    Mut("C07-action-pairs-swapped", "chaser", "20261122045903", "HOT's action pair written before COOL's in one turn",
        "README: Cool acts first, then Hot; ルール 7", "order violation flagged at that turn", c_swap("20261122045903", is_act("COOL"), 300)),
    Mut("C08-action-wrong-player", "chaser", "20261122045903", "a COOL [行動] line attributed to HOT",
        "ルール 7: Cool と Hot がそれぞれ命令を実行", "wrong actor flagged at that turn",
        c_replace("20261122045903", is_act("COOL"), lambda s: s.replace("]COOLが", "]HOTが"), 350)),
    Mut("C09-surrounded-not-stated", "chaser", "20261122045617", "[死因]COOLブロック囲まれ removed (surrounded, death not stated)",
        "ルール 1(3): 対戦相手の上下左右 4 方向をブロックで囲う", "unstated death flagged at the end",
        c_delete("20261122045617", lambda i, s: "[死因]" in s, at_end=True)),
    Mut("C10-blocked-not-stated", "chaser", "20261122045541", "[死因]COOLブロック下敷き removed (walked into a block, death not stated)",
        "ルール 1(4): 対戦相手がブロックのマスに移動する", "unstated death flagged at the end",
        c_delete("20261122045541", lambda i, s: "[死因]" in s, at_end=True)),
    Mut("C11-put-death-not-stated", "chaser", "20261122045958", "[死因]HOTブロック下敷き removed (opponent put a block, death not stated)",
        "ルール 1(1): 対戦相手の上にブロックを置く", "unstated death flagged at the end",
        c_delete("20261122045958", lambda i, s: "[死因]" in s, at_end=True)),
    Mut("C12-winner-changed", "chaser", C_GREEDY, "[決着]COOLが勝利 → HOTが勝利 at 19:0",
        "ルール 1(2): アイテム数が多い (方が勝利)", "result mismatch at the end",
        c_replace(C_GREEDY, lambda i, s: "[決着]" in s, lambda s: s.replace("COOLが", "HOTが"), rev=True, at_end=True)),
    Mut("C13-surroundings-changed", "chaser", "20261122045903", "a COOL status line's 3×3 cell 2 (block) turned to 0",
        "README: status = the 3×3 cells around that player after the action", "surroundings mismatch at that turn",
        c_replace("20261122045903", lambda i, s: "]COOL:1" in s and s[-9:].count("2") > 0,
                  lambda s: s[:-9] + s[-9:].replace("2", "0", 1), 400)),
    Mut("C14-walk-direction-changed", "chaser", "20261122045903", "a COOL WalkDown changed to WalkUp (position diverges)",
        "ルール 7 (the walk moves the player one cell in that direction)", "position/surroundings mismatch at that turn",
        c_replace("20261122045903", lambda i, s: "]COOLがWalkDown" in s, lambda s: s.replace("WalkDown", "WalkUp"), 100)),
    Mut("C15-game-over-flag", "chaser", "20261122045903", "a mid-game status line with continue flag 0",
        "README: first digit 1 = game continues, 0 = game over", "premature game-over flagged at that turn",
        c_replace("20261122045903", lambda i, s: "]HOT:1" in s, lambda s: s.replace("HOT:1", "HOT:0", 1), 500)),
]

ALL_MUTS = ALGORI_MUTS + KAKO_MUTS + CHASER_MUTS

# The specific check each rule names (digest §6 ids, and Kifu's code where it names the same check).
# "caught" = a relevant finding at the right place; "precise" = one of these codes among them.
_MULT = ("conservation", "card-multiplicity", "draw-from-pile")
_FACE = ("card-face", "card-object-valid", "card-face-invalid", "impossible-card") + _MULT
_PEN = ("penalty-justified", "penalty-unjustified")
_TO = ("timeout-effects", "timeout-early") + _PEN
_SEQ = ("event-sequence",)
_KRES = ("kakomimasu-result-code",)
PRECISE = {
    "A01": _MULT, "A02": ("deal-and-first-card",), "A03": ("deal-and-first-card",), "A04": ("voluntary-draw",),
    "A05": ("voluntary-draw",), "A06": _MULT, "A07": _FACE, "A08": _FACE, "A09": ("forced-draw-amount",),
    "A10": ("penalty-count",), "A11": ("penalty-count",), "A12": _MULT, "A13": ("challenge-outcome",),
    "A14": ("challenge-verdict",), "A15": ("shuffle-redistribution",), "A16": _PEN, "A17": _TO, "A18": _TO,
    "A19": _TO, "A20": ("penalty-cause",) + _PEN, "A21": ("uno-pointing-outcome",) + _PEN, "A22": _SEQ,
    "A23": ("next-seat",), "A24": ("next-player-contents",), "A25": ("next-player-contents",),
    "A26": ("next-player-contents",), "A27": ("next-player-contents",), "A28": ("next-player-contents",),
    "A29": ("next-player-contents",), "A30": ("draw-reason", "next-player-contents"), "A31": ("cards-played-counter",),
    "A32": ("turn-counter",), "A33": ("next-player-contents",), "A42": _SEQ, "A43": _SEQ, "A44": _SEQ,
    "A45": ("missing-penalty",) + _PEN, "A46": _SEQ, "A47": _SEQ, "A48": _SEQ, "A49": _SEQ, "A50": _SEQ, "A51": _SEQ,
    "A53": ("round-score",), "A54": ("match-result",),
    "K01": ("kakomimasu-onto-opponent-wall",) + _KRES, "K02": ("kakomimasu-put-onto-opponent-wall",
                                                               "kakomimasu-forbidden-action-accepted") + _KRES,
    "K03": ("kakomimasu-illegal-action",) + _KRES, "K04": ("kakomimasu-illegal-action",) + _KRES,
    "K05": ("kakomimasu-points",) + _KRES, "K06": ("kakomimasu-illegal-action",) + _KRES,
    "K07": ("kakomimasu-points",), "K08": ("kakomimasu-final-points",), "K09": ("kakomimasu-points",) + _KRES,
    "K10": _KRES, "K11": ("kakomimasu-conflict",) + _KRES, "K12": ("kakomimasu-final-tiles",),
    "K13": ("kakomimasu-illegal-action",) + _KRES,
    "C01": ("chaser-final-items",), "C02": ("chaser-item-taken",), "C03": ("chaser-item-taken",),
    "C09": ("chaser-end",), "C10": ("chaser-end",), "C11": ("chaser-end",), "C12": ("chaser-winner",),
    "C13": ("chaser-surroundings",), "C14": ("chaser-surroundings", "chaser-position"),
    "C15": ("chaser-surroundings", "chaser-game-over"),
}
# C04–C08: any specific finding counts, but "the log is truncated here" alone does not
IMPRECISE = {k: ("chaser-truncated",) for k in ("C04", "C05", "C06", "C07", "C08", "C03")}
for _m in ALL_MUTS:
    if not _m.precise_codes and _m.id[:3] in PRECISE:
        _m.precise_codes = PRECISE[_m.id[:3]]

# ----------------------------------------------------------------------------------------------
# Running Kifu
# ----------------------------------------------------------------------------------------------


def fixture_path(m: Mut) -> Path:
    if m.game == "algori":
        return FIX / A_FIX[m.fixture]
    if m.game == "kakomimasu":
        return FIX / K_FIX[m.fixture]
    return FIX / C_FIX[m.fixture]


def suffix(m: Mut) -> str:
    return {"algori": ".jsonl", "kakomimasu": ".json", "chaser": ".txt"}[m.game]


class Runner:
    def __init__(self, kifu_root: Path, work: Path, jobs: int):
        self.root = kifu_root
        self.work = work
        self.jobs = jobs
        self.baselines: dict = {}

    def kifu(self, *args, timeout=600):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.root)
        t0 = time.time()
        p = subprocess.run([str(PY), "-m", "kifu.cli", *args], cwd=self.root, env=env,
                           capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.time() - t0

    def run(self, src: Path, tag: str):
        db = self.work / f"{tag}.duckdb"
        for f in (db, Path(str(db) + ".wal")):
            if f.exists():
                f.unlink()
        res = {"ingest_rc": None, "validate_rc": None, "crash": None, "findings": [], "load_issues": []}
        try:
            rc, out, err, dt = self.kifu("ingest", str(src), "--db", str(db), "--no-progress", "--jobs", str(self.jobs))
        except subprocess.TimeoutExpired:
            res["crash"] = "ingest timeout"
            return res
        res["ingest_rc"], res["ingest_s"] = rc, round(dt, 2)
        res["ingest_out"] = (out + err)[-1500:]
        if rc != 0 or "Traceback" in err:
            tb = [ln for ln in err.strip().splitlines() if ln.strip()]
            res["crash"] = f"ingest rc={rc}: " + (tb[-1] if tb else out.strip()[-300:])
        if db.exists():
            try:
                rc2, out2, err2, _ = self.kifu("validate", "--db", str(db), "--format", "json", timeout=300)
                res["validate_rc"] = rc2
                if rc2 != 0 or "Traceback" in err2:
                    tb = [ln for ln in err2.strip().splitlines() if ln.strip()]
                    res["crash"] = (res["crash"] + "; " if res["crash"] else "") + f"validate rc={rc2}: " + (tb[-1] if tb else "")
                else:
                    try:
                        json.loads(out2)
                    except ValueError as e:
                        res["crash"] = (res["crash"] + "; " if res["crash"] else "") + f"validate json unparsable: {e}"
            except subprocess.TimeoutExpired:
                res["crash"] = (res["crash"] or "") + " validate timeout"
            res["findings"], res["load_issues"] = read_db(db)
            db.unlink(missing_ok=True)
        return res

    def baseline(self, m: Mut):
        key = (m.game, m.fixture)
        if key not in self.baselines:
            src = fixture_path(m)
            if m.game == "algori":  # same form as the mutants: plain jsonl
                dst = self.work / f"base-{m.fixture}{suffix(m)}"
                with gzip.open(src, "rb") as fh:
                    dst.write_bytes(fh.read())
                src = dst
            else:
                dst = self.work / f"base-{m.fixture}{suffix(m)}"
                shutil.copyfile(src, dst)
                src = dst
            self.baselines[key] = self.run(src, f"base-{m.fixture}")
        return self.baselines[key]


def read_db(db: Path):
    import duckdb
    con = duckdb.connect(str(db), read_only=True)
    f = con.execute("select round_no, turn_no, seq, player, code, family, severity, message, penalty_seq "
                    "from violations").fetchall()
    cols = ["round_no", "turn_no", "seq", "player", "code", "family", "severity", "message", "penalty_seq"]
    findings = [dict(zip(cols, r)) for r in f]
    # ALGORI: seq -> file line
    try:
        lines = dict(con.execute("select seq, line from raw_activities").fetchall())
    except Exception:
        lines = {}
    for x in findings:
        x["line"] = lines.get(x["seq"]) if x["seq"] is not None else None
    li = [dict(zip(["line", "reason"], r)) for r in con.execute("select line, reason from load_issues").fetchall()]
    con.close()
    return findings, li


# ----------------------------------------------------------------------------------------------
# Comparison
# ----------------------------------------------------------------------------------------------


def fkey(game, x, mapping):
    if game == "algori":
        ln = x.get("line")
        if mapping is not None and ln is not None:
            ln = mapping.get(ln, None)
        return (x["code"], x["player"], ln, x["message"] if ln is None else None)
    return (x["code"], x["player"], x["turn_no"], x["message"])


def compare(m: Mut, b: Built, base, mut):
    res = {}
    bkeys = Counter(fkey(m.game, x, None) for x in base["findings"])
    new = []
    for x in mut["findings"]:
        k = fkey(m.game, x, b.map_to_orig)
        if bkeys[k] > 0:
            bkeys[k] -= 1
        else:
            new.append(x)
    gone = sum(bkeys.values())
    blines = Counter((li["reason"],) for li in base["load_issues"])
    new_li = []
    for li in mut["load_issues"]:
        if blines[(li["reason"],)] > 0:
            blines[(li["reason"],)] -= 1
        else:
            new_li.append(li)

    if m.game == "algori":
        lo, hi = b.line - 1, b.line_end + 3

        def near(x):
            ln = x.get("line")
            if ln is None:
                return b.at_end or (x.get("round_no") == b.round and x.get("seq") is None)
            return lo <= ln <= hi

        def after(x):
            ln = x.get("line")
            return ln is not None and ln > hi and (b.round is None or x.get("round_no") == b.round)
    else:
        t = b.turn

        def near(x):
            tn = x.get("turn_no")
            if tn is None:
                return b.at_end
            return t - 1 <= tn <= t + 1 or (b.at_end and tn >= t - 1)

        def after(x):
            tn = x.get("turn_no")
            return tn is not None and tn > t + 1

    near_new = [x for x in new if near(x)]
    after_new = [x for x in new if not near(x) and after(x)]
    elsewhere = [x for x in new if not near(x) and not after(x)]
    near_li = [li for li in new_li if m.game != "algori" or li["line"] is None or b.line - 1 <= li["line"] <= b.line_end + 3]
    guilty = set(b.guilty) | set(m.guilty)

    if m.expect_none:
        caught = not [x for x in new if x["family"] in ("player-rule", "dealer-judgement")] and not after_new
    elif m.expect_player_rule:
        caught = any(x["family"] == "player-rule" and x["player"] in guilty and x["severity"] in ("error", "warning", "info")
                     and (not m.expect_codes or x["code"] in m.expect_codes) for x in near_new)
    else:
        caught = bool(near_new or near_li) if not m.expect_codes else any(x["code"] in m.expect_codes for x in near_new)
    innocent = [x for x in new if x["family"] == "player-rule" and x["severity"] in ("error", "warning")
                and x["player"] and x["player"] not in guilty]
    forbidden = []
    for (pl, code) in b.forbid:
        forbidden += [x for x in mut["findings"] if x["player"] == pl and x["code"] == code
                      and (near(x) or x in new)]
    # de-duplicate (a forbidden finding may already be in `innocent`)
    blamed = innocent + [x for x in forbidden if x not in innocent]
    pc = set(m.precise_codes) or set(m.expect_codes)
    imp = set(IMPRECISE.get(m.id[:3], ()))
    precise = bool(caught) and any((not pc or x["code"] in pc) and x["code"] not in imp for x in near_new) \
        if not m.expect_none else bool(caught)
    res.update(
        caught=bool(caught),
        precise=precise,
        near=[short(x) for x in near_new][:12],
        near_load_issues=near_li[:5],
        new_load_issues=len(new_li),
        follow_on=len(after_new),
        follow_on_sample=[short(x) for x in after_new][:6],
        elsewhere_new=len(elsewhere),
        elsewhere_sample=[short(x) for x in elsewhere][:4],
        baseline_findings_gone=gone,
        innocent_blamed=bool(blamed),
        innocent=[short(x) for x in blamed][:8],
        crash=mut.get("crash"),
    )
    return res


def short(x):
    loc = f"L{x['line']}" if x.get("line") is not None else (f"t{x['turn_no']}" if x.get("turn_no") is not None else "-")
    return f"{loc} {x['code']}/{x['family']}/{x['severity']}/{x['player']}: {str(x['message'])[:120]}"


# ----------------------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------------------


def snapshot(root: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for pkg in ("kifu", "rules", "loaders", "queries", "app"):
        shutil.copytree(root / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("pyproject.toml",):
        if (root / f).exists():
            shutil.copy(root / f, dest / f)
    if (root / "samples").exists():
        shutil.copytree(root / "samples", dest / "samples")
    return dest


def git_head(root: Path):
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    except Exception:
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", choices=["algori", "kakomimasu", "chaser"], help="only this game")
    ap.add_argument("--only", help="comma-separated mutation ids (prefix match)")
    ap.add_argument("--out", default="/tmp/audit.json")
    ap.add_argument("--kifu-root", default=str(MAIN), help="checkout whose kifu/rules/loaders are run")
    ap.add_argument("--snapshot", action="store_true",
                    help="copy the Kifu packages to a temp dir first, so edits made during the run do not mix in")
    ap.add_argument("--jobs", type=int, default=2, help="--jobs passed to kifu ingest")
    ap.add_argument("--keep", action="store_true", help="keep the mutant files (in the work dir)")
    ap.add_argument("--list", action="store_true", help="list the mutations and exit")
    a = ap.parse_args(argv)

    muts = [m for m in ALL_MUTS if (not a.game or m.game == a.game)]
    if a.only:
        pre = a.only.split(",")
        muts = [m for m in muts if any(m.id.startswith(p) for p in pre)]
    if a.list:
        for m in muts:
            print(f"{m.id:32} {m.game:10} {m.fixture:16} {m.desc}")
        return 0

    work = Path(tempfile.mkdtemp(prefix="kifu-audit-", dir="/tmp"))
    root = Path(a.kifu_root).resolve()
    head = git_head(root)
    if a.snapshot:
        root = snapshot(root, work / "kifu-snapshot")
    runner = Runner(root, work, a.jobs)
    started = time.time()
    results = []
    for m in muts:
        r = {"id": m.id, "game": m.game, "fixture": fixture_path(m).relative_to(MAIN).as_posix(), "desc": m.desc,
             "rule": m.rule, "expect": m.expect, "expect_codes": list(m.expect_codes)}
        try:
            b = m.build(None)
        except NotApplicable as e:
            r.update(status="not-applicable", error=str(e))
            results.append(r)
            print(f"{m.id:32} NOT APPLICABLE {e}", flush=True)
            continue
        r.update(line=b.line, line_end=b.line_end, round=b.round, turn=b.turn, note=b.note,
                 guilty=sorted(set(b.guilty) | set(m.guilty)), forbid=[list(x) for x in b.forbid])
        base = runner.baseline(m)
        r["baseline_crash"] = base.get("crash")
        mpath = work / f"{m.id}{suffix(m)}"
        mpath.write_bytes(b.data)
        mut = runner.run(mpath, m.id)
        if not a.keep:
            mpath.unlink(missing_ok=True)
        r.update(compare(m, b, base, mut))
        r["ingest_s"] = mut.get("ingest_s")
        r["status"] = "ran"
        results.append(r)
        flag = ("CAUGHT" if r["caught"] else "MISSED") + (" INNOCENT" if r["innocent_blamed"] else "") + \
               (" CRASH" if r["crash"] else "")
        print(f"{m.id:32} {flag:22} follow-on={r['follow_on']:<4} near={len(r['near'])} ({r['ingest_s']}s)", flush=True)

    summary = summarize(results)
    out = {"kifu_root": str(a.kifu_root), "git_head": head, "snapshot": bool(a.snapshot),
           "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)), "seconds": round(time.time() - started, 1),
           "baselines": {f"{g}:{f}": {"crash": v.get("crash"), "findings": len(v["findings"]),
                                      "load_issues": len(v["load_issues"])} for (g, f), v in runner.baselines.items()},
           "summary": summary, "results": results}
    Path(a.out).write_text(json.dumps(out, ensure_ascii=False, indent=1, default=str))
    print_table(results, summary)
    print(f"\nresults: {a.out}  (work dir {work})")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def summarize(results):
    s = {}
    for g in ("algori", "kakomimasu", "chaser"):
        rs = [r for r in results if r["game"] == g and r.get("status") == "ran"]
        if not rs:
            continue
        fo = [r["follow_on"] for r in rs]
        s[g] = {"mutations": len(rs), "caught": sum(r["caught"] for r in rs),
                "caught_precisely": sum(r.get("precise", False) for r in rs), "missed": sum(not r["caught"] for r in rs),
                "innocent_blamed": sum(r["innocent_blamed"] for r in rs), "crashes": sum(bool(r["crash"]) for r in rs),
                "median_follow_on": statistics.median(fo), "max_follow_on": max(fo),
                "not_applicable": sum(1 for r in results if r["game"] == g and r.get("status") == "not-applicable")}
    return s


def print_table(results, summary):
    print()
    print(f"{'id':32} {'caught':6} {'prec':4} {'innoc':5} {'crash':5} {'f-on':>4}  findings at/near the change")
    for r in results:
        if r.get("status") != "ran":
            print(f"{r['id']:32} n/a    {r.get('error', '')}")
            continue
        near = r["near"][0] if r["near"] else (f"load_issue {r['near_load_issues'][0]}" if r["near_load_issues"] else "—")
        print(f"{r['id']:32} {'yes' if r['caught'] else 'NO':6} {'yes' if r['precise'] else 'no':4} {'YES' if r['innocent_blamed'] else '-':5} "
              f"{'YES' if r['crash'] else '-':5} {r['follow_on']:>4}  {near[:110]}")
    print()
    for g, v in summary.items():
        print(f"{g:11} mutations={v['mutations']} caught={v['caught']} (precisely={v['caught_precisely']}) missed={v['missed']} "
              f"innocent-blamed={v['innocent_blamed']} crashes={v['crashes']} "
              f"follow-on median={v['median_follow_on']} max={v['max_follow_on']}")


if __name__ == "__main__":
    sys.exit(main())
