"""Every check the CHaser validator can report (codes are stored in ``violations.code``;
``docs/rules/chaser.md`` lists each with its rulebook source)."""

from __future__ import annotations

from rules.core import CONSISTENCY, ERROR, PLAYER_RULE, WARNING, Check

_P, _C = PLAYER_RULE, CONSISTENCY

CHECKS: dict[str, Check] = {
    c.code: c
    for c in [
        # ---- player-rule: what the rules forbid a client to do
        Check("chaser-invalid-method", _P, ERROR, "sent a method the server does not know", "ルールブック 勝敗 (6) 通信エラーなど競技中断の原因; server [停止]…不正なメソッド"),
        Check("chaser-invalid-direction", _P, ERROR, "sent an action without a valid direction", "ルールブック 勝敗 (6); server [停止]…不正な方向"),
        Check("chaser-no-response", _P, ERROR, "stopped answering (disconnected, timed out or no GetReady)", "ルールブック 勝敗 (6) 通信エラーなど競技中断の原因を作る"),
        # ---- consistency: the log against the replay on the map
        Check("chaser-surroundings", _C, ERROR, "logged 3×3 surroundings differ from the replay", "server log <TEAM>:<10 digits> (the 3×3 around the player after its action)"),
        Check("chaser-item-taken", _C, ERROR, "an item taken (or not) where the replay says otherwise", "ルールブック アイテム; server [取得]"),
        Check("chaser-final-items", _C, ERROR, "the item count at the end differs from the replay", "ルールブック 勝敗 (2); server [得点]"),
        Check("chaser-end", _C, ERROR, "the end of the game (who, why, when) differs from the replay", "ルールブック 勝敗 (1)(3)(4)(5); server [死因]"),
        Check("chaser-winner", _C, ERROR, "the logged winner differs from the replay", "ルールブック 勝敗; server [決着]"),
        Check("chaser-turns", _C, WARNING, "rounds or actions out of order (remaining turns, Cool then Hot)", "ルールブック 7. ターン数 (Cool と Hot がそれぞれ命令を実行した時点で 1 ターン)"),
        Check("chaser-log-line", _C, WARNING, "a line the server does not write there, read past (skipped or read where it belongs)", "the server's log order (MainWindow::StepGame)"),
        Check("chaser-truncated", _C, WARNING, "the log stops before the end of the game", "server [決着] (the last line of a complete log)"),
    ]
}
