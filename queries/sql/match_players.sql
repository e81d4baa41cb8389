-- Players of the matches, with final score, rank, rounds won and penalty count.
-- grain: one row per (match_id, player_code)
select
    p.match_id,
    p.final_rank,
    p.player_name,
    p.player_code,
    p.final_score,
    p.rounds_won,
    (select count(*) from penalties x where x.match_id = p.match_id and x.player = p.player_code) as penalties,
    (select count(*) from special_logic s where s.match_id = p.match_id and s.player = p.player_code) as special_logic
from players p
order by p.match_id, p.final_rank nulls last, p.join_order
