-- The final standing of every player of the selected matches: score, rank, and for Kakomimasu the area
-- and wall points after the last turn (as logged by the server).
-- grain: one row per (match_id, player_code)
-- params: $match (match_id, dealer code or name; null = all)
with last as (
    -- the points the server logged (what decided the game); the replay's where the log has none (a
    -- difference between the two is a consistency finding)
    select pt.match_id, pt.player_index, coalesce(pt.area_point, pt.area_point_replayed) as area,
           coalesce(pt.wall_point, pt.wall_point_replayed) as wall
    from kakomimasu_points pt
    where pt.turn = (select max(turn) from kakomimasu_points x where x.match_id = pt.match_id)
)
select p.match_id, p.player_code, p.player_name, p.join_order, p.final_score, p.final_rank, l.area, l.wall
from players p
join matches m on m.match_id = p.match_id
left join last l on l.match_id = p.match_id and l.player_index = p.join_order - 1
where $match is null or m.match_id = $match or m.dealer_code = $match or m.dealer_name = $match
order by p.match_id, case when m.game = 'algori-uno' then p.final_rank else p.join_order end, p.join_order
