-- A match's scoreboard: every player's round score and running total after every round, with the player's
-- final total and rank (what the log says: round_scores, players).
-- grain: one row per (round_no, player) of $match; players with no round yet have none
select r.round_no, p.player_code, coalesce(p.player_name, p.player_code) as player_name, p.join_order,
       r.score, r.total_score, r.is_winner, p.final_score, p.final_rank
from players p
join round_scores r on r.match_id = p.match_id and r.player_code = p.player_code
where p.match_id = $match
order by r.round_no, p.join_order
