-- Players of one match: rank (contest tie-break), score, wins and what they did.
-- grain: one row per player of $match
with v as (
    select player, count(*) filter (where severity = 'error') as violations,
           count(*) filter (where code = 'wd4-bluff') as wd4_bluffs
    from violations where match_id = $match group by player
),
pen as (select player, count(*) as penalties, sum(cards_received) as penalty_cards
        from penalties where match_id = $match group by player),
ch as (select challenger as player, count(*) filter (where is_challenge) as challenges,
              count(*) filter (where success) as challenges_won
       from challenges where match_id = $match group by challenger),
sl as (select player, count(*) as special_logic from special_logic where match_id = $match group by player)
select p.final_rank as rank, p.player_name, p.player_code, p.final_score, p.rounds_won,
       coalesce(pen.penalties, 0) as penalties, coalesce(pen.penalty_cards, 0) as penalty_cards,
       coalesce(v.violations, 0) as violations, coalesce(ch.challenges, 0) as challenges,
       coalesce(ch.challenges_won, 0) as challenges_won, coalesce(sl.special_logic, 0) as special_logic,
       coalesce(v.wd4_bluffs, 0) as wd4_bluffs
from players p
left join pen on pen.player = p.player_code
left join v on v.player = p.player_code
left join ch on ch.player = p.player_code
left join sl on sl.player = p.player_code
where p.match_id = $match
order by p.final_rank nulls last, p.join_order
