-- Every Kakomimasu player (by name) across the Kakomimasu games: record, points, and how its actions turned out.
-- grain: one row per player name; counts are integers, rates fractions (0..1)
with sides as (
    select coalesce(p.player_name, p.player_code) as player_name, p.match_id, p.player_code, p.final_score,
           p.join_order - 1 as player_index, m.winner, m.end_kind
    from players p join matches m using (match_id)
    where m.game = 'kakomimasu'
), last as (
    select pt.match_id, pt.player_index, pt.area_point_replayed as area, pt.wall_point_replayed as wall
    from kakomimasu_points pt
    where pt.turn = (select max(turn) from kakomimasu_points x where x.match_id = pt.match_id)
), acts as (
    select match_id, player_index, count(*) as actions, count(*) filter (where res_replayed <> 0) as failed
    from kakomimasu_actions where res_replayed is not null group by match_id, player_index
)
select s.player_name, cast(count(*) as integer) as games,
       cast(count(*) filter (where s.winner = s.player_code) as integer) as wins,
       cast(count(*) filter (where s.winner is not null and s.winner <> s.player_code) as integer) as losses,
       cast(count(*) filter (where s.winner is null and s.end_kind = 'draw') as integer) as draws,
       cast(count(*) filter (where s.winner is null and coalesce(s.end_kind, '') <> 'draw') as integer) as unfinished,
       round(count(*) filter (where s.winner = s.player_code) / count(*), 4) as win_rate,
       cast(coalesce(sum(s.final_score), 0) as integer) as points,
       round(avg(s.final_score), 1) as points_per_game,
       round(avg(l.area), 1) as area, round(avg(l.wall), 1) as wall,
       cast(coalesce(sum(a.actions), 0) as integer) as actions,
       cast(coalesce(sum(a.failed), 0) as integer) as failed,
       round(sum(a.failed) / nullif(sum(a.actions), 0), 4) as failed_rate
from sides s
left join last l on l.match_id = s.match_id and l.player_index = s.player_index
left join acts a on a.match_id = s.match_id and a.player_index = s.player_index
group by s.player_name
order by wins desc, points desc, s.player_name
