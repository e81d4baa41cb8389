-- Matches for the shared match picker and the Matches page, grouped by game (ALGORI UNO, then
-- Kakomimasu, then CHaser: `game_order`), newest first inside a game.
-- grain: one row per match_id
-- $game: only this game's matches (null: all games)
-- `name`: what a person calls the match (ALGORI: the dealer; Kakomimasu: the game's name, null when it has none;
-- CHaser: "a vs b");
-- `scores`: the final scores with player names ("a 3 · b 1"); `short_id`: a short code that tells
-- matches of the same name and time apart; `ruleset`: the UNO rule profile (null for other games); `n_players`.
-- The players of every match are read once (`ps`, grouped by match), not once per match and column.
with ps as (
    select p.match_id, count(*) as n_players,
           string_agg(coalesce(p.player_name, p.player_code), ', '
                      order by p.final_rank, p.join_order, p.player_code) as players,
           string_agg(coalesce(p.player_name, p.player_code) || ' ' || coalesce(cast(p.final_score as varchar), '?'),
                      ' · ' order by case when m.game = 'algori-uno' then p.final_rank else p.join_order end,
                      p.join_order) as scores,
           string_agg(coalesce(p.player_name, p.player_code), ' vs ' order by p.join_order) as versus,
           any_value(coalesce(p.player_name, m.winner)) filter (where p.player_code = m.winner) as winner
    from players p join matches m using (match_id)
    where $game is null or m.game = $game
    group by p.match_id
)
select m.match_id, m.game,
       case m.game when 'algori-uno' then 1 when 'kakomimasu' then 2 when 'chaser' then 3 else 4 end as game_order,
       m.dealer_name, m.dealer_code, m.white_wild, m.rounds_played, m.status, m.started_at, m.ruleset,
       coalesce(ps.n_players, 0) as n_players, ps.players, ps.winner,
       coalesce(b.name, case when g.width is not null then g.width || '×' || g.height end, cm.name, c.map_name) as board,
       m.final_scores, m.end_kind,
       ps.scores,
       case when m.game = 'chaser' then
                coalesce(ps.versus, 'CHaser')
            when m.game = 'kakomimasu' then nullif(g.name, '')
            else coalesce(m.dealer_name, m.match_id)
       end as name,
       case when m.game = 'algori-uno' then coalesce(m.dealer_code, m.match_id)
            when m.game = 'chaser' then substr(coalesce(nullif(regexp_extract(m.match_id, '-([0-9a-f]+)$', 1), ''), m.match_id), 1, 6)
            else substr(regexp_replace(m.match_id, '^[a-z-]+:', ''), 1, 8)
       end as short_id,
       case when m.game = 'chaser' then
                coalesce(ps.versus, 'CHaser')
                || ' · ' || coalesce(cm.name, c.map_name, '?') || ' · ' || coalesce(m.end_kind, '?') || ' · '
                || coalesce(strftime(m.started_at, '%Y-%m-%d %H:%M:%S'), '')
            when m.game = 'kakomimasu' then
                coalesce(nullif(g.name, ''), 'Kakomimasu') || ' · ' || coalesce(b.name, coalesce(g.width || '×' || g.height, '?'))
                || ' · ' || m.rounds_played || ' turns · ' || coalesce(strftime(m.started_at, '%Y-%m-%d %H:%M'), substr(g.game_id, 1, 8))
            else m.dealer_name || ' · ' || coalesce(m.dealer_code, '?') || ' · ' || m.rounds_played || ' rounds · '
                || coalesce(strftime(m.started_at, '%Y-%m-%d %H:%M'), '')
       end as label
from matches m
left join ps on ps.match_id = m.match_id
left join kakomimasu_games g on g.match_id = m.match_id
left join kakomimasu_boards b on b.board_key = g.board_key
left join chaser_games c on c.match_id = m.match_id
left join chaser_maps cm on cm.map_key = c.map_key
where $game is null or m.game = $game
order by game_order, m.started_at desc nulls last, m.match_id
