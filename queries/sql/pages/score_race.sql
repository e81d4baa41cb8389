-- Running total of every player after every round of one match (the score race).
-- grain: one row per (round_no, player) of $match
select r.round_no, coalesce(p.player_name, r.player_code) as player_name, r.player_code,
       r.score, r.total_score
from round_scores r
left join players p on p.match_id = r.match_id and p.player_code = r.player_code
where r.match_id = $match
order by r.round_no, player_name
