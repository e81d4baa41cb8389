"""Golden cases for the JUA competition rules (``jua-2016``), written from the rules text.

Every case is a short hand-written log and the EXACT multiset of findings it must give, and no
other. The law is ``shared/seeds/jua-competition-rules.ja.txt`` (quoted in each docstring);
``docs/rules/jua.md`` gives the log shape, Kifu's readings R1–R25, the penalty texts and the
check codes. These cases were written without reading the validator, so that the two readings
are independent.

How to read an expectation: ``("stack-answer", "C")`` is a player-rule finding blamed on player
C; a bare ``"next-seat"`` is a dealer-judgement or consistency finding, of which only the code is
asserted (its player, if any, is ignored). A refused action is its line followed by the referee's
``penalty`` line (the correct answer, so the only finding is the player's); after a lost turn a
``next-player`` hands the turn on.

Seats: ``play_order`` lists the players clockwise from the start player, so with order
``[A, B, C]`` A is the start player (who turned the first card), B plays first (R4) and
counter-clockwise from A is C (R6).

Where jua.md was silent the case says what it assumed, in a comment starting ``# Assumed:``.
"""

from __future__ import annotations

from tests.rules.jua_log import Log, card, stack

# Player-rule codes (blamed on the offender): the player-rule family of rules/uno/catalog.py and the
# four new player-rule codes of docs/rules/jua.md's Checks table. Every other code is a
# dealer-judgement or consistency finding, compared by code only.
PLAYER_RULE = {
    "turn-owner", "owed-draw-respected", "card-object-valid", "yell-field-valid", "card-owned",
    "card-legal-on-top", "wild-colour-given", "wild-colour-valid", "yell-only-at-two",
    "uno-call-missed", "wd4-bluff", "play-draw-allowed", "challenge-eligible",
    "colour-choice-eligible", "pointing-valid", "pointing-without-effect", "special-logic-valid",
    "special-logic-limit", "special-logic-registry", "response-time",
    "pair-identical", "pair-finish-uno", "stack-answer", "challenge-must-play",
}

# Penalty texts (docs/rules/jua.md, "Penalty texts the referee writes").
NEXT_PLAYER_INVALID = "Next player invalid."
NOT_IN_HAND = "Card play not exist of player."
DOES_NOT_MATCH = "Card play invalid with card before."
COLOUR_REQUIRED = "Color of wild is required."
COLOUR_INVALID = "Color wild invalid."
PAIR_INVALID = "Pair invalid."
CANNOT_ANSWER = "Can not answer draw stack."
CANNOT_PLAY_DRAWN = "Can not play draw card."
ONLY_DRAWN = "Only the drawn card may be played."
CANNOT_CHALLENGE = "Can not challenge."
PLAY_REQUIRED = "Card play is required."
NO_UNO = "Did not say uno."


def _sort(items):
    return sorted(items, key=lambda cp: (cp[0], cp[1] or ""))


def findings(log: Log) -> list[tuple[str, str | None]]:
    from rules import get_ruleset

    frames = list(get_ruleset("jua-2016").replay(log.rows, match_id="golden"))
    return _sort((v.code, v.player if v.code in PLAYER_RULE else None) for f in frames for v in f.violations)


def check(log: Log, *expected: str | tuple[str, str]) -> None:
    """The log gives exactly ``expected`` (a multiset), nothing else."""
    want = []
    for e in expected:
        code, player = (e, None) if isinstance(e, str) else e
        assert (code in PLAYER_RULE) == (player is not None), f"blame {code} on a player iff it is a player rule"
        want.append((code, player))
    assert findings(log) == _sort(want)


# ---- common hands ----------------------------------------------------------------------------
# Three players [A, B, C] on a red 3 unless a case says otherwise. A holds no red card.
A_ = "g1 g2 b4 b5 y6 y7 W"
B_ = "r7 b7 g8 y9 y3 g0 gS"
C_ = "r8 r1 g9 b9 y1 y2 bS"
ABC = ["A", "B", "C"]


def three(first: str = "r3", *, A: str = A_, B: str = B_, C: str = C_, **kw) -> Log:
    return Log(ABC, first, {"A": A, "B": B, "C": C}, **kw)


# Two players [A, B]: B (the only other player) plays first. The winner's hand sheds 7 cards in a
# row: with two players a skip or a reverse gives the turn straight back (R16).
LOSER = "y1 y2 y3 y4 y5 y6 y7"  # 28 points


def two(first: str = "r3", *, A: str = LOSER, B: str = "rS rR gR gS bS bR b7") -> Log:
    return Log(["A", "B"], first, {"A": A, "B": B})


# =============================================================================================
# カード内容 / 準備: the deck, the players, the deal, the first card
# =============================================================================================

def test_deal_of_seven_and_a_number_first_card():
    """そのカードを左から順に1枚ずつ7枚を各プレイヤーに配って手札(hands)とする。
    時計回りにスタートプレイヤーの左隣のプレイヤーから順に…出してゆく。"""
    log = three().next("B").play("B", "r7").next("C").play("C", "r8").next("A")
    check(log)


def test_any_start_player_in_round_one():
    """最も高い数字…のプレイヤーがスタートプレイヤー(Dealer)となる。またスタートプレイヤー決めはジャンケンでもよい。
    (R1: any start player is accepted in round 1; play starts at its left.)"""
    log = Log(["C", "A", "B"], "g3", {"A": A_, "B": B_, "C": C_}, joins=ABC)
    log.next("A").play("A", "g1").next("B")
    check(log)


def test_hand_of_six_is_a_wrong_deal():
    """7枚を各プレイヤーに配って手札(hands)とする。"""
    log = three(B="r7 b7 g8 y9 y3 g0")
    check(log, "deal-and-first-card")


