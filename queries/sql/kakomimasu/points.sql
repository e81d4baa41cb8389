-- Every team's points after every turn, as replayed, with the logged values beside them.
-- grain: one row per (turn, player_index)
select k.turn, k.player_index, p.player_code, coalesce(p.player_name, p.player_code) as player,
       k.area_point_replayed as area, k.wall_point_replayed as wall,
       k.area_point_replayed + k.wall_point_replayed as total,
       k.area_point as area_logged, k.wall_point as wall_logged
from kakomimasu_points k
left join players p on p.match_id = k.match_id and p.join_order = k.player_index + 1
where k.match_id = $match
order by k.turn, k.player_index
