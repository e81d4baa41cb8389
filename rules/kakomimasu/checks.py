"""Every check the Kakomimasu validator can report: code, family, default severity, rule source.

Codes are a public contract (stored in ``violations.code``); the table in
``docs/rules/kakomimasu.md`` lists each with the rule it enforces.
"""

from __future__ import annotations

from rules.core import CONSISTENCY, DEALER_JUDGEMENT, ERROR, INFO, PLAYER_RULE, WARNING, Check
from rules.kakomimasu.engine import CONFLICT, ILLEGAL_ACTION, ILLEGAL_AGENT, ONLY_ONE_TURN, REVERT

_P, _D, _C = PLAYER_RULE, DEALER_JUDGEMENT, CONSISTENCY

CHECKS: dict[str, Check] = {
    c.code: c
    for c in [
        # ---- player-rule: actions the rules refuse (classified like the server's result codes)
        Check("kakomimasu-no-such-agent", _P, WARNING, "action for an agent the player does not have", "Server result 4 (err: illegal agent); 公式ルール エージェント"),
        Check("kakomimasu-several-actions", _P, WARNING, "several actions for one agent in one turn", "Server result 3 (err: only 1 turn); 公式ルール エージェントの行動 (1ターンでは…いずれか1つの行動)"),
        Check("kakomimasu-illegal-action", _P, WARNING, "action the rules refuse (outside the field, not a neighbour, removing a non-wall, …)", "Server result 5 (err: illegal action); 公式ルール 行動の無効と競合 / 無効"),
        Check("kakomimasu-onto-opponent-wall", _P, WARNING, "put or move onto another team's wall", "Server result 2 (revert); 公式ルール 配置 / 移動 (相手チームの壁となっているマスには…できません)"),
        Check("kakomimasu-put-onto-opponent-wall", _P, WARNING, "an unplaced agent put onto another team's wall (forbidden; the server does not refuse it)", "公式ルール 配置 (相手チームの壁となっているマスには配置できません) / 無効 (相手チームの壁が築かれているマスへの配置); the server answers 0, 1 or 2"),
        Check("kakomimasu-none-action", _P, INFO, "NONE sent: the agent stays, logged by the server as an illegal action", "Server result 5 for type NONE; 公式ルール 停留 / 無効 (行動を指定しなかった場合)"),
        Check("kakomimasu-conflict", _P, INFO, "several actions aimed at one cell: none of them applied", "Server result 1 (conflict); 公式ルール 行動の無効と競合 / 競合"),
        Check("kakomimasu-reverted", _P, INFO, "action undone because another agent stays on or ends at the cell", "Server result 2 (revert); 公式ルール 競合 (停留となったエージェントがいるマスに対して指定した行動)"),
        # ---- dealer-judgement: the server's own behaviour against the written rules
        Check("kakomimasu-forbidden-action-accepted", _D, WARNING, "the server answers success (0) to an action the rules forbid", "公式ルール 無効 (相手チームの壁が築かれているマスへの配置) vs the server's engine v2.0.1 (result 0, the agent silently left off the field)"),
        Check("kakomimasu-area-rule-departure", _D, WARNING, "the server's areas differ from the written area rule", "公式ルール 陣地 / 入れ子 vs the server's engine v2.0.1 (shared tile object)"),
        # ---- consistency: the log against the replay
        Check("kakomimasu-result-code", _C, ERROR, "logged result code differs from the replay", "Server result codes 0–5 (engine nextTurn)"),
        Check("kakomimasu-points", _C, ERROR, "logged points differ from the replay", "公式ルール 得点 (壁ポイント / 陣地ポイント)"),
        Check("kakomimasu-final-tiles", _C, ERROR, "final tiles differ from the replay", "公式ルール エージェントの行動 / 陣地"),
        Check("kakomimasu-final-agents", _C, ERROR, "final agent positions differ from the replay", "公式ルール エージェントの行動"),
        Check("kakomimasu-final-points", _C, ERROR, "players' final points differ from the last logged turn", "公式ルール 得点"),
        Check("kakomimasu-snapshot-tiles", _C, ERROR, "a snapshot's tiles differ from the replay", "公式ルール エージェントの行動 / 陣地"),
        Check("kakomimasu-snapshot-agents", _C, ERROR, "a snapshot's agents moved in a way no action allows", "公式ルール エージェントの行動 (周囲8方向)"),
        Check("kakomimasu-snapshot-points", _C, ERROR, "a snapshot's points differ from its tiles", "公式ルール 得点"),
        Check("kakomimasu-agent-count", _C, WARNING, "nAgent differs from the agents the log shows", "公式ルール エージェント (エージェントの数はフィールドごとに決まっています); players[].agents"),
        Check("kakomimasu-player-count", _C, WARNING, "nPlayer or a turn's player rows differ from the players the game lists", "公式ルール ゲームの進行 (各チームの行動); players / log[].players"),
        Check("kakomimasu-turns", _C, WARNING, "the log's turns do not add up (missing or extra turns)", "公式ルール ゲームの進行 (規定のターン数)"),
        # ---- informational
        Check("kakomimasu-action-undetermined", _P, INFO, "action not in the log and not determined by the snapshots", "2020 logs keep no actions (inferred from successive snapshots)"),
    ]
}

#: Player-rule check for a refused action, by the server's result code.
BY_RESULT = {
    ILLEGAL_AGENT: "kakomimasu-no-such-agent",
    ONLY_ONE_TURN: "kakomimasu-several-actions",
    ILLEGAL_ACTION: "kakomimasu-illegal-action",
    CONFLICT: "kakomimasu-conflict",
    REVERT: "kakomimasu-reverted",
}
