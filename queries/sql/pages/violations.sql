-- The validator's findings; params: $match, $player, $family (null = all), $severity (null = all).
-- grain: one row per finding
select v.match_id, v.round_no, v.turn_no, v.seq, v.severity, v.family, v.code,
       coalesce(pl.player_name, v.player) as player_name, v.player, v.message, v.expected, v.actual, v.penalty_seq
from violations v
left join players pl on pl.match_id = v.match_id and pl.player_code = v.player
where ($match is null or v.match_id = $match)
  and ($player is null or v.player = $player or pl.player_name = $player)
  and ($family is null or v.family = $family)
  and ($severity is null or v.severity = $severity)
order by v.match_id, v.seq nulls last, v.code
limit 5000
