-- The round score and the running total of every player at the end of one round (the dealer's
-- 対戦得点 / 累計 rows).
-- grain: one row per player of ($match, $round), in join order
select p.player_code, p.player_name, s.score, s.total_score, s.is_winner
from players p
left join round_scores s on s.match_id = p.match_id and s.player_code = p.player_code and s.round_no = $round
where p.match_id = $match
order by p.join_order
