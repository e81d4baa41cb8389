"""Every check the ALGORI validator can report: code, family, default severity, rule source.

Codes are a public contract (stored in ``violations.code``); change them only with a
ruleset version bump and a line in ``docs/rules/algori-uno.md``.
"""

from __future__ import annotations

from typing import Any

from rules.core import CONSISTENCY, DEALER_JUDGEMENT, ERROR, INFO, PLAYER_RULE, WARNING, Check, Violation

_P, _D, _C = PLAYER_RULE, DEALER_JUDGEMENT, CONSISTENCY

CHECKS: dict[str, Check] = {
    c.code: c
    for c in [
        # ---- player-rule: what a bot did against the rules
        Check("turn-owner", _P, ERROR, "acted out of turn", "System spec §5(3) error tables (Next player invalid.)"),
        Check("owed-draw-respected", _P, ERROR, "played while a draw was owed", "Contest rules カードの種類 ドロー2 / ワイルドドロー4 / 白いワイルド; spec §5(3)2 (Can not play card.)"),
        Check("card-object-valid", _P, ERROR, "malformed or non-existent card", "System spec §5(1) Card, §5(3)2"),
        Check("yell-field-valid", _P, ERROR, "yell_uno missing or not boolean", "System spec §5(3)2, §5(3)4"),
        Check("card-owned", _P, ERROR, "played a card not in the hand", "System spec §5(3)2 (Card play not exist of player.)"),
        Check("card-legal-on-top", _P, ERROR, "card does not match the top card", "Contest rules ゲーム進行: 場札と同じ色・数字・記号"),
        Check("wild-colour-given", _P, ERROR, "wild without a colour", "Contest rules カードの種類 ワイルド: 色を指定する"),
        Check("wild-colour-valid", _P, ERROR, "invalid colour for a wild", "System spec §5(1) Color"),
        Check("yell-only-at-two", _P, ERROR, "UNO yelled without going down to one card", "System spec §5(3)2 (Can not say uno and play card.)"),
        Check("uno-call-missed", _P, WARNING, "went down to one card without yelling UNO", "Contest rules ゲーム進行: 残り1枚になったら UNO と宣言"),
        Check("wd4-bluff", _P, INFO, "wild draw 4 played while holding another playable card", "Contest rules カードの種類 ワイルドドロー4 / チャレンジルール (legal unless challenged)"),
        Check("play-draw-allowed", _P, ERROR, "play-draw-card without a playable drawn card, or bad is_play_card", "System spec §5(3)4"),
        Check("challenge-eligible", _P, ERROR, "illegal challenge", "Contest rules チャレンジルール; spec §5(3)5"),
        Check("colour-choice-eligible", _P, ERROR, "colour choice not asked for, or invalid", "System spec §5(4)3 color-change-request"),
        Check("pointing-valid", _P, ERROR, "invalid UNO pointing", "System spec §5(3)6 pointed-not-say-uno"),
        Check("pointing-without-effect", _P, INFO, "pointed at a player who yelled or was out of reach", "System spec §5(3)6 (no penalty)"),
        Check("special-logic-valid", _P, ERROR, "special logic without title or title too long", "Contest rules スペシャルロジックについて (32 全角 characters); spec §5(3)7"),
        Check("special-logic-limit", _P, WARNING, "more than 10 special logics in a round", "System spec §5(3)7 (10 回以上は処理されない)"),
        Check("special-logic-registry", _P, WARNING, "more than 3 distinct special-logic titles in a match", "Contest rules スペシャルロジックについて (3 つまで登録)"),
        Check("response-time", _P, ERROR, "did not act within 5 seconds", "Contest rules ゲーム進行 (5 秒以内); dealer timers"),
        # ---- dealer-judgement: decisions the dealer made, re-derived
        Check("penalty-cause", _D, ERROR, "penalty text differs from the error the rules give", "System spec §5(3) error tables; digest §2, §4.2"),
        Check("penalty-unjustified", _D, ERROR, "penalty for an action the validator finds legal", "System spec §5(3) error tables"),
        Check("missing-penalty", _D, ERROR, "illegal action accepted without penalty", "System spec §5(3) error tables"),
        Check("penalty-count", _D, ERROR, "wrong number of penalty cards", "Contest rules ゲーム進行 (2 枚, 25 枚上限); spec §5(5)"),
        Check("forced-draw-amount", _D, ERROR, "forced draw of the wrong size", "Contest rules ドロー2 / ワイルドドロー4 / 白いワイルド; spec §5(3)3"),
        Check("voluntary-draw", _D, ERROR, "voluntary draw handled wrongly", "Contest rules ゲーム進行 (1 枚引く, 25 枚上限); spec §5(3)3"),
        Check("draw-reason", _D, WARNING, "draw_reason differs from the recomputed reason", "System spec §5(1) DrawReason"),
        Check("next-seat", _D, ERROR, "turn given to the wrong player", "Contest rules スキップ / リバース / 白いワイルド; digest §0 hand-over"),
        Check("predicted-next", _D, WARNING, "play line's next_player/skip_player prediction differs", "Dealer play-card handler (digest §2.1)"),
        Check("turn-counter", _D, WARNING, "number_turn_play does not advance by one per hand-over", "Dealer getNextPlayer (digest §0)"),
        Check("deal-and-first-card", _D, ERROR, "wrong deal or forbidden first card", "Contest rules 基本ルール (7 枚, 最初の場札)"),
        Check("challenge-verdict", _D, ERROR, "challenge verdict differs from the dealer's rule", "Contest rules チャレンジルール; dealer isChallengeSuccessfully"),
        Check("challenge-rule-departure", _D, WARNING, "dealer's challenge verdict differs from the written rule (white wild)", "Contest rules チャレンジルール vs dealer (digest X1)"),
        Check("challenge-outcome", _D, ERROR, "wrong cards or receiver after a challenge", "Contest rules チャレンジルール (4 枚 / 6 枚)"),
        Check("public-card", _D, ERROR, "public-card does not show the challenged hand", "System spec §5(4)7"),
        Check("uno-pointing-outcome", _D, ERROR, "pointing outcome differs from the rules", "Contest rules ゲーム進行 (UNO 宣言忘れ 2 枚)"),
        Check("shuffle-redistribution", _D, ERROR, "shuffle wild redistributed the cards wrongly", "Contest rules シャッフルワイルド"),
        Check("round-end", _D, ERROR, "round ended (or not) against the rules", "Contest rules ゲーム進行 (終了条件)"),
        Check("wd4-last-card-draw", _D, WARNING, "winning wild draw 4 made nobody draw", "Contest rules ゲーム進行 (最後のカードの効果); digest X3"),
        Check("round-score", _D, ERROR, "round score differs from the final hands", "Contest rules 得点の計算"),
        Check("total-score", _D, ERROR, "running total differs from the sum of round scores", "Contest rules 得点の計算"),
        Check("match-result", _D, ERROR, "match result differs (wins, totals, winner with tie-break)", "Contest rules 予選大会の進行 (先にその得点に達していたチーム)"),
        Check("timeout-effects", _D, ERROR, "timeout given to a player who was not to act", "Dealer timeoutPlayer (digest §4.3)"),
        Check("timeout-early", _D, WARNING, "timeout written before the 5 seconds were up", "Contest rules ゲーム進行 (5 秒以内); dealer TIMEOUT_OF_PLAYER (digest §4.3)"),
        Check("timeout-missed", _D, WARNING, "action after more than 5 seconds without a timeout", "Contest rules ゲーム進行 (5 秒以内); dealer TIMEOUT_OF_PLAYER (digest §4.3)"),
        # ---- dealer-judgement: where the dealer departs from the written rules (reported when it happens)
        Check("special-logic-timer", _D, WARNING, "an accepted special-logic disabled the 5-second timer", "Contest rules ゲーム進行 (5 秒以内) vs dealer special-logic timer (digest X16)"),
        Check("wild-colour-rejected", _D, WARNING, "wild / wild draw 4 without a valid colour refused whole", "Contest rules ワイルド / ワイルドドロー4 (カードは場に出たまま、色は前の色) vs dealer (digest X2)"),
        Check("bound-challenge-refused", _D, WARNING, "a bound player's challenge refused", "Contest rules チャレンジルール (次のプレイヤーはチャレンジできる) vs dealer (digest X6)"),
        Check("pointing-window", _D, INFO, "UNO pointing refused although the rules' window was open", "Contest rules ゲーム進行 (次のプレイヤーがカードを出すまで) vs dealer (digest X14)"),
        Check("penalty-cap-silent", _D, INFO, "refusal at 25 cards without a penalty line", "Contest rules ゲーム進行 (25 枚上限) vs dealer handlePenalty (digest X12)"),
        Check("deck-exhausted-continues", _D, INFO, "round went on with an empty draw pile and one discard", "Contest rules ゲーム進行 (山札 0 枚・場札 1 枚で終了) vs dealer (digest X13)"),
        # ---- consistency: the log against the replayed board
        Check("snapshot-mismatch", _C, ERROR, "desk snapshot differs from the replayed board", "Dealer deskLog; digest Appendix A"),
        Check("next-player-contents", _C, ERROR, "next-player payload differs from the replayed board", "Dealer nextPlayerAction"),
        Check("echo-fields", _C, WARNING, "a field the dealer echoes (turn or round number, actor, drawn card, pointer) differs from the replay", "Dealer handlers; docs/rules/algori-fields.md"),
        Check("event-sequence", _C, ERROR, "events out of the dealer's order, or gaps", "Digest Appendix A sequences"),
        Check("finish-hands", _C, ERROR, "finish-turn hands differ from the replayed hands", "Dealer turnEnd"),
        Check("conservation", _C, ERROR, "cards are not conserved (hands + piles != deck, or a card in play more often than the deck holds it)", "Contest rules カードの種類 (112 枚)"),
        Check("cards-played-counter", _C, WARNING, "number_card_play differs from the replayed counter", "Dealer counters (digest X21)"),
        # ---- JUA competition rules (profile jua-2016, docs/rules/jua.md)
        Check("pair-identical", _P, ERROR, "a pair of cards that are not identical number cards", "JUA ◆2枚出しルール (R12)"),
        Check("pair-finish-uno", _P, WARNING, "finished with a pair without the UNO call: one card played", "JUA ◆最後に2枚の同一カードを出してあがる (R13)"),
        Check("stack-answer", _P, ERROR, "a card that may not answer the pending draw stack", "JUA ドロー2 / ワイルド・ドロー4 ◆累積 (R14, R15)"),
        Check("challenge-must-play", _P, ERROR, "after a successful challenge, the offender did not play a correct card", "JUA チャレンジ: 正しいカードを出すこと (R19)"),
        Check("stack-total", _D, ERROR, "a draw, challenge or draw_stack differs from the stack's total", "JUA ◆ひかなければならない枚数は累積されてゆく (R14, R19, R21)"),
        Check("dealer-rotation", _D, ERROR, "the round's start player is not the last winner, or the seating changed", "JUA あがったプレイヤーは次のラウンドのスタートプレイヤー (R23)"),
        Check("round-count", _D, ERROR, "the match has another number of rounds than its profile", "JUA 全5ラウンド (R24)"),
        Check("player-count", _D, ERROR, "fewer or more players than the profile allows", "JUA 準備: 2〜10人; ALGORI: 4 players per dealer (digest §0)"),
    ]
}

