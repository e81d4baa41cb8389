-- Final totals of the chosen matches with the round at which each player first had its final total
-- (the contest tie-break). params: $matches (list of match ids)
-- grain: one row per (match_id, player)
with finals as (
    select p.match_id, p.player_code, p.player_name, p.final_score, p.final_rank
    from players p where list_contains($matches, p.match_id)
),
reached as (
    select f.match_id, f.player_code, min(r.round_no) as reached_round
    from finals f join round_scores r on r.match_id = f.match_id and r.player_code = f.player_code
    where r.total_score = f.final_score  -- first had the final score (a falling total too)
    group by all
)
select f.match_id, m.dealer_name, m.rounds_played, f.player_name, f.player_code, f.final_score, f.final_rank,
       r.reached_round
from finals f join matches m using (match_id)
left join reached r using (match_id, player_code)
order by f.match_id, f.final_rank
