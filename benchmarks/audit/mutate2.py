#!/usr/bin/env python3
"""Second mutation audit of Kifu's validators (ALGORI UNO, Kakomimasu, CHaser).

New single-change mutations derived from the rules texts (../shared/seeds, ../shared/reference)
that the first set (mutate.py, A01-A54, K01-K13, C01-C15) did not cover. IDs continue the
numbering: A55.., K14.., C16... The machinery (ingest with `python -m kifu.cli ingest`, read
`violations` / `load_issues`, compare with the unmutated baseline, classify) is reused from
mutate.py unchanged.

Usage:  .venv/bin/python benchmarks/audit/mutate2.py [--game algori|kakomimasu|chaser]
            [--out /tmp/audit2.json] [--only ID[,ID...]] [--snapshot] [--list]
"""
from __future__ import annotations

import copy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import mutate as M  # noqa: E402
from mutate import (Built, Mut, NotApplicable, a_replace, aload, dumps,  # noqa: E402
                    players_of, playable, WILDS)

# ----------------------------------------------------------------------------------------------
# ALGORI helpers
# ----------------------------------------------------------------------------------------------


def seat_next(order, p, right):
    i = order.index(p)
    return order[(i + 1) % 4] if right else order[(i + 3) % 4]


def err_text(d):
    e = d["contents"].get("error")
    return e.get("message") if isinstance(e, dict) else e


def _challenge(log, success, start=0):
    return log.find(lambda i, d: d["event"] == "challenge" and d["contents"].get("is_challenge") is True
                    and d["contents"]["result"]["is_challenge_success"] is success, start)


def _challenged_player(log, i):
    """the WD4 player (public-card right before a challenge names it)."""
    for j in range(i - 1, max(i - 6, 0), -1):
        if log.ev(j) == "public-card":
            return log.p(j)["contents"]["player"]
    raise NotApplicable("no public-card before the challenge")


# ---- challenge outcomes -----------------------------------------------------------------------

def m_chal_success_wrong_player(_):
    log = aload("MB")
    i = _challenge(log, True, 1000)
    d = copy.deepcopy(log.p(i))
    wd4p = d["contents"]["result"]["player"]
    chal = d["player"]
    d["contents"]["result"]["player"] = chal
    return a_replace(log, i, d, note=f"success: WD4+4 credited to challenger {chal} instead of {wd4p}")


def m_chal_fail_5(_):
    log = aload("MB")
    i = _challenge(log, False, 1000)
    d = copy.deepcopy(log.p(i))
    gone = d["contents"]["result"]["cards_receive"].pop()
    return a_replace(log, i, d, note=f"failed challenge: 5 cards instead of 6 ({gone} dropped)")


def m_chal_fail_wrong_player(_):
    log = aload("MS")
    i = _challenge(log, False, 3000)
    d = copy.deepcopy(log.p(i))
    chal = d["contents"]["result"]["player"]
    wd4p = _challenged_player(log, i)
    d["contents"]["result"]["player"] = wd4p
    return a_replace(log, i, d, note=f"failed challenge: 6 cards credited to WD4 player {wd4p} instead of challenger {chal}")


# ---- forced draws -----------------------------------------------------------------------------

def m_wd4_draw_3(_):
    log = aload("MB")
    i = log.find(lambda i, d: d["event"] == "draw-card" and d["contents"].get("draw_reason") == "wild_draw_4"
                 and len(d["contents"]["card_draw"]) == 4, 500)
    d = copy.deepcopy(log.p(i))
    gone = d["contents"]["card_draw"].pop()
    return a_replace(log, i, d, note=f"forced WD4 draw takes 3 cards ({gone} dropped)")


def m_draw_same_card_twice(_):
    log = aload("MS")

    def pred(i, d):
        if d["event"] != "draw-card" or d["contents"].get("draw_reason") != "wild_draw_4":
            return False
        cd = d["contents"]["card_draw"]
        return len(cd) == 4 and cd[0] != cd[1]
    i = log.find(pred, 2000)
    d = copy.deepcopy(log.p(i))
    old = d["contents"]["card_draw"][1]
    d["contents"]["card_draw"][1] = dict(d["contents"]["card_draw"][0])
    return a_replace(log, i, d, note=f"forced WD4 draw: 2nd card {old} -> same card as 1st {d['contents']['card_draw'][0]}")


def m_bind_draw_2(_):
    log = aload("DM")
    i = log.find(lambda i, d: d["event"] == "draw-card" and d["contents"].get("draw_reason") == "bind_2"
                 and len(d["contents"]["card_draw"]) == 1, 300)
    d = copy.deepcopy(log.p(i))
    c0 = d["contents"]["card_draw"][0]
    extra = {"color": "yellow", "number": 7} if c0 != {"color": "yellow", "number": 7} else {"color": "blue", "number": 7}
    d["contents"]["card_draw"].append(extra)
    return a_replace(log, i, d, note=f"bind_2 turn draws 2 cards (+{extra})")


def m_bind_turn_played(_):
    """second bound turn: next-player draw_reason 'nothing' + must_call true (digest §3.7 quirk)."""
    log = aload("DM")

    def pred(i, d):
        if d["event"] != "draw-card" or d["contents"].get("draw_reason") != "bind_2" or len(d["contents"]["card_draw"]) != 1:
            return False
        np = log.p(i - 1)
        if np["event"] != "next-player" or np["contents"]["next_player"] != d["player"]:
            return False
        c = np["contents"]
        if not (c["must_call_draw_card"] and c["draw_reason"] == "nothing") or len(c["card_of_player"]) < 3:
            return False
        if log.ev(i + 1) != "next-player":
            return False
        return any(playable(x, c["card_before"]) and x.get("color") not in WILDS for x in c["card_of_player"])
    i = log.find(pred, 100)
    ctx = log.p(i - 1)["contents"]
    actor = ctx["next_player"]
    card = next(x for x in ctx["card_of_player"] if playable(x, ctx["card_before"]) and x.get("color") not in WILDS)
    d = copy.deepcopy(log.p(i))
    d["event"] = "play-card"
    d["contents"] = {"card_play": card, "number_turn_play": ctx["number_turn_play"],
                     "next_player": log.p(i + 1)["contents"]["next_player"], "yell_uno": False}
    return a_replace(log, i, d, guilty=(actor,), note=f"2nd bind_2 turn: forced 1-card draw replaced by play of {card}")