#: Checks the profile audit (rules.uno.audit) reports; every other check is the ALGORI dealer audit's.
PROFILE_CHECKS = frozenset({
    "turn-owner", "card-object-valid", "card-owned", "card-legal-on-top", "wild-colour-given", "wild-colour-valid",
    "uno-call-missed", "pointing-without-effect", "wd4-bluff", "play-draw-allowed", "challenge-eligible", "colour-choice-eligible",
    "penalty-cause", "penalty-unjustified", "missing-penalty", "penalty-count", "voluntary-draw",
    "next-seat", "turn-counter", "deal-and-first-card", "challenge-verdict", "challenge-outcome", "public-card",
    "uno-pointing-outcome", "round-end", "round-score", "total-score", "match-result", "snapshot-mismatch",
    "next-player-contents", "echo-fields", "event-sequence", "finish-hands", "conservation", "cards-played-counter",
    "pair-identical", "pair-finish-uno", "stack-answer", "challenge-must-play", "stack-total", "dealer-rotation",
    "round-count", "player-count",
})  # fmt: skip
#: Checks only the profile audit reports (profiles with the JUA rules' pairs and stacking).
PROFILE_ONLY = frozenset({"pair-identical", "pair-finish-uno", "stack-answer", "challenge-must-play", "stack-total",
                          "dealer-rotation", "round-count"})