def test_ten_players_is_allowed():
    """プレイヤーの人数は2〜10人"""
    players = [f"P{i:02d}" for i in range(1, 11)]
    log = Log(players, "r3").next("P02")
    check(log)


def test_eleven_players_is_too_many():
    """プレイヤーの人数は2〜10人"""
    players = [f"P{i:02d}" for i in range(1, 12)]
    log = Log(players, "r3")
    check(log, "player-count")


def test_first_wild_draw_4_returned_and_turned_again():
    """このときワイルド・ドロー4が出たときのみ山札をシャッフルしてやり直す。"""
    log = three(returned="W+4 W+4").next("B").play("B", "r7").next("C")
    check(log)


def test_first_card_wild_draw_4_kept():
    """このときワイルド・ドロー4が出たときのみ山札をシャッフルしてやり直す。
    (A log whose first card is a wild draw 4 did not return it.)"""
    log = three("W+4")
    check(log, "deal-and-first-card")


def test_first_card_returned_that_is_not_a_wild_draw_4():
    """このときワイルド・ドロー4が出たときのみ山札をシャッフルしてやり直す。"""
    # Assumed: R3 "Every other card may be the first card" — returning a red 9 breaks 「のみ」 and is a
    # deal-and-first-card finding.
    log = three(returned="r9")
    check(log, "deal-and-first-card")


def test_third_copy_of_a_number_card():
    """1〜9は各2枚 … 合計108枚を1セットとする。"""
    log = three(A="g7 g1 g2 b4 b5 y6 W", C="g7 r8 r1 b9 y1 y2 bS", strict=False)
    log.next("B").draw("B", "g7", can_play=False).next("C")
    check(log, "conservation")


def test_second_red_zero():
    """数字カード(0のみ各1枚、1〜9は各2枚)"""
    log = three("b3", A="r0 g1 g2 b4 b5 y6 W", strict=False)
    log.next("B").draw("B", "r0", can_play=False).next("C")
    check(log, "conservation")


def test_wild_shuffle_is_not_in_the_deck():
    """◆それ以外のカード(とりかえっこワイルドなど)は使用しない。"""
    # Assumed: a card that is not in the JUA set is a conservation finding (jua.md sentence table:
    # 「それ以外のカード…は使用しない | conservation」); the log ends on the draw.
    log = three(strict=False)
    log.next("B").draw("B", [{"color": "black", "special": "wild_shuffle"}])
    check(log, "conservation")


# =============================================================================================
# The first card acts as the start player's play (R4–R6)
# =============================================================================================

def test_start_player_does_not_take_the_first_turn():
    """(スタートプレイヤーの初手は山からカードをひくだけで手札のカードは出せないので注意)
    R4: turning the first card is the start player's first move; play goes on to the left."""
    log = three().next("A")
    check(log, "next-seat")


def test_first_card_skip_skips_the_left_neighbour():
    """場札がドロー2やスキップ、ワイルドのときはディーラーがそのカードを出したときと同じように処理する。"""
    log = three("rS").next("C").play("C", "r8").next("A")
    check(log)


def test_first_card_skip_not_applied():
    """場札が…スキップ…のときはディーラーがそのカードを出したときと同じように処理する。"""
    log = three("rS").next("B")
    check(log, "next-seat")


def test_first_card_skip_with_two_players():
    """場札が…スキップ…のときは…同じように処理する。(2 players: the start player plays first.)"""
    log = Log(["A", "B"], "rS", {"A": "r5 g1 g2 b4 b5 y6 W", "B": B_})
    log.next("A").play("A", "r5").next("B")
    check(log)


def test_first_card_reverse_right_neighbour_starts():
    """リバースは親の右隣のプレイヤーから逆回りにスタートすることになる。"""
    log = three("rR").next("C").play("C", "r8").next("B").play("B", "r7").next("A")
    check(log)


def test_first_card_reverse_started_clockwise():
    """リバースは親の右隣のプレイヤーから逆回りにスタートすることになる。"""
    log = three("rR").next("B")
    check(log, "next-seat")


def test_first_card_reverse_continued_clockwise():
    """リバースは親の右隣のプレイヤーから逆回りにスタートすることになる。(the direction stays reversed)"""
    log = three("rR").next("C").play("C", "r8").next("A")
    check(log, "next-seat")


def test_first_card_reverse_two_players_start_player_first():
    """リバース…2人でプレイしている場合はスキップと同じ効果を持つ。(R6: with 2 players the start player plays first)"""
    log = Log(["A", "B"], "rR", {"A": "r5 g1 g2 b4 b5 y6 W", "B": B_})
    log.next("A").play("A", "r5").next("B")
    check(log)


def test_first_card_reverse_two_players_left_neighbour_first():
    """リバース…2人でプレイしている場合はスキップと同じ効果を持つ。"""
    log = Log(["A", "B"], "rR", {"A": "r5 g1 g2 b4 b5 y6 W", "B": B_}).next("B")
    check(log, "next-seat")


def test_first_card_wild_start_player_chooses():
    """場札が…ワイルドのときはディーラーがそのカードを出したときと同じように処理する。
    (R5, option first_wild_color=dealer by default: the start player chooses; play starts at the left.)"""
    log = three("W").colour("A", "green").next("B").play("B", "g8").next("C")
    check(log)


def test_first_card_wild_colour_binds_the_first_player():
    """ワイルド…場の色を指定できる。(the turned wild's chosen colour is the colour to match)"""
    log = three("W").colour("A", "green").next("B")
    log.play("B", "r7", refused=True).penalty("B", DOES_NOT_MATCH).next("C")
    check(log, ("card-legal-on-top", "B"))