def m_wd4_reason(_):
    log = aload("MB")
    i = log.find(lambda i, d: d["event"] == "draw-card" and d["contents"].get("draw_reason") == "wild_draw_4"
                 and len(d["contents"]["card_draw"]) == 4, 2500)
    d = copy.deepcopy(log.p(i))
    d["contents"]["draw_reason"] = "draw_2"
    return a_replace(log, i, d, note="forced WD4 draw (4 cards) labelled draw_reason draw_2")


def m_voluntary_canplay_false(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "draw-card" and d["contents"].get("draw_reason") == "nothing"
                 and d["contents"].get("can_play_draw_card") is True and log.ev(i + 1) == "play-draw-card", 20)
    d = copy.deepcopy(log.p(i))
    d["contents"]["can_play_draw_card"] = False
    return a_replace(log, i, d, forbid=((d["player"], "play-draw-allowed"),),
                     note=f"drawn {d['contents']['card_draw']} is playable, logged can_play_draw_card false; play-draw-card follows")


# ---- colour echo, special logic ----------------------------------------------------------------

def m_wild_echo_colour(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "color-of-wild" and d["player"]
                 and log.ev(i - 1) == "play-card" and log.p(i - 1)["contents"]["card_play"].get("special") in ("wild", "wild_draw_4"))
    d = copy.deepcopy(log.p(i))
    old = d["contents"]["color_of_wild"]
    new = "green" if old != "green" else "yellow"
    d["contents"]["color_of_wild"] = new
    return a_replace(log, i, d, note=f"dealer color-of-wild echo {old} -> {new} (play-card chose {old})")


def m_sl_emoji(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "special-logic" and log.ev(i + 1) != "penalty")
    d = copy.deepcopy(log.p(i))
    d["contents"]["title"] = "\U0001F600" * 20
    return a_replace(log, i, d, guilty=(d["player"],),
                     note="accepted title = 20 emoji: 20 characters but 40 JS string units (> 32), no penalty")


def m_sl_zenkaku32(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "special-logic" and log.ev(i + 1) != "penalty")
    d = copy.deepcopy(log.p(i))
    d["contents"]["title"] = "あ" * 32
    return a_replace(log, i, d, note="control: accepted title of exactly 32 全角 characters (32 JS units)")


# ---- shuffle-wild ------------------------------------------------------------------------------

def m_shuffle_unbalanced(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "shuffle-wild")
    d = copy.deepcopy(log.p(i))
    cr = d["contents"]["cards_receive"]
    sizes = {p: len(h) for p, h in cr.items() if h}
    a = max(sizes, key=lambda p: (sizes[p], p))
    b = min(sizes, key=lambda p: (sizes[p], p))
    if sizes[a] - sizes[b] > 1:
        raise NotApplicable
    # move a card from a smallest to a largest hand: sizes then differ by 2-3
    card = cr[b].pop()
    cr[a].append(card)
    dh = d["desk"]["card_of_player"]
    k = next(k for k, c in enumerate(dh[b]) if c == card)
    dh[b].pop(k)
    dh[a].append(card)
    return a_replace(log, i, d, note=f"shuffle: {card} moved from {b} to {a} (contents and desk): sizes differ by {sizes[a] + 1 - (sizes[b] - 1)}")


# ---- finish-turn / finish-game -------------------------------------------------------------------

def m_total_score(_):
    log = aload("MB")
    i = log.find(lambda i, d: d["event"] == "finish-turn", 1500)
    d = copy.deepcopy(log.p(i))
    k = sorted(d["contents"]["total_score"])[0]
    d["contents"]["total_score"][k] += 10
    return a_replace(log, i, d, at_end=True, note=f"finish-turn total_score of {k} +10 (round score unchanged)")


def m_round_winner(_):
    log = aload("MB")
    i = log.find(lambda i, d: d["event"] == "finish-turn" and "winner" in d["contents"], 800)
    d = copy.deepcopy(log.p(i))
    w = d["contents"]["winner"]
    other = sorted(p for p in d["contents"]["score"] if p != w)[0]
    d["contents"]["winner"] = other
    return a_replace(log, i, d, at_end=True, forbid=((other, "round-end-win"),),
                     note=f"finish-turn winner {w} (0 cards) -> {other} (holds {len(d['contents']['card_of_player'][other])})")


def m_game_order(_):
    log = aload("MB")
    i = log.find(lambda i, d: d["event"] == "finish-game")
    d = copy.deepcopy(log.p(i))
    k = sorted(d["contents"]["order"])[-1]
    d["contents"]["order"][k] += 1
    b = a_replace(log, i, d, at_end=True, note=f"finish-game order (wins) of {k} +1")
    b.round = None
    return b


def m_game_totals(_):
    log = aload("MS")
    i = log.find(lambda i, d: d["event"] == "finish-game")
    d = copy.deepcopy(log.p(i))
    k = sorted(d["contents"]["score"])[0]
    d["contents"]["score"][k] -= 10
    b = a_replace(log, i, d, at_end=True, note=f"finish-game score (total) of {k} -10")
    b.round = None
    return b


def m_finish_hands(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "finish-turn" and "winner" in d["contents"])
    d = copy.deepcopy(log.p(i))
    w = d["contents"]["winner"]
    loser = next(p for p in sorted(d["contents"]["card_of_player"]) if p != w and d["contents"]["card_of_player"][p])
    card = d["contents"]["card_of_player"][loser].pop()
    d["contents"]["card_of_player"][w].append(card)
    return a_replace(log, i, d, at_end=True, note=f"finish-turn card_of_player: {card} moved from {loser} to winner {w}")


def m_exhaustion_winner(_):
    log = aload("DK")
    i = log.find(lambda i, d: d["event"] == "finish-turn" and "winner" not in d["contents"])
    d = copy.deepcopy(log.p(i))
    hands = d["contents"]["card_of_player"]
    w = min(sorted(hands), key=lambda p: len(hands[p]))
    d["contents"]["winner"] = w
    return a_replace(log, i, d, at_end=True, forbid=((w, "round-end-win"),),
                     note=f"deck-exhaustion finish-turn given winner {w} ({len(hands[w])} cards)")


