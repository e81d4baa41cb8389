-- One CHaser game: the start map, the end explained, the players' names, the map's name.
-- grain: one row per match_id
select g.*, coalesce(mp.name, g.map_name) as map_label, mp.name as tournament_map,
       (select player_name from players p where p.match_id = g.match_id and p.player_code = 'COOL') as cool_name,
       (select player_name from players p where p.match_id = g.match_id and p.player_code = 'HOT') as hot_name
from chaser_games g
left join chaser_maps mp on mp.map_key = g.map_key
where g.match_id = $match
