-- A Kakomimasu game's teams: final area, wall and total points, rank, actions and how many failed.
-- grain: one row per player
with last as (
    select player_index, area_point_replayed as area, wall_point_replayed as wall
    from kakomimasu_points
    where match_id = $match and turn = (select max(turn) from kakomimasu_points where match_id = $match)
), acts as (
    select player_index, count(*) as actions, count(*) filter (where res_replayed <> 0) as failed
    from kakomimasu_actions where match_id = $match and res_replayed is not null group by player_index
)
select p.final_rank as rank, coalesce(p.player_name, p.player_code) as player, p.player_code,
       l.area, l.wall, p.final_score as total, a.actions, a.failed, p.join_order - 1 as player_index
from players p
left join last l on l.player_index = p.join_order - 1
left join acts a on a.player_index = p.join_order - 1
where p.match_id = $match
order by p.join_order