# ---- next-player / predicted seats ------------------------------------------------------------

def m_np_desk_move(_):
    log = aload("SL")

    def pred(i, d):
        if d["event"] != "next-player" or d["contents"]["number_turn_play"] < 6:
            return False
        nxt = d["contents"]["next_player"]
        others = [p for p in sorted(d["desk"]["card_of_player"]) if p != nxt]
        return len(d["desk"]["card_of_player"][others[0]]) >= 2
    i = log.find(pred, 150)
    d = copy.deepcopy(log.p(i))
    nxt = d["contents"]["next_player"]
    a, b = [p for p in sorted(d["desk"]["card_of_player"]) if p != nxt][:2]
    card = d["desk"]["card_of_player"][a].pop()
    d["desk"]["card_of_player"][b].append(card)
    return a_replace(log, i, d, note=f"next-player desk: {card} moved from {a} to {b} (neither is next)")


def _play_then_np(log, special, start):
    return log.find(lambda i, d: d["event"] == "play-card" and d["contents"]["card_play"].get("special") == special
                    and log.ev(i + 1) == "next-player" and log.p(i + 1)["contents"]["before_player"] == d["player"], start)


def m_reverse_ignored(_):
    log = aload("MB")
    i = _play_then_np(log, "reverse", 1200)
    d = copy.deepcopy(log.p(i + 1))
    order = players_of(log, i)
    actor = log.p(i)["player"]
    real = d["contents"]["next_player"]
    other = next(p for p in (seat_next(order, actor, True), seat_next(order, actor, False)) if p != real)
    d["contents"]["next_player"] = other
    b = a_replace(log, i + 1, d, forbid=((real, "turn-owner"),),
                  note=f"after {actor}'s reverse: next_player {real} -> {other} (old direction)")
    return b


def m_skip_ignored(_):
    log = aload("MB")
    i = _play_then_np(log, "skip", 1600)
    skipped = log.p(i)["contents"].get("skip_player")
    if not skipped:
        raise NotApplicable
    d = copy.deepcopy(log.p(i + 1))
    real = d["contents"]["next_player"]
    d["contents"]["next_player"] = skipped
    return a_replace(log, i + 1, d, forbid=((real, "turn-owner"),),
                     note=f"after {log.p(i)['player']}'s skip: next_player {real} -> skipped seat {skipped}")


def m_predicted_next(_):
    log = aload("SL")
    i = log.find(lambda i, d: d["event"] == "play-card" and "number" in d["contents"]["card_play"]
                 and log.ev(i + 1) == "next-player", 180)
    d = copy.deepcopy(log.p(i))
    order = players_of(log, i)
    real = d["contents"]["next_player"]
    other = next(p for p in order if p not in (real, d["player"]))
    d["contents"]["next_player"] = other
    return a_replace(log, i, d, note=f"play-card predicted next_player {real} -> {other}")


def m_first_shuffle(_):
    log = aload("MS")
    i = log.find(lambda i, d: d["event"] == "first-player" and d["turn"] >= 10)
    d = copy.deepcopy(log.p(i))
    old = d["contents"]["first_card"]
    d["contents"]["first_card"] = {"color": "black", "special": "wild_shuffle"}
    return a_replace(log, i, d, note=f"round {d['turn']} first card {old} -> wild_shuffle")


# ---- penalties, timeouts, UNO -----------------------------------------------------------------

def m_pen_cap24(_):
    log = aload("MS")
    i = log.find(lambda i, d: d["event"] == "penalty" and len(d["contents"]["cards_receive"]) == 1
                 and len(d["desk"]["card_of_player"][d["contents"]["player"]]) == 25)
    d = copy.deepcopy(log.p(i))
    c0 = d["contents"]["cards_receive"][0]
    extra = {"color": "red", "number": 3} if c0 != {"color": "red", "number": 3} else {"color": "green", "number": 3}
    d["contents"]["cards_receive"].append(extra)
    return a_replace(log, i, d, guilty=(d["contents"]["player"],),
                     note=f"penalty on a 24-card hand gives 2 cards (+{extra}); the cap allows 1")


def m_pen_over25(_):
    log = aload("MS")
    i = log.find(lambda i, d: d["event"] == "penalty" and len(d["contents"]["cards_receive"]) == 0
                 and err_text(d) != "timeout" and len(d["desk"]["card_of_player"][d["contents"]["player"]]) > 25)
    d = copy.deepcopy(log.p(i))
    d["contents"]["cards_receive"] = [{"color": "red", "number": 3}, {"color": "blue", "number": 8}]
    return a_replace(log, i, d, guilty=(d["contents"]["player"],),
                     note=f"penalty ({err_text(d)}) on a {len(d['desk']['card_of_player'][d['contents']['player']])}-card hand gives 2 cards; cap gives 0")


def _parse(s):
    from datetime import datetime, timezone
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if "." in s else "%Y-%m-%dT%H:%M:%SZ"
    return datetime.strptime(s, fmt).replace(tzinfo=timezone.utc)


def _date_ms(d):
    v = d["dateCreated"]
    if isinstance(v, dict):
        return int(_parse(v["$date"]).timestamp() * 1000)
    return int(v)


def bump_date(d, ms):
    """like mutate.bump_date, but also accepts '$date' values without milliseconds."""
    from datetime import timedelta
    d = copy.deepcopy(d)
    for k in ("dateCreated", "dateUpdated"):
        v = d.get(k)
        if isinstance(v, dict) and "$date" in v:
            t = _parse(v["$date"]) + timedelta(milliseconds=ms)
            v["$date"] = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
        elif isinstance(v, (int, float)):
            d[k] = v + ms
    return d


def _timeout(log, start=0):
    def pred(i, d):
        if d["event"] != "penalty" or err_text(d) != "timeout":
            return False
        return log.ev(i - 1) == "next-player" and log.p(i - 1)["contents"]["next_player"] == d["contents"]["player"]
    return log.find(pred, start)


def m_timeout_1s_early(_):
    log = aload("MB")
    i = _timeout(log)
    gap = _date_ms(log.p(i)) - _date_ms(log.p(i - 1))
    d = bump_date(log.p(i), -1000)
    off = d["contents"]["player"]
    return a_replace(log, i, d, forbid=((off, "response-time"),),
                     note=f"timeout penalty stamped 1 s earlier: gap since next-player {gap} -> {gap - 1000} ms")