def test_first_card_wild_chooser_does_not_play_first():
    """場札が…ワイルドのときはディーラーがそのカードを出したときと同じように処理する。"""
    log = three("W").colour("A", "green").next("A")
    check(log, "next-seat")


def test_first_card_draw_2_left_neighbour_draws():
    """場札がドロー2…のときはディーラーがそのカードを出したときと同じように処理する。
    ドロー2: 次の手番のプレイヤーに山札から2枚とらせる。…手番はそこで終了し"""
    log = three("r+2")
    log.next("B", must_call_draw_card=True, draw_reason="draw_2", draw_stack=stack(2, "r+2"))
    log.draw("B", 2, draw_stack=stack(2, "r+2"))
    log.next("C", must_call_draw_card=False, draw_reason="nothing", draw_stack=stack(0))
    log.play("C", "r8").next("A")
    check(log)


def test_first_card_draw_2_left_neighbour_stacks():
    """場札がドロー2…◆このときドロー2かワイルド・ドロー4を出すことができれば、これを回避して次の手番のプレイヤーに順送りすることができる。"""
    log = three("r+2", B="b+2 r7 b7 g8 y9 y3 g0")
    log.next("B").play("B", "b+2").next("C", draw_stack=stack(4, "r+2 b+2"))
    log.draw("C", 4, draw_stack=stack(4, "r+2 b+2")).next("A")
    check(log)


def test_first_card_draw_2_ignored():
    """場札がドロー2…のときはディーラーがそのカードを出したときと同じように処理する。"""
    log = three("r+2").next("C")
    check(log, "next-seat")


def test_first_card_draw_2_answered_with_a_number():
    """場札がドロー2…このカードで山札からカードをひかされたプレイヤーの手番はそこで終了し、場にカードを捨てることはできない。"""
    # Assumed (here and in every refused answer to a stack): the penalty line holds the 2 penalty
    # cards only; the log ends there, so how the pending stack is then taken does not matter.
    log = three("r+2").next("B").play("B", "r7", refused=True).penalty("B", CANNOT_ANSWER)
    check(log, ("stack-answer", "B"))


# =============================================================================================
# ゲーム進行: matching the top card, turns, wilds (R7, R11)
# =============================================================================================

def test_colour_number_symbol_and_wild_all_match():
    """場札の色か数字(記号)の同じカードを手札から1枚ずつ出してゆく。
    ワイルド: 場に関わりなく自分の手番ならいつでも出すことができ、さらに場の色を指定できる。
    スキップ: 隣にいる次のプレイヤーの手番を飛ばして1回休みにする。"""
    log = three(B="b3 gS y1 y2 g6 b8 r9", C="bS y8 g7 b9 r1 r2 y9")
    log.next("B").play("B", "b3")            # same number
    log.next("C").play("C", "bS")            # same colour; A is skipped
    log.next("B").play("B", "gS")            # same symbol; C is skipped
    log.next("A").play("A", "W", color="yellow")
    log.next("B").play("B", "y1")            # the chosen colour
    log.next("C")
    check(log)


def test_card_that_does_not_match():
    """場札の色か数字(記号)の同じカードを手札から1枚ずつ出してゆく。"""
    log = three().next("B").play("B", "g8", refused=True).penalty("B", DOES_NOT_MATCH).next("C")
    check(log, ("card-legal-on-top", "B"))


def test_card_that_does_not_match_accepted_without_penalty():
    """場札の色か数字(記号)の同じカードを手札から1枚ずつ出してゆく。(the referee let it through)"""
    log = three().next("B").play("B", "g8").next("C")
    check(log, ("card-legal-on-top", "B"), "missing-penalty")


def test_card_not_in_the_hand():
    """場札の色か数字(記号)の同じカードを手札から1枚ずつ出してゆく。"""
    log = three().next("B").play("B", "r9", refused=True).penalty("B", NOT_IN_HAND).next("C")
    check(log, ("card-owned", "B"))


def test_play_out_of_turn():
    """時計回りにスタートプレイヤーの左隣のプレイヤーから順に…出してゆく。"""
    # Assumed: the turn stays with B (it was not C's); the log ends on the penalty.
    log = three().next("B").play("C", "r8", refused=True).penalty("C", NEXT_PLAYER_INVALID)
    check(log, ("turn-owner", "C"))


def test_wild_without_a_colour():
    """ワイルド: …さらに場の色を指定できる。"""
    log = three(B="W r7 b7 g8 y9 y3 g0").next("B")
    log.play("B", "W", refused=True).penalty("B", COLOUR_REQUIRED).next("C")
    check(log, ("wild-colour-given", "B"))


def test_wild_with_an_invalid_colour():
    """ワイルド: …さらに場の色を指定できる。(赤、青、黄、緑の4色)"""
    log = three(B="W r7 b7 g8 y9 y3 g0").next("B")
    log.play("B", "W", color="purple", refused=True).penalty("B", COLOUR_INVALID).next("C")
    check(log, ("wild-colour-valid", "B"))


# =============================================================================================
# Drawing (R8)
# =============================================================================================

def test_draw_although_holding_a_playable_card_then_play_it():
    """手札に出せるカードがあっても山札から1枚ひくこともできる。このとき可能なら、ひいたカードは捨てることもできる"""
    log = three().next("B").draw("B", "r9", can_play=True).play_drawn("B", "r9").next("C")
    check(log)


def test_draw_an_unplayable_card():
    """手番に使えるカードがない場合は山札から1枚ひく。…出せないカードなら手札に追加される。"""
    log = three().next("B").draw("B", "b1", can_play=False).next("C")
    check(log)


def test_draw_a_playable_card_and_keep_it():
    """ひいたカードが出せるカードなら捨てることができ (may, not must)"""
    log = three().next("B").draw("B", "r9", can_play=True).keep_drawn("B").next("C")
    check(log)


