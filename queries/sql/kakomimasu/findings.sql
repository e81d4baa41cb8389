-- A Kakomimasu game's findings, turn by turn.
-- grain: one row per finding
select v.turn_no as turn, v.player, coalesce(p.player_name, v.player) as player_name, v.code, v.family, v.severity,
       v.message, v.expected, v.actual
from violations v
left join players p on p.match_id = v.match_id and p.player_code = v.player
where v.match_id = $match
order by v.turn_no nulls first, v.severity, v.code