def m_timeout_1s_late(_):
    log = aload("MB")
    i = _timeout(log)
    raw = log.raw[:i] + [dumps(bump_date(log.p(j), 1000)) for j in range(i, len(log))]
    gap = _date_ms(log.p(i)) - _date_ms(log.p(i - 1))
    return Built(b"\n".join(raw) + b"\n", i + 1, i + 1, None, round=log.p(i).get("turn"),
                 note=f"control: the timeout penalty and every later line 1 s later (gap {gap} -> {gap + 1000} ms)")


def m_uno_self_point_yelled(_):
    log = aload("MS")
    i = log.find(lambda i, d: d["event"] == "pointed-not-say-uno" and d["contents"].get("have_say_uno") is False
                 and log.ev(i + 1) == "penalty" and err_text(log.p(i + 1)) == "Did not say uno.")
    d = copy.deepcopy(log.p(i))
    d["contents"]["have_say_uno"] = True
    return a_replace(log, i, d, guilty=(d["contents"]["target"],),
                     note=f"pointing at {d['contents']['target']} logged have_say_uno true (target had not yelled); 'Did not say uno.' penalty kept")


def m_public_card_short(_):
    log = aload("MB")
    i = log.find(lambda i, d: d["event"] == "public-card" and len(d["contents"]["cards"]) >= 3, 800)
    d = copy.deepcopy(log.p(i))
    gone = d["contents"]["cards"].pop()
    return a_replace(log, i, d, note=f"public-card of {d['contents']['player']} misses {gone}")


R_CH = "R チャレンジルール: チャレンジ成功 → ワイルドドロー4を出したプレイヤーが4枚引く; 失敗 → チャレンジしたプレイヤーが6枚引く; digest #35"
R_CAP = "R ゲーム進行 / S §5(5): ペナルティとして2枚カードを引く (25 枚を手札の枚数上限として); digest #23 cards = min(2, 25 − hand); > 25 → empty list"
R_TO = "R ゲーム進行: 5秒以内に…しない場合はタイムアウト; digest #49 timeout-effects: gap since turn start ≥ 5 s (soft)"