def test_play_an_unplayable_drawn_card():
    """ひいたカードが出せるカードなら捨てることができ、出せないカードなら手札に追加される。"""
    log = three().next("B").draw("B", "b1", can_play=False)
    log.play_drawn("B", "b1", refused=True).penalty("B", CANNOT_PLAY_DRAWN).next("C")
    check(log, ("play-draw-allowed", "B"))


def test_play_from_the_hand_after_drawing():
    """このとき可能なら、ひいたカードは捨てることもできるが、元の手札からはカードを出すことはできない。"""
    # play-draw-card's card_play is the referee's echo of the drawn card (jua.md): an attempt to play a
    # card of the original hand is a play-card, refused with "Only the drawn card may be played."
    log = three().next("B").draw("B", "r9", can_play=True)
    log.play("B", "r7", refused=True).penalty("B", ONLY_DRAWN).next("C")
    check(log, ("play-draw-allowed", "B"))


# =============================================================================================
# UNO call (R10)
# =============================================================================================
# B sheds three pairs; C and A play in between. After the third pair B holds one card.
UNO_HANDS = {"A": "g9 y2 b6 b4 g1 W r6", "B": "r5 r5 g5 g5 y5 y5 b8", "C": "r9 g2 y7 b1 b2 r1 gR"}


def uno_round(yell_at_one: bool) -> Log:
    log = Log(ABC, "r3", dict(UNO_HANDS))
    log.next("B").play("B", "r5", pair="r5", yell=True)  # a call leaving 5 cards: means nothing (R10)
    log.next("C").play("C", "r9").next("A").play("A", "g9")
    log.next("B").play("B", "g5", pair="g5")
    log.next("C").play("C", "g2").next("A").play("A", "y2")
    log.next("B").play("B", "y5", pair="y5", yell=yell_at_one)
    return log.next("C")


def test_uno_called():
    """手札が残り 1 枚になったときは"ウノ"と宣言する。"""
    log = uno_round(yell_at_one=True).play("C", "y7").next("A")
    check(log)


def test_uno_missed_and_pointed_after_a_draw():
    """この"ウノコール"を忘れたらペナルティとして山札から2枚ひかなければいけない。
    ただし次のプレイヤーが既にカードを捨てたあとでの指摘ではペナルティは無効。 (a draw is not a discard)"""
    log = uno_round(yell_at_one=False).draw("C", "b3", can_play=False).next("A")
    log.point("A", "B").penalty("B", NO_UNO)
    check(log, ("uno-call-missed", "B"))


def test_uno_missed_and_pointed_too_late():
    """ただし次のプレイヤーが既にカードを捨てたあとでの指摘ではペナルティは無効。"""
    # Assumed: the missed call is a finding of its own (uno-call-missed, at the play, pointed or
    # not), and a pointing out of the window is reported as pointing-without-effect (info).
    log = uno_round(yell_at_one=False).play("C", "y7").next("A").point("A", "B")
    check(log, ("uno-call-missed", "B"), ("pointing-without-effect", "A"))


# =============================================================================================
# ◆2枚出しルール (R12, R13)
# =============================================================================================

def test_pair_of_identical_number_cards():
    """◆2枚出しルール。自分の手番において色と数字が一致する同一の数字カードは一度に捨てることができる。"""
    log = three(B="r5 r5 b7 g8 y9 y3 g0").next("B").play("B", "r5", pair="r5").next("C")
    log.play("C", "r8").next("A")
    check(log)


def test_pair_of_same_number_different_colour():
    """◆…色と数字が一致する同一の数字カードは一度に捨てることができる。"""
    log = three(B="r5 b5 r7 g8 y9 y3 g0").next("B")
    log.play("B", "r5", pair="b5", refused=True).penalty("B", PAIR_INVALID).next("C")
    check(log, ("pair-identical", "B"))


def test_pair_of_action_cards():
    """ただし全てのアクションカードは必ず1枚ずつしか出せない。"""
    log = three(B="rS rS r7 g8 y9 y3 g0").next("B")
    log.play("B", "rS", pair="rS", refused=True).penalty("B", PAIR_INVALID).next("C")
    check(log, ("pair-identical", "B"))


def test_pair_of_wilds():
    """ただし全てのアクションカードは必ず1枚ずつしか出せない。"""
    log = three(B="W W r7 g8 y9 y3 g0").next("B")
    log.play("B", "W", pair="W", color="blue", refused=True).penalty("B", PAIR_INVALID).next("C")
    check(log, ("pair-identical", "B"))


def test_pair_whose_first_card_does_not_match():
    """場札の色か数字(記号)の同じカード… / ◆2枚出しルール (R12: the first card must be playable)"""
    log = three(B="g5 g5 r7 b8 y9 y3 g0").next("B")
    log.play("B", "g5", pair="g5", refused=True).penalty("B", DOES_NOT_MATCH).next("C")
    check(log, ("card-legal-on-top", "B"))


def test_pair_with_the_second_card_not_in_the_hand():
    """◆2枚出しルール。…同一の数字カードは一度に捨てることができる。"""
    log = three(B="r5 r7 b7 g8 y9 y3 g0").next("B")
    log.play("B", "r5", pair="r5", refused=True).penalty("B", NOT_IN_HAND).next("C")
    check(log, ("card-owned", "B"))


def test_pair_finish_with_uno_call():
    """◆最後に2枚の同一カードを出してあがることが可能なときもウノコールする。"""
    log = two(B="rS rR gR gS bS b8 b8").next("B").chain("B", "rS rR gR gS bS")
    log.play("B", "b8", pair="b8", yell=True).finish("B")
    assert log.rows[-1]["contents"]["score"] == {"A": -28, "B": 28}
    check(log)


