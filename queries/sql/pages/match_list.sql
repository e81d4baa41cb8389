-- Matches for the shared match picker and the Matches page, newest first; every game.
-- grain: one row per match_id
-- $game: only this game's matches (null: all games)
select m.match_id, m.game, m.dealer_name, m.dealer_code, m.white_wild, m.rounds_played, m.status, m.started_at,
       (select string_agg(coalesce(p.player_name, p.player_code), ', ' order by p.final_rank)
        from players p where p.match_id = m.match_id) as players,
       (select coalesce(w.player_name, m.winner) from players w where w.match_id = m.match_id and w.player_code = m.winner) as winner,
       coalesce(b.name, case when g.width is not null then g.width || '×' || g.height end, cm.name, c.map_name) as board,
       m.final_scores, m.end_kind,
       case when m.game = 'chaser' then
                coalesce((select string_agg(coalesce(p.player_name, p.player_code), ' vs ' order by p.join_order)
                          from players p where p.match_id = m.match_id), 'CHaser')
                || ' · ' || coalesce(cm.name, c.map_name, '?') || ' · ' || coalesce(m.end_kind, '?') || ' · '
                || coalesce(strftime(m.started_at, '%Y-%m-%d %H:%M:%S'), '')
            when m.game = 'kakomimasu' then
                coalesce(nullif(g.name, ''), 'Kakomimasu') || ' · ' || coalesce(b.name, coalesce(g.width || '×' || g.height, '?'))
                || ' · ' || m.rounds_played || ' turns · ' || coalesce(strftime(m.started_at, '%Y-%m-%d %H:%M'), substr(g.game_id, 1, 8))
            else m.dealer_name || ' · ' || coalesce(m.dealer_code, '?') || ' · ' || m.rounds_played || ' rounds · '
                || coalesce(strftime(m.started_at, '%Y-%m-%d %H:%M'), '')
       end as label
from matches m
left join kakomimasu_games g on g.match_id = m.match_id
left join kakomimasu_boards b on b.board_key = g.board_key
left join chaser_games c on c.match_id = m.match_id
left join chaser_maps cm on cm.map_key = c.map_key
where $game is null or m.game = $game
order by m.started_at desc nulls last, m.match_id