ALGORI2 = [
    Mut("A55-chal-success-wrong-player", "algori", "MB", "successful challenge: WD4 + 4 cards credited to the challenger",
        R_CH, "challenge-outcome at the challenge line; challenger not blamed", m_chal_success_wrong_player,
        precise_codes=("challenge-outcome",)),
    Mut("A56-chal-fail-5-cards", "algori", "MB", "failed challenge: the challenger draws 5 cards instead of 6",
        R_CH, "challenge-outcome at the challenge line", m_chal_fail_5, precise_codes=("challenge-outcome",)),
    Mut("A57-chal-fail-wrong-player", "algori", "MS", "failed challenge: the 6 cards credited to the WD4 player",
        R_CH, "challenge-outcome at the challenge line; WD4 player not blamed", m_chal_fail_wrong_player,
        precise_codes=("challenge-outcome",)),
    Mut("A58-wd4-draw-3", "algori", "MB", "forced draw after a WD4 takes 3 cards", 
        "R ワイルドドロー4: 次のプレイヤーは4枚カードを引く; digest #26 WD4 → 4",
        "forced-draw-amount at the draw line; drawer not blamed", m_wd4_draw_3, precise_codes=("forced-draw-amount",)),
    Mut("A59-draw-same-card-twice", "algori", "MS", "forced WD4 draw lists the same card twice (the 2nd card replaced by the 1st)",
        "digest #57 draw-from-pile / #51 snapshot-hands (one physical card cannot be drawn twice)",
        "draw-from-pile / card accounting / snapshot at the draw line", m_draw_same_card_twice,
        precise_codes=("draw-from-pile", "card-multiplicity", "conservation", "snapshot-hands")),
    Mut("A60-bind-draw-2", "algori", "DM", "a bind_2 forced draw takes 2 cards instead of 1",
        "digest §3.7 / #26: bind turn → 1 card (or the pending amount if stacked); R 白いワイルドについて",
        "forced-draw-amount at the draw line", m_bind_draw_2, precise_codes=("forced-draw-amount",)),
    Mut("A61-bind-turn-played", "algori", "DM", "second bound turn (next-player draw_reason 'nothing', must_call true): the forced draw replaced by a legal play, unpenalised",
        "R 白いワイルド (bind 2): 2ターン…ドローしなければならない; digest §3.7 (bind counter, not next-player.draw_reason, decides); #2 owed-draw-respected",
        "owed-draw-respected on the bound player (+ missing penalty)", m_bind_turn_played,
        expect_codes=("owed-draw-respected",), expect_player_rule=True),
    Mut("A62-wild-echo-colour", "algori", "SL", "dealer color-of-wild echo after a wild names another colour than the play chose",
        "digest #60 echo-fields: `color-of-wild` dealer lines carry the chosen colour; #40 colour-resolution",
        "echo-fields / colour-resolution at the line; player not blamed", m_wild_echo_colour,
        precise_codes=("echo-fields", "colour-resolution")),
    Mut("A63-sl-emoji-title", "algori", "SL", "accepted special-logic title of 20 emoji (20 chars, 40 JS units), no penalty",
        "S §5(3)7 Special logic title too long.; digest §2.7/X16: > 32 characters counted in JavaScript string units",
        "special-logic-valid on the sender (the dealer would have penalised it)", m_sl_emoji,
        expect_codes=("special-logic-valid",), expect_player_rule=True),
    Mut("A64-sl-32-zenkaku", "algori", "SL", "control: accepted special-logic title of exactly 32 全角 characters",
        "R スペシャルロジックについて: 32文字 (全角) 以内; digest X16 (32 JS units)", "nothing new", m_sl_zenkaku32,
        expect_none=True),
    Mut("A65-shuffle-unbalanced", "algori", "SL", "shuffle-wild: one card moved from a smallest to a largest new hand (contents + desk)",
        "R シャッフルワイルド: 全員の手札を…配り直す; digest #39 sizes differ ≤ 1, extras at the front of the dealing order",
        "shuffle-redistribution at the shuffle-wild line", m_shuffle_unbalanced,
        precise_codes=("shuffle-redistribution", "shuffle-contents")),
    Mut("A66-total-score", "algori", "MB", "finish-turn: total_score of one player +10 (round score unchanged)",
        "digest #47 total-score: total_score = previous totals + round score", "total-score at the finish-turn",
        m_total_score, precise_codes=("total-score",)),
    Mut("A67-round-winner", "algori", "MB", "finish-turn: winner names a loser who still holds cards",
        "R ゲーム進行: 手札を最初に0枚にしたプレイヤーが勝者; digest #42 round-end-win", "round-end-win at the finish-turn",
        m_round_winner, precise_codes=("round-end-win", "round-score")),
    Mut("A68-game-order", "algori", "MB", "finish-game: order (win count) of one player +1",
        "digest #48 match-result: order = win counts", "match-result at finish-game", m_game_order,
        precise_codes=("match-result",)),
    Mut("A69-game-totals", "algori", "MS", "finish-game: score (total) of one player −10",
        "R 予選大会【得点の計算】; digest #48 match-result: score = totals", "match-result at finish-game", m_game_totals,
        precise_codes=("match-result",)),
    Mut("A70-np-desk-card-moved", "algori", "SL", "next-player: one card moved between two other players' hands in the desk snapshot",
        "digest #51 snapshot-hands: desk.card_of_player == replayed hands", "snapshot-hands at the line; nobody blamed",
        m_np_desk_move, precise_codes=("snapshot-hands",)),
    Mut("A71-penalty-cap-24", "algori", "MS", "penalty on a 24-card hand gives 2 cards (cap → 1)", R_CAP,
        "penalty-count at the penalty line", m_pen_cap24, precise_codes=("penalty-count",)),
    Mut("A72-penalty-over-25", "algori", "MS", "penalty on a > 25-card hand gives 2 cards (cap → empty list)", R_CAP,
        "penalty-count at the penalty line", m_pen_over25, precise_codes=("penalty-count",)),
    Mut("A73-timeout-1s-early", "algori", "MB", "timeout penalty stamped 1 s earlier (≈ 4 s after the turn began)", R_TO,
        "timeout-effects (soft, dealer) at the penalty; the player not blamed for response-time", m_timeout_1s_early,
        precise_codes=("timeout-effects", "timeout-early")),
    Mut("A74-timeout-1s-late", "algori", "MB", "control: timeout penalty and all later lines shifted 1 s later", R_TO,
        "nothing new (≥ 5 s still)", m_timeout_1s_late, expect_none=True),
    Mut("A75-uno-yelled-but-penalised", "algori", "MS", "self-pointing logged have_say_uno true, 'Did not say uno.' penalty kept",
        "R ゲーム進行: UNOと言わなかった場合…2枚; digest #37 uno-pointing-outcome (penalty iff not yelled), #38 uno-flags",
        "uno-pointing-outcome / uno-flags / penalty-justified at the lines", m_uno_self_point_yelled,
        precise_codes=("uno-pointing-outcome", "uno-flags", "penalty-justified")),
    Mut("A76-reverse-ignored", "algori", "MB", "after a reverse: next-player names the seat in the old direction",
        "R リバース: 順番が逆になる; digest #29 next-seat", "next-seat at the next-player; the real next player not blamed",
        m_reverse_ignored, precise_codes=("next-seat",)),
    Mut("A77-skip-ignored", "algori", "MB", "after a skip: next-player names the skipped seat",
        "R スキップ: 次のプレイヤーを飛ばす; digest #29 next-seat", "next-seat at the next-player; the real next player not blamed",
        m_skip_ignored, precise_codes=("next-seat",)),
    Mut("A78-predicted-next", "algori", "SL", "play-card contents.next_player names a wrong seat",
        "digest #30 predicted-next: play-card next_player equals the prediction rule", "predicted-next at the play line; player not blamed",
        m_predicted_next, precise_codes=("predicted-next",)),
    Mut("A79-first-card-shuffle", "algori", "MS", "round ≥ 10: first card is a wild_shuffle",
        "R 基本ルール: 最初の場札が…シャッフルワイルド…の場合は山札に戻し", "deal-and-first-card at the first-player",
        m_first_shuffle, precise_codes=("deal-and-first-card",)),
    Mut("A80-draw-canplay-false", "algori", "SL", "voluntary draw of a playable card logged can_play_draw_card false; its play-draw-card follows",
        "digest #27 voluntary-draw: can_play_draw_card == playability of that card", "voluntary-draw at the draw line; the player not blamed for play-draw",
        m_voluntary_canplay_false, precise_codes=("voluntary-draw",)),
    Mut("A81-wd4-reason-draw2", "algori", "MB", "forced WD4 draw (4 cards) labelled draw_reason draw_2",
        "S §5(1)6 / digest #28 draw-reason", "draw-reason at the draw line", m_wd4_reason, precise_codes=("draw-reason",)),
    Mut("A82-public-card-short", "algori", "MB", "public-card misses one card of the challenged hand",
        "S §5(4)7 / digest #36 public-card: cards == the challenged player's hand", "public-card at the line",
        m_public_card_short, precise_codes=("public-card",)),
    Mut("A83-finish-hands-winner-card", "algori", "SL", "finish-turn card_of_player: a loser's card moved into the winner's (empty) hand",
        "digest #63 finish-hands; #42 round-end-win (winner has 0 cards)", "finish-hands at the finish-turn",
        m_finish_hands, precise_codes=("finish-hands", "round-end-win", "round-score")),
    Mut("A84-exhaustion-winner", "algori", "DK", "deck-exhaustion finish-turn given a winner (fewest cards)",
        "R ゲーム進行: 場札が残り1枚となり山札が無くなった場合…勝者なし; digest #43, §5.2 (no winner key)",
        "round-end-exhaustion / round-end-win at the finish-turn", m_exhaustion_winner,
        precise_codes=("round-end-exhaustion", "round-end-win", "round-score")),
]

# ----------------------------------------------------------------------------------------------
# Kakomimasu
# ----------------------------------------------------------------------------------------------

K_FIX2 = {"K26": "kakomimasu/v1_games/game26_island-3.json"}
M.K_FIX.update(K_FIX2)
k_state, k_build, pid, kload = M.k_state, M.k_build, M.pid, M.kload