def test_pair_finish_without_uno_call():
    """◆ウノコールをしていなかった場合はペナルティはないが、あがることもできず、カードは1枚のみしか捨てることはできない。"""
    # The referee plays one b8 and gives no penalty (ペナルティはない, R13): B, now on one card, cannot be
    # penalised for the missing call, so a "Did not say uno." penalty after A's pointing is the referee's
    # fault (uno-pointing-outcome), not B's. (This case used to expect uno-call-missed against B, the old
    # reading of R13 that let B be pointed at; the text says there is no penalty.)
    log = two(B="rS rR gR gS bS b8 b8").next("B").chain("B", "rS rR gR gS bS")
    log.play("B", "b8", pair="b8", only_one=True).next("A").point("A", "B").penalty("B", NO_UNO)
    check(log, ("pair-finish-uno", "B"), "uno-pointing-outcome")


# =============================================================================================
# Draw stacks: ドロー2 / ワイルド・ドロー4 ◆累積 (R14, R15)
# =============================================================================================
STACK4 = {
    "A": "y1 y2 y3 y4 g6 g7 W",
    "B": "r+2 b1 b2 g1 g2 y8 y9",
    "C": "b+2 r1 r2 g3 g4 y6 y7",
    "D": "W+4 b7 r7 g8 g9 y5 r9",  # a blue number but no blue draw 2: the wild draw 4 is legal (R17)
}


def stack_of_eight(wrong_number: int | None = None) -> Log:
    log = Log(["A", "B", "C", "D"], "r5", dict(STACK4))
    log.next("B", must_call_draw_card=False, draw_reason="nothing", draw_stack=stack(0)).play("B", "r+2")
    log.next("C", must_call_draw_card=True, draw_reason="draw_2", draw_stack=stack(2, "r+2")).play("C", "b+2")
    log.next("D", must_call_draw_card=True, draw_reason="draw_2", draw_stack=stack(4, "r+2 b+2"))
    log.play("D", "W+4", color="green")
    log.next("A", must_call_draw_card=True, draw_reason="wild_draw_4",
             draw_stack=stack(wrong_number or 8, "r+2 b+2 W+4"))
    return log


def test_stack_2_2_4_then_the_whole_total_drawn():
    """◆このときドロー2かワイルド・ドロー4を出すことができれば、これを回避して次の手番のプレイヤーに順送りすることができる。
    ひかなければならない枚数は累積されてゆく。"""
    log = stack_of_eight().draw("A", 8, draw_stack=stack(8, "r+2 b+2 W+4"))
    log.next("B", must_call_draw_card=False, draw_reason="nothing", draw_stack=stack(0))
    check(log)


def test_stack_reported_with_a_wrong_total():
    """ひかなければならない枚数は累積されてゆく。 (next-player.draw_stack says 6, the stack holds 8)"""
    log = stack_of_eight(wrong_number=6).draw("A", 8).next("B")
    check(log, "stack-total")


def test_stack_drawn_short():
    """ひかなければならない枚数は累積されてゆく。 (the player facing 8 is given 6)"""
    # Assumed: a forced draw of the wrong size on a draw stack is stack-total (jua.md Checks:
    # "a forced draw … differs from the stack's total"), not ALGORI's forced-draw-amount.
    log = Log(["A", "B", "C", "D"], "r5", dict(STACK4))
    log.next("B").play("B", "r+2").next("C").play("C", "b+2").next("D").play("D", "W+4", color="green")
    log.next("A").draw("A", 6).next("B")
    check(log, "stack-total")


def test_wild_on_a_draw_2():
    """ドロー2: …このときドロー2かワイルド・ドロー4を出すことができれば、これを回避して"""
    log = three("r5", B="r+2 b1 b2 g1 g2 y8 y9", C="W r1 r2 g3 g4 y6 y7").next("B").play("B", "r+2")
    log.next("C").play("C", "W", color="red", refused=True).penalty("C", CANNOT_ANSWER)
    check(log, ("stack-answer", "C"))


def test_draw_2_on_a_wild_draw_4():
    """ワイルド・ドロー4: ◆このときワイルド・ドロー4を出すことができれば、これを回避して次の手番のプレイヤーに順送りすることができる。"""
    log = three("r5", B="W+4 b1 b2 g1 g2 y8 y9", C="b+2 r1 r2 g3 g4 y6 y7").next("B")
    log.play("B", "W+4", color="blue").next("C")
    log.play("C", "b+2", refused=True).penalty("C", CANNOT_ANSWER)
    check(log, ("stack-answer", "C"))


def test_draw_2_after_a_wild_draw_4_in_the_stack():
    """◆このときワイルド・ドロー4を出すことができれば… (R15: once a wild draw 4 is in the stack, only wild draw 4s)"""
    log = Log(ABC, "r5", {"A": "y+2 b4 b5 g1 g2 y6 y7", "B": "r+2 b1 b2 g8 g9 y8 y9",
                          "C": "W+4 b3 b6 g3 g4 y1 y2"})
    log.next("B").play("B", "r+2").next("C").play("C", "W+4", color="yellow")
    log.next("A").play("A", "y+2", refused=True).penalty("A", CANNOT_ANSWER)
    check(log, ("stack-answer", "A"))


def test_wild_draw_4_on_a_wild_draw_4_holding_the_colour():
    """◆このときワイルド・ドロー4を出すことができれば、これを回避して… (R17: on a wild draw 4 stack it is always legal)"""
    log = three("r5", B="W+4 b1 b2 g1 g2 y8 y9", C="W+4 b3 b6 g3 g4 y1 y2").next("B")
    log.play("B", "W+4", color="blue").next("C")
    log.play("C", "W+4", color="green").next("A", draw_stack=stack(8, "W+4 W+4"))  # C holds blue: no matter
    log.draw("A", 8).next("B")
    check(log)