def applies_to(code: str) -> tuple[str, ...]:
    """The profile families a check applies to (``algori-2023``, ``jua-2016``)."""
    out = [] if code in PROFILE_ONLY else ["algori-2023"]
    if code in PROFILE_CHECKS:
        out.append("jua-2016")
    return tuple(out)


ERROR_TO_CODE: dict[str, str] = {
    "Next player invalid.": "turn-owner",
    "Can not play card.": "owed-draw-respected",
    "Card play is required.": "card-object-valid",
    "Param card play invalid.": "card-object-valid",
    "Special card play invalid.": "card-object-valid",
    "Color card play invalid.": "card-object-valid",
    "Number card play invalid.": "card-object-valid",
    "Card play invalid.": "card-object-valid",
    "Yell uno is required.": "yell-field-valid",
    "Param yell uno invalie.": "yell-field-valid",
    "Card play not exist of player.": "card-owned",
    "Card play invalid with card before.": "card-legal-on-top",
    "Color of wild is required.": "wild-colour-given",
    "Color wild invalid.": "wild-colour-valid",
    "Can not say uno and play card.": "yell-only-at-two",
    "Can not play draw card.": "play-draw-allowed",
    "Is play card is required.": "play-draw-allowed",
    "Param is play card invalie.": "play-draw-allowed",
    "Is challenge is required.": "challenge-eligible",
    "Param is challenge invalie.": "challenge-eligible",
    "Can not challenge.": "challenge-eligible",
    "Already changed color.": "colour-choice-eligible",
    "Can not chose color of wild.": "colour-choice-eligible",
    "Player name is required.": "pointing-valid",
    "Player name invalid.": "pointing-valid",
    "Can not pointed not say uno.": "pointing-valid",
    "Param title invalid.": "special-logic-valid",
    "Special logic title too long.": "special-logic-valid",
    "timeout": "response-time",
    "color-of-wild timeout": "response-time",
    "Did not say uno.": "uno-call-missed",
}


def finding(code: str, ev: Any, message: str, *, player: Any = None, round_no: int | None = None,
            turn_no: int | None = None, expected: str | None = None, actual: str | None = None,
            severity: str | None = None) -> Violation:  # fmt: skip
    """A finding of check ``code`` about event ``ev`` (family and default severity from the catalog)."""
    check = CHECKS[code]
    return Violation(code=code, family=check.family, severity=severity or check.severity, message=message,
                     seq=ev.seq, round_no=ev.round_no if ev.round_no is not None else round_no,
                     turn_no=ev.turn_no if ev.turn_no is not None else turn_no,
                     player=player if isinstance(player, str) else None, expected=expected, actual=actual)  # fmt: skip