def _succ_moves(g, t):
    """(player, action) pairs of successful actions at turn t."""
    return [(p, a) for p, pl in enumerate(g["log"][t - 1]["players"]) for a in pl["actions"] if a["res"] == 0]


def _moved_ok(g, t, p, agent):
    return any(a["agentId"] == agent and a["res"] == 0 and a["type"] in (1, 3)
               for a in g["log"][t - 1]["players"][p]["actions"])


def _adj(a, b):
    return a != b and abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def k_cross_conflict(_):
  for key in ("K19",):
    g = copy.deepcopy(kload(key))
    for t in range(3, len(g["log"]) + 1):
        pos, wall = k_state(g, t - 1)
        occupied = {v for v in pos.values() if v}
        ok = _succ_moves(g, t)
        for p, a in ok:
            if a["type"] != 3:
                continue
            tgt = (a["x"], a["y"])
            if tgt in wall:
                continue
            for q, b in ok:
                if q == p or b["type"] != 3 or pos[(q, b["agentId"])] is None:
                    continue
                if _adj(pos[(q, b["agentId"])], tgt) and tgt not in occupied:
                    old = (b["x"], b["y"])
                    b["x"], b["y"] = tgt
                    return k_build(g, t, f"{key} turn {t}: {pid(g, q)} agent {b['agentId']} MOVE {old}->{tgt}, the square "
                                         f"{pid(g, p)} agent {a['agentId']} also moves to; both res 0")
  raise NotApplicable


def k_remove_under_agent(_):
    g = copy.deepcopy(kload("K02"))
    for t in range(3, len(g["log"]) + 1):
        pos, wall = k_state(g, t - 1)
        for p, a in _succ_moves(g, t):
            if a["type"] not in (3, 4):
                continue
            me = pos[(p, a["agentId"])]
            for (q, ag), qpos in sorted(pos.items(), key=lambda kv: (kv[0][0], kv[0][1])):
                if q == p or qpos is None or not _adj(me, qpos) or wall.get(qpos) != q:
                    continue
                if _moved_ok(g, t, q, ag):
                    continue
                old = (a["type"], a["x"], a["y"])
                a["type"], a["x"], a["y"] = 4, qpos[0], qpos[1]
                return k_build(g, t, f"turn {t}: {pid(g, p)} agent {a['agentId']} {old} -> REMOVE {qpos}: opponent wall "
                                     f"under {pid(g, q)}'s agent {ag}, which stays; res 0")
    raise NotApplicable


def k_move_onto_own_staying(_):
    g = copy.deepcopy(kload("K19"))
    for t in range(3, len(g["log"]) + 1):
        pos, wall = k_state(g, t - 1)
        for p, a in _succ_moves(g, t):
            if a["type"] != 3:
                continue
            me = pos[(p, a["agentId"])]
            for (q, ag), qpos in sorted(pos.items(), key=lambda kv: (kv[0][0], kv[0][1])):
                if q != p or ag == a["agentId"] or qpos is None or not _adj(me, qpos):
                    continue
                if _moved_ok(g, t, q, ag) or any(x["agentId"] == ag and x["res"] == 0 and x["type"] == 4
                                                 for x in g["log"][t - 1]["players"][q]["actions"]):
                    continue
                old = (a["x"], a["y"])
                a["x"], a["y"] = qpos
                return k_build(g, t, f"turn {t}: {pid(g, p)} agent {a['agentId']} MOVE {old}->{qpos}, where its own agent {ag} "
                                     f"stays; res 0")
    raise NotApplicable


def k_none_team_put(_):
    g = copy.deepcopy(kload("K26"))
    t = 10
    pos, wall = k_state(g, t - 1)
    occupied = {v for v in pos.values() if v}
    W = g["field"]["width"]
    c = next((x, y) for y in range(g["field"]["height"]) for x in range(W) if (x, y) not in wall and (x, y) not in occupied)
    g["log"][t - 1]["players"][0]["actions"].append({"agentId": 0, "type": 1, "x": c[0], "y": c[1], "res": 0})
    return k_build(g, t, f"turn {t}: the 'none' team (sent nothing = stay) given a successful PUT at {c}; its points stay 0")


def k_final_swap(_):
    g = copy.deepcopy(kload("K22"))
    a, b = g["players"][0]["point"], g["players"][1]["point"]
    g["players"][0]["point"], g["players"][1]["point"] = b, a
    return k_build(g, len(g["log"]), f"final players[].point swapped ({a} <-> {b}): the winner flips", at_end=True)


def k_turn_dup(_):
    g = copy.deepcopy(kload("K22"))
    t = 5
    g["log"].insert(t, copy.deepcopy(g["log"][t - 1]))
    return k_build(g, t + 1, f"turn {t} duplicated as turn {t + 1} (log has {len(g['log'])} turns, totalTurn {g['totalTurn']})")


def k_last_turn_missing(_):
    g = copy.deepcopy(kload("K22"))
    g["log"].pop()
    return k_build(g, len(g["log"]), f"last turn removed: log has {len(g['log'])} turns, turn = totalTurn = {g['totalTurn']}",
                   at_end=True)


def k_total_turn(_):
    g = copy.deepcopy(kload("K22"))
    g["totalTurn"] += 2
    return k_build(g, len(g["log"]), f"totalTurn {g['totalTurn'] - 2} -> {g['totalTurn']}: 'ended' after {len(g['log'])} turns",
                   at_end=True)


def k_nagent(_):
    g = copy.deepcopy(kload("K22"))
    g["nAgent"] -= 1
    na = g["nAgent"]
    t, p, k = M.k_find(g, lambda t, p, a: a["agentId"] == na and a["res"] == 0)
    return k_build(g, t, f"nAgent 3 -> {na}; agent {na}'s actions still logged res 0 from turn {t} (should be res 4)")


def k_final_agent(_):
    g = copy.deepcopy(kload("K22"))
    ag = g["players"][1]["agents"][0]
    old = dict(ag)
    ag["x"] = ag["x"] + 1 if ag["x"] + 1 < g["field"]["width"] else ag["x"] - 1
    return k_build(g, len(g["log"]), f"final players[1].agents[0] {old} -> {ag}", at_end=True)