# =============================================================================================
# Reverse and skip (R16)
# =============================================================================================

def test_reverse_with_two_players_is_a_skip():
    """リバース: 2人でプレイしている場合はスキップと同じ効果を持つ。"""
    log = Log(["A", "B"], "r3", {"A": LOSER, "B": "rR r7 b7 g8 y9 g0 gS"})
    log.next("B").play("B", "rR").next("B").play("B", "r7").next("A")
    check(log)


def test_reverse_with_two_players_passing_the_turn():
    """リバース: 2人でプレイしている場合はスキップと同じ効果を持つ。"""
    log = Log(["A", "B"], "r3", {"A": LOSER, "B": "rR r7 b7 g8 y9 g0 gS"})
    log.next("B").play("B", "rR").next("A")
    check(log, "next-seat")


def test_reverse_with_three_players():
    """リバース: 手番が反対回りになる。"""
    log = three(B="rR r7 b7 g8 y9 y3 g0").next("B").play("B", "rR").next("A")
    log.play("A", "W", color="yellow").next("C")
    check(log)


def test_reverse_with_three_players_not_applied():
    """リバース: 手番が反対回りになる。"""
    log = three(B="rR r7 b7 g8 y9 y3 g0").next("B").play("B", "rR").next("C")
    check(log, "next-seat")


def test_skip_not_applied():
    """スキップ: 隣にいる次のプレイヤーの手番を飛ばして1回休みにする。"""
    log = three(B="rS r7 b7 g8 y9 y3 g0").next("B").play("B", "rS").next("C")
    check(log, "next-seat")


# =============================================================================================
# ワイルド・ドロー4: legal only without a card of the current colour (R17)
# =============================================================================================

def test_wild_draw_4_holding_the_number_in_another_colour():
    """自分の手札に場の色と同じ"色"のカードをもっていなければ(※数字や記号は関係ない)、いつでも出すことができ
    ※…日本ウノ協会ではグローバルに英語版ルールに準拠している。 (a blue 3 on a red 3, and a black wild, do not count)"""
    log = three(B="W+4 b3 W g1 g4 y8 b2").next("B").play("B", "W+4", color="blue")
    log.next("C").draw("C", 4).next("A")
    check(log)


def test_wild_draw_4_holding_the_colour():
    """自分の手札に場の色と同じ"色"のカードをもっていなければ…いつでも出すことができ"""
    log = three(B="W+4 r7 g1 g4 y8 b2 b9").next("B").play("B", "W+4", color="blue")
    log.next("C").draw("C", 4).next("A")
    check(log, ("wd4-bluff", "B"))


def test_wild_draw_4_holding_the_colour_chosen_for_a_wild():
    """場の色と同じ"色"のカード (the current colour is the one chosen for the wild on top)"""
    log = three("W", B="W+4 g3 b1 b2 y8 y9 y3").colour("A", "green").next("B")
    log.play("B", "W+4", color="red").next("C").draw("C", 4).next("A")
    check(log, ("wd4-bluff", "B"))


# =============================================================================================
# チャレンジ (R18–R20)
# =============================================================================================
LEGAL_WD4 = "W+4 b3 W g1 g4 y8 b2"   # on a red 3: no red card (a blue 3 and a wild do not count)
BLUFF_WD4 = "W+4 r7 g1 g4 y8 b2 b9"  # on a red 3: holds a red 7


def test_challenge_fails():
    """同じ色のカードが手札になかった場合、チャレンジ失敗となりチャレンジしたプレイヤーが…合計6枚のカードをひく。"""
    log = three(B=LEGAL_WD4).next("B").play("B", "W+4", color="blue").next("C")
    log.challenge("C", "B", success=False, n=6).next("A")
    check(log)


def test_challenge_succeeds_and_the_offender_plays_again():
    """同じ色のカードが手札にあった場合、チャレンジ成功となりワイルド・ドロー4を出したプレイヤーのほうが4枚のカードをひかなければならない。
    またワイルド・ドロー4のカードは手札に戻し、正しいカード(場札と同じ色のカードやワイルド等)を出すこと。"""
    log = three(B=BLUFF_WD4).next("B").play("B", "W+4", color="blue").next("C")
    log.challenge("C", "B", success=True).next("B", must_play_card=True)
    log.play("B", "r7").next("C").play("C", "r8").next("A")
    check(log, ("wd4-bluff", "B"))


def test_challenged_offender_draws_instead_of_playing():
    """またワイルド・ドロー4のカードは手札に戻し、正しいカード(場札と同じ色のカードやワイルド等)を出すこと。"""
    log = three(B=BLUFF_WD4).next("B").play("B", "W+4", color="blue").next("C")
    log.challenge("C", "B", success=True).next("B", must_play_card=True)
    log.refused_draw("B").penalty("B", PLAY_REQUIRED)
    check(log, ("challenge-must-play", "B"), ("wd4-bluff", "B"))


def test_public_card_hides_a_card():
    """チャレンジされたプレイヤーはチャレンジしたプレイヤーにのみ手札を公開する。"""
    log = three(B=LEGAL_WD4).next("B").play("B", "W+4", color="blue").next("C")
    log.challenge("C", "B", success=False, n=6, shown=log.hand("B")[:-1]).next("A")
    check(log, "public-card")


def test_challenge_verdict_counts_a_matching_number():
    """(※数字や記号は関係ない) … 同じ色のカードが手札になかった場合、チャレンジ失敗
    (the dealer calls a blue 3 on a red 3 a reason for success, as the mistranslated Japanese edition would)"""
    # Assumed: the outcome is judged against the dealer's stated verdict, so a wrong verdict whose
    # cards follow it is challenge-verdict only.
    log = three(B=LEGAL_WD4).next("B").play("B", "W+4", color="blue").next("C")
    log.challenge("C", "B", success=True)
    check(log, "challenge-verdict")


