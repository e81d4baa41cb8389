-- Every match with what tells it apart for a person (to list them when --match names none): its game, its
-- name (ALGORI: the dealer; Kakomimasu: the game's name; CHaser: "a vs b"), board or map, and id.
-- grain: one row per match_id
select m.match_id, m.game, m.dealer_code,
       case when m.game = 'algori-uno' then m.dealer_name
            when m.game = 'kakomimasu' then nullif(g.name, '')
            when m.game = 'chaser' then
                (select string_agg(coalesce(p.player_name, p.player_code), ' vs ' order by p.join_order)
                 from players p where p.match_id = m.match_id)
       end as name,
       coalesce(b.name, case when g.width is not null then g.width || '×' || g.height end,
                cm.name, c.map_name) as board
from matches m
left join kakomimasu_games g on g.match_id = m.match_id
left join kakomimasu_boards b on b.board_key = g.board_key
left join chaser_games c on c.match_id = m.match_id
left join chaser_maps cm on cm.map_key = c.map_key
order by case m.game when 'algori-uno' then 1 when 'kakomimasu' then 2 when 'chaser' then 3 else 4 end,
         m.started_at, m.match_id