R_K_CONF = ("公式ルール 競合: 無効でない行動のうち、複数のエージェントが同じマスに対して指定した行動 / 無効や競合により停留となった"
            "エージェントがいるマスに対して指定した行動 → 関係するすべてのエージェントの行動が適用されません")
_KRES = ("kakomimasu-result-code", "kakomimasu-conflict")

KAKO2 = [
    Mut("K14-cross-player-conflict", "kakomimasu", "K19", "two players' agents MOVE onto the same square, both res 0",
        R_K_CONF, "res mismatch (both should be res 1); nobody is guilty of a rule break", k_cross_conflict, precise_codes=_KRES),
    Mut("K15-remove-under-staying-agent", "kakomimasu", "K02", "REMOVE of an opponent wall on which the opponent's agent stays, res 0",
        "公式ルール 除去: 既にエージェントがいるマスを除去先として指定…移動しなかった場合には…競合", "res mismatch (should be res 1)",
        k_remove_under_agent, precise_codes=_KRES),
    Mut("K16-move-onto-own-staying-agent", "kakomimasu", "K19", "MOVE onto the square of one's own agent that does not move, res 0",
        "公式ルール 移動: 既に自分のエージェントがいるマスを移動先として指定…移動しなかった場合は…競合", "res mismatch (should be res 1)",
        k_move_onto_own_staying, precise_codes=_KRES),
    Mut("K17-stay-team-put", "kakomimasu", "K26", "the team that sent nothing (stay) gets a successful PUT at turn 10; points unchanged",
        "公式ルール: 行動の送信がなかった場合…そのチームの全エージェントの行動は停留; 配置したマスは自分チームの壁となります",
        "points mismatch at turn 10", k_none_team_put, precise_codes=("kakomimasu-points",) + _KRES),
    Mut("K18-final-points-swapped", "kakomimasu", "K22", "final points of the two players swapped (winner flips)",
        "公式ルール 勝敗判定: 合計ポイントが大きい方のチームが勝利", "final points mismatch", k_final_swap,
        precise_codes=("kakomimasu-final-points",)),
    Mut("K19-turn-duplicated", "kakomimasu", "K22", "turn 5 of the log duplicated (11 turns in a 10-turn game)",
        "公式ルール ゲームの進行: 規定のターン数に達したらゲーム終了", "finding at turn 6 (replay diverges) or turn-count mismatch",
        k_turn_dup, precise_codes=("kakomimasu-turn-count", "kakomimasu-points") + _KRES),
    Mut("K20-last-turn-missing", "kakomimasu", "K22", "last turn removed from the log (9 of 10 turns, status ended)",
        "公式ルール ゲームの進行: 規定のターン数になるまで…繰り返します", "turn-count / final mismatch", k_last_turn_missing,
        precise_codes=("kakomimasu-turn-count", "kakomimasu-final-points", "kakomimasu-final-tiles")),
    Mut("K21-total-turn-changed", "kakomimasu", "K22", "totalTurn 10 → 12 while the game ended after 10 turns",
        "公式ルール ゲームの進行: 規定のターン数に達したらゲーム終了", "turn-count mismatch", k_total_turn,
        precise_codes=("kakomimasu-turn-count",)),
    Mut("K22-agent-count", "kakomimasu", "K22", "nAgent 3 → 2 while agent 2's actions stay res 0",
        "公式ルール エージェント: エージェントの数は…フィールドごとに決まっています (res 4 = non-existent agent)",
        "res mismatch (should be 4) / agent count mismatch", k_nagent, precise_codes=("kakomimasu-agent-count",) + _KRES),
    Mut("K23-final-agent-position", "kakomimasu", "K22", "final position of one agent shifted by one square",
        "公式ルール 移動 (final board follows the actions)", "final positions mismatch", k_final_agent,
        precise_codes=("kakomimasu-final-agents", "kakomimasu-final-positions")),
]

# ----------------------------------------------------------------------------------------------
# CHaser
# ----------------------------------------------------------------------------------------------
cl, CLog = M.cl, M.CLog
C_GREEDY = "20261122045726"
C_GG = "20261122045903"   # greedy vs greedy, 100 turns, 20:17


def c_lines_build(key, fn, **kw):
    def build(_):
        c = cl(key)
        lines = list(c.lines)
        i, note = fn(c, lines)
        return c.out(lines, i, note=note, **kw)
    return build


def _eol(b):
    return b[len(b.rstrip(b"\r\n")):]


def _set(lines, i, text):
    lines[i] = text.encode("utf-8") + _eol(lines[i])


def c_last_pickup(c, lines):
    i = c.rfind(lambda i, s: "[取得]" in s)
    del lines[i]
    return i, f"last [取得] removed (turn {c.turn_at(i)}): {c.s(i)}"


def c_put_dir(c, lines):
    i = c.rfind(lambda i, s: "[行動]COOLがPut" in s)
    s = c.s(i)
    new = s.replace("PutRight", "PutLeft") if "PutRight" in s else s.replace("Put", "Put", 1).replace("Left", "Right")
    _set(lines, i, new)
    return i, f"decisive put {s} -> {new} ([死因]HOTブロック下敷き kept)"


def c_search_to_walk(c, lines):
    i = c.find(lambda i, s: "[行動]COOLがSearch" in s, 200)
    s = c.s(i)
    new = s.replace("Search", "Walk")
    _set(lines, i, new)
    return i, f"{s} -> {new} (status line unchanged)"


def c_extra_turn(c, lines):
    i = c.rfind(lambda i, s: s.startswith("-----残0ターン"))
    acts = [j for j in range(i - 1, i - 12, -1) if "[行動]" in c.s(j) or c.s(j)[16:].startswith(("COOL:", "HOT:"))]
    acts = sorted(acts)[-4:]
    extra = [lines[j] for j in acts]
    lines[i + 1:i + 1] = extra
    return i + 1, "a 101st turn (copy of the last 4 action/status lines) inserted after 残0"


def c_header_removed(c, lines):
    i = c.find(lambda i, s: s.startswith("-----残50ターン"))
    del lines[i]
    return i, "header -----残50ターン----- removed (turns 51 and 50 merged)"