def test_challenge_success_with_the_wrong_receiver():
    """チャレンジ成功となりワイルド・ドロー4を出したプレイヤーのほうが4枚のカードをひかなければならない。"""
    log = three(B=BLUFF_WD4).next("B").play("B", "W+4", color="blue").next("C")
    log.challenge("C", "B", success=True, receiver="C", n=4)
    check(log, "challenge-outcome", ("wd4-bluff", "B"))


def test_challenge_against_a_wild_draw_4_on_a_wild_draw_4():
    """◆ワイルド・ドロー4の上にさらにワイルド・ドロー4が重ねられた場合、チャレンジはできない。"""
    log = three("r5", B="W+4 b1 b2 g1 g2 y8 y9", C="W+4 b3 b6 g3 g4 y1 y2").next("B")
    log.play("B", "W+4", color="green").next("C").play("C", "W+4", color="yellow").next("A")
    log.refused_challenge("A", "C").penalty("A", CANNOT_CHALLENGE)
    check(log, ("challenge-eligible", "A"))


def test_challenge_without_a_wild_draw_4():
    """ワイルド・ドロー4を出された次の手番のプレイヤーは…"チャレンジ"と宣言してチェックすることができる。"""
    log = three().next("B").play("B", "r7").next("C")
    log.refused_challenge("C", "B").penalty("C", CANNOT_CHALLENGE).next("A")
    check(log, ("challenge-eligible", "C"))


WD4_ON_D2 = {"A": A_, "B": "b+2 r7 b7 g8 y9 y3 g0"}


def test_challenge_on_draw_2_succeeds_with_a_draw_2_of_the_colour():
    """◆ただしドロー2の上に重ねたワイルド・ドロー4にはチャレンジできるが、チャレンジ成功のためには場と同じ色のドロー2が手札にあることが必要。"""
    log = Log(ABC, "b5", {**WD4_ON_D2, "C": "W+4 b+2 r8 g9 y1 y2 r1"})
    log.next("B").play("B", "b+2").next("C").play("C", "W+4", color="yellow").next("A")
    log.challenge("A", "C", success=True)
    # R20: on success the draw 2's stack is pending again, for the offender, who must play.
    log.next("C", must_play_card=True, must_call_draw_card=True, draw_reason="draw_2",
             draw_stack=stack(2, "b+2"))
    log.play("C", "b+2").next("A", draw_stack=stack(4, "b+2 b+2")).draw("A", 4).next("B")
    check(log, ("wd4-bluff", "C"))


def test_challenge_on_draw_2_fails_without_a_draw_2_of_the_colour():
    """◆…チャレンジ成功のためには場と同じ色のドロー2が手札にあることが必要。
    (C holds a blue number and a red draw 2 — neither counts; the challenger draws 2 + 4 + 2)"""
    log = Log(ABC, "b5", {**WD4_ON_D2, "C": "W+4 b6 r+2 g9 y1 y2 r1"})
    log.next("B").play("B", "b+2").next("C").play("C", "W+4", color="yellow").next("A")
    log.challenge("A", "C", success=False, n=8).next("B")
    check(log)


def test_challenge_on_draw_2_wrong_verdict():
    """◆…チャレンジ成功のためには場と同じ色のドロー2が手札にあることが必要。
    (the dealer applies the plain rule: C held a blue card, so "success")"""
    log = Log(ABC, "b5", {**WD4_ON_D2, "C": "W+4 b6 r+2 g9 y1 y2 r1"})
    log.next("B").play("B", "b+2").next("C").play("C", "W+4", color="yellow").next("A")
    log.challenge("A", "C", success=True)
    check(log, "challenge-verdict")


# =============================================================================================
# End of the round and scoring (R21, R22)
# =============================================================================================

def test_finish_on_a_draw_2_next_player_draws_and_it_counts():
    """ドロー2かワイルド・ドロー4であがったときは、次のプレイヤーは決められた枚数を山札からとって、そのカードもスコアに加算しなければならない。"""
    # Assumed: the last-card draw is a draw-card line by the next player right after the winning
    # play, with no next-player line (the round is over), then finish-turn.
    log = two(B="rS rR gR gS bS bR b+2").next("B").chain("B", "rS rR gR gS bS bR")
    log.play("B", "b+2").draw("A", 2).finish("B")
    assert log.rows[-1]["contents"]["score"]["B"] > 28
    check(log)


def test_finish_on_a_draw_2_cards_left_out_of_the_score():
    """…そのカードもスコアに加算しなければならない。"""
    log = two(B="rS rR gR gS bS bR b+2").next("B").chain("B", "rS rR gR gS bS bR")
    log.play("B", "b+2").draw("A", 2).finish("B", score={"A": -28, "B": 28})
    check(log, "round-score")


def test_finish_on_a_draw_2_one_card_drawn():
    """次のプレイヤーは決められた枚数を山札からとって"""
    log = two(B="rS rR gR gS bS bR b+2").next("B").chain("B", "rS rR gR gS bS bR")
    log.play("B", "b+2").draw("A", 1).finish("B")
    check(log, "stack-total")


def test_finish_on_a_wild_draw_4_next_player_draws_four():
    """ドロー2かワイルド・ドロー4であがったときは、次のプレイヤーは決められた枚数を山札からとって…"""
    log = two(B="rS rR gR gS bS bR W+4").next("B").chain("B", "rS rR gR gS bS bR")
    log.play("B", "W+4", color="blue").draw("A", 4).finish("B")
    check(log)


