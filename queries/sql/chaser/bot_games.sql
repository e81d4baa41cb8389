-- One bot's CHaser games: which side, on which map, the result, how it ended, its items.
-- grain: one row per (match_id) the bot played
select m.started_at, coalesce(mp.name, g.map_name) as map, p.player_code as side,
       case when g.winner = p.player_code then 'win' when g.winner is null then 'draw' else 'loss' end as result,
       g.end_kind, g.end_turn as turn,
       case when p.player_code = 'COOL' then g.items_cool else g.items_hot end as items,
       (select o.player_name from players o where o.match_id = g.match_id and o.player_code <> p.player_code) as opponent,
       g.match_id
from chaser_games g
join matches m using (match_id)
join players p on p.match_id = g.match_id
left join chaser_maps mp on mp.map_key = g.map_key
where p.player_name = $bot
order by m.started_at, g.match_id