def c_draw_winner(c, lines):
    i = c.rfind(lambda i, s: "[決着]" in s)
    _set(lines, i, c.s(i).replace("引き分けです。", "COOLが勝利しました。"))
    return i, "[決着]引き分けです。 -> COOLが勝利しました。 at COOL:0 HOT:0"


def c_last_dup(c, lines):
    i = len(lines) - 1
    last = lines[i]
    if not last.endswith(b"\n"):
        lines[i] = last + b"\r\n"
    lines.append(last)
    return i + 1, f"last line duplicated: {c.s(i)}"


def c_swap_turns(c, lines):
    i = c.find(lambda i, s: "[行動]COOLがWalk" in s, 300)
    j = c.find(lambda k, s: "[行動]COOLがWalk" in s and c.s(k) != c.s(i), i + 1)
    if c.turn_at(j) == c.turn_at(i):
        raise NotApplicable
    lines[i], lines[j] = lines[j], lines[i]
    return i, f"COOL action lines of turns {c.turn_at(i)} and {c.turn_at(j)} swapped: {c.s(i)} <-> {c.s(j)}"


def c_pickup_team(c, lines):
    i = c.find(lambda i, s: "[取得]COOL" in s, 250)
    _set(lines, i, c.s(i).replace("COOLが", "HOTが"))
    return i, f"{c.s(i)} attributed to HOT"


def c_death_team(c, lines):
    i = c.rfind(lambda i, s: "[死因]" in s)
    s = c.s(i)
    new = s.replace("COOL", "HOT") if "COOL" in s else s.replace("HOT", "COOL")
    _set(lines, i, new)
    return i, f"{s} -> {new} ([決着] unchanged)"


def c_selftrap_winner(c, lines):
    i = c.rfind(lambda i, s: "[決着]" in s)
    s = c.s(i)
    _set(lines, i, s.replace("HOTが", "COOLが"))
    return i, f"{s} -> COOLが勝利 (COOL surrounded itself)"


R_C = "U-16 ルール 1. 勝敗について"
CHASER2 = [
    Mut("C16-last-pickup-removed", "chaser", C_GREEDY, "the last [取得] line before time-up removed",
        "ルール 1(2): 既定のターン数を終了した時点でのアイテム数が多い (every item walked onto counts)",
        "missing pickup at that turn / final count mismatch", c_lines_build(C_GREEDY, c_last_pickup),
        precise_codes=("chaser-item-taken", "chaser-final-items")),
    Mut("C17-put-direction", "chaser", "20261122045958", "decisive COOL PutRight turned PutLeft, [死因]HOTブロック下敷き kept",
        "ルール 1(1): 対戦相手の上にブロックを置く (only a put on the opponent's cell kills)",
        "death not explained by the actions / surroundings mismatch", c_lines_build("20261122045958", c_put_dir, at_end=True),
        precise_codes=("chaser-end", "chaser-surroundings")),
    Mut("C18-search-to-walk", "chaser", C_GG, "a COOL Search turned into a Walk in the same direction (status unchanged)",
        "README: Walk moves one cell, Look/Search do not move; the status is the 3×3 around the player",
        "position / surroundings mismatch at that turn", c_lines_build(C_GG, c_search_to_walk),
        precise_codes=("chaser-surroundings", "chaser-position")),
    Mut("C19-turn-101", "chaser", C_GG, "an extra (101st) turn of actions after 残0 in a T:100 game",
        "ルール 7: 100 ターンでは Cool 100 命令 Hot 100 命令実行できる", "turn limit exceeded at the end",
        c_lines_build(C_GG, c_extra_turn, at_end=True), precise_codes=("chaser-turn-limit", "chaser-turn-count")),
    Mut("C20-turn-header-removed", "chaser", C_GG, "a -----残50ターン----- header removed (two action pairs in one turn)",
        "ルール 7: ターンとは Cool と Hot がそれぞれ命令を実行した時点で 1 ターン", "turn structure finding at that turn",
        c_lines_build(C_GG, c_header_removed), precise_codes=("chaser-turn-structure", "chaser-turn-count")),
    Mut("C21-draw-winner", "chaser", "20261122045707", "0:0 time-up draw logged as COOL win",
        "ルール 1(2): アイテム数が多い方の勝利 (equal counts: no winner)", "winner mismatch at the end",
        c_lines_build("20261122045707", c_draw_winner, at_end=True), precise_codes=("chaser-winner",)),
    Mut("C22-last-line-duplicated", "chaser", C_GG, "the final [決着] line duplicated",
        "README: [決着] … which is the last line", "duplicate result line flagged", c_lines_build(C_GG, c_last_dup, at_end=True)),
    Mut("C23-swap-turns", "chaser", C_GG, "COOL action lines of two different turns swapped (status lines kept)",
        "ルール 7 (each turn's action produces that turn's status)", "surroundings/position mismatch at the first turn",
        c_lines_build(C_GG, c_swap_turns), precise_codes=("chaser-surroundings", "chaser-position")),
    Mut("C24-pickup-wrong-team", "chaser", C_GG, "a COOL [取得] line attributed to HOT",
        "ルール 1(2): アイテム数 (the player who walks onto the item takes it)", "item-taken mismatch at that turn",
        c_lines_build(C_GG, c_pickup_team), precise_codes=("chaser-item-taken",)),
    Mut("C25-death-wrong-team", "chaser", "20261122045541", "[死因]COOLブロック下敷き → HOT (winner line unchanged)",
        "ルール 1(4): 対戦相手がブロックのマスに移動する (→ the other wins)", "end / winner mismatch",
        c_lines_build("20261122045541", c_death_team, at_end=True), precise_codes=("chaser-end", "chaser-winner")),
    Mut("C26-selftrap-winner", "chaser", "20261122045634", "COOL surrounded itself with blocks, [決着] says COOL wins",
        "ルール 1(5): 対戦相手が自身の上下左右 4 方向をブロックで囲う (→ the opponent wins)", "winner mismatch at the end",
        c_lines_build("20261122045634", c_selftrap_winner, at_end=True), precise_codes=("chaser-winner", "chaser-end")),
]

ALL2 = ALGORI2 + KAKO2 + CHASER2


def main(argv=None):
    M.ALL_MUTS = ALL2
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--out" not in argv:
        argv += ["--out", "/tmp/audit2.json"]
    return M.main(argv)


if __name__ == "__main__":
    sys.exit(main())