# B wins a three-player round with three pairs and a last card; A and C play in between.
PAIRS_ROUND = {"A": "g8 y9 b6 y1 y3 W r2", "B": "r5 r5 g2 g2 y4 y4 b1", "C": "r8 g9 y6 b4 b5 gR r1"}


def pairs_round() -> Log:
    log = Log(ABC, "r3", dict(PAIRS_ROUND))
    log.next("B").play("B", "r5", pair="r5").next("C").play("C", "r8").next("A").play("A", "g8")
    log.next("B").play("B", "g2", pair="g2").next("C").play("C", "g9").next("A").play("A", "y9")
    log.next("B").play("B", "y4", pair="y4", yell=True).next("C").play("C", "y6").next("A").play("A", "b6")
    log.next("B").play("B", "b1")
    return log


def test_jua_scoring():
    """あがったプレイヤーは他のプレイヤー全員の手札の合計ポイントが得点となる。また他のプレイヤーは自分の手札の合計ポイントだけ減点される。
    (A: y1 y3 W r2 = 56; C: b4 b5 gR r1 = 30)"""
    log = pairs_round().finish("B", {"A": -56, "B": 86, "C": -30}, total={"A": -56, "B": 86, "C": -30})
    check(log)


def test_jua_scoring_winner_given_one_hand_only():
    """あがったプレイヤーは他のプレイヤー全員の手札の合計ポイントが得点となる。"""
    log = pairs_round().finish("B", {"A": -56, "B": 56, "C": -30})
    check(log, "round-score")


def test_running_total_wrong():
    """全5ラウンドを通じて、最終的に得点が高い順から…"""
    log = pairs_round().finish("B", {"A": -56, "B": 86, "C": -30}, total={"A": -56, "B": 96, "C": -30})
    check(log, "total-score")


# =============================================================================================
# Next round and the match (R23, R24)
# =============================================================================================
ROUND2 = {"A": "y5 y6 y7 b8 b9 r6 r7", "B": "r1 r2 r4 y1 y2 y3 y4", "C": "g4 g5 g6 b5 b6 b7 W"}


def test_winner_starts_the_next_round_same_circle():
    """あがったプレイヤーは次のラウンドのスタートプレイヤーになる。"""
    log = pairs_round().finish("B").deal(["B", "C", "A"], "g3", dict(ROUND2)).next("C")
    log.play("C", "g4").next("A")
    check(log)


def test_next_round_started_by_the_same_start_player():
    """あがったプレイヤーは次のラウンドのスタートプレイヤーになる。"""
    log = pairs_round().finish("B").deal(["A", "B", "C"], "g3", dict(ROUND2))
    check(log, "dealer-rotation")


def test_next_round_with_the_seating_changed():
    """あがったプレイヤーは次のラウンドのスタートプレイヤーになる。 (R23: the seating circle never changes)"""
    log = pairs_round().finish("B").deal(["B", "A", "C"], "g3", dict(ROUND2))
    check(log, "dealer-rotation")


def two_player_match(rounds: int) -> Log:
    """Each round the start player's left neighbour sheds its 7 cards in a row and wins (28 points);
    the winner starts the next round, so the two players win in turn: B, A, B, A, B."""
    start, other = "A", "B"
    log: Log | None = None
    for _ in range(rounds):
        hands = {other: "rS rR gR gS bS bR b7", start: LOSER}
        if log is None:
            log = Log([start, other], "r3", hands)
        else:
            log.deal([start, other], "r3", hands)
        log.next(other).chain(other, "rS rR gR gS bS bR").play(other, "b7").finish(other, total=True)
        start, other = other, start
    return log


def test_five_rounds():
    """全5ラウンドを通じて、最終的に得点が高い順から1位、2位……と順位を決定する。"""
    log = two_player_match(5).finish_game()
    assert log.rows[-1]["contents"] == {"winner": "B", "order": {"A": 2, "B": 3}, "score": {"A": -28, "B": 28}}
    check(log)


def test_three_rounds_only():
    """全5ラウンドを通じて…"""
    log = two_player_match(3).finish_game()
    check(log, "round-count")


def test_match_winner_wrong():
    """最終的に得点が高い順から1位、2位……と順位を決定する。"""
    log = two_player_match(5).finish_game(winner="A")
    check(log, "match-result")


# =============================================================================================
# Every code the brief requires fires somewhere above (a guard against a case being dropped).
# =============================================================================================
REQUIRED = {
    "turn-owner", "card-owned", "card-legal-on-top", "wild-colour-given", "uno-call-missed",
    "play-draw-allowed", "challenge-eligible", "challenge-verdict", "challenge-outcome", "round-score",
    "next-seat", "wd4-bluff", "deal-and-first-card", "conservation", "pair-identical", "pair-finish-uno",
    "stack-answer", "challenge-must-play", "stack-total", "dealer-rotation", "round-count", "player-count",
}


def test_every_required_code_is_expected_somewhere():
    import ast
    import inspect
    import sys

    expected_in_checks = set()
    for node in ast.walk(ast.parse(inspect.getsource(sys.modules[__name__]))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check":
            for arg in node.args[1:]:
                expected_in_checks |= {c.value for c in ast.walk(arg) if isinstance(c, ast.Constant)}
    assert REQUIRED <= expected_in_checks, REQUIRED - expected_in_checks


def test_golden_logs_are_well_formed():
    """The builder's own bookkeeping: seq runs 1, 2, 3…; every card is a JUA card or deliberately odd."""
    log = pairs_round().finish("B")
    assert [r["seq"] for r in log.rows] == list(range(1, len(log.rows) + 1))
    assert card("y+2") == {"color": "yellow", "special": "draw_2"}
    assert log.rows[-1]["contents"]["score"] == {"A": -56, "B": 86, "C": -30}

