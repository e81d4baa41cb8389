-- Matches selected for a validation report, with penalty coverage (for the selected player) and what a
-- person needs to tell the match apart and read its result (game, name, board or map, how it ended).
-- grain: one row per match_id
-- params: $match — match_id, dealer code or dealer name (null: every match);
--         $player — player name or code (null: every player; else only the matches that player played)
with picked as (
    select * from matches m
    where ($match is null or m.match_id = $match or m.dealer_code = $match or m.dealer_name = $match)
      and ($player is null
           or exists (select 1 from players p
                      where p.match_id = m.match_id and (p.player_code = $player or p.player_name = $player))
           or exists (select 1 from violations v where v.match_id = m.match_id and v.player = $player)
           or exists (select 1 from penalties x where x.match_id = m.match_id and x.player = $player))
),
pen as (
    select x.* from penalties x
    left join players p on p.match_id = x.match_id and p.player_code = x.player
    where $player is null or x.player = $player or p.player_name = $player
),
explained as (
    select x.match_id, x.seq
    from pen x
    join violations v
      on v.match_id = x.match_id and v.penalty_seq = x.seq and v.player = x.player
     and v.family = 'player-rule'
    group by all
)
select
    m.match_id, m.game, m.dealer_name, m.dealer_code, m.ruleset, m.ruleset_version, m.rounds_played, m.status,
    m.winner, m.end_kind, m.started_at,
    (select count(*) from pen x where x.match_id = m.match_id) as penalties,
    (select count(*) from explained e where e.match_id = m.match_id) as penalties_explained,
    (select count(*) from violations v
       left join players p on p.match_id = v.match_id and p.player_code = v.player
      where v.match_id = m.match_id and v.severity = 'error'
        and ($player is null or v.player = $player or p.player_name = $player)) as errors,
    (select w.player_name from players w
      where w.match_id = m.match_id and w.player_code = m.winner) as winner_name,
    nullif(g.name, '') as game_name,
    coalesce(b.name, cm.name, c.map_name) as board,
    coalesce(g.width, c.width) as width,
    coalesce(g.height, c.height) as height,
    coalesce(g.total_turn, c.turns) as total_turns,
    g.turns_logged,
    m.log_format,
    g.decided_by,
    c.end_turn,
    c.sentence
from picked m
left join kakomimasu_games g on g.match_id = m.match_id
left join kakomimasu_boards b on b.board_key = g.board_key
left join chaser_games c on c.match_id = m.match_id
left join chaser_maps cm on cm.map_key = c.map_key
order by case m.game when 'algori-uno' then 1 when 'kakomimasu' then 2 when 'chaser' then 3 else 4 end,
         m.started_at, m.match_id
