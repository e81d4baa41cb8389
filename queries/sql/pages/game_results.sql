-- Every player's record (by name) over one game's matches — Kakomimasu or CHaser, where a match has a
-- winner, a draw, or no result yet.  Standings of those games and the Players page use it.
-- params: $game ('kakomimasu' | 'chaser'); $matches (list of match ids, null: every match of the game)
-- grain: one row per player name; counts are integers, win_rate a fraction (0..1)
-- `points`: the players' final scores added up (Kakomimasu: total points; CHaser: items taken)
with sides as (
    select coalesce(p.player_name, p.player_code) as player_name, p.player_code, p.final_score, m.winner, m.end_kind, m.match_id
    from players p join matches m using (match_id)
    where m.game = $game and ($matches is null or list_contains($matches, m.match_id))
)
select player_name, cast(count(*) as integer) as games,
       cast(count(*) filter (where winner = player_code) as integer) as wins,
       cast(count(*) filter (where winner is not null and winner <> player_code) as integer) as losses,
       cast(count(*) filter (where winner is null and end_kind = 'draw') as integer) as draws,
       cast(count(*) filter (where winner is null and coalesce(end_kind, '') <> 'draw') as integer) as unfinished,
       round(count(*) filter (where winner = player_code) / count(*), 4) as win_rate,
       cast(coalesce(sum(final_score), 0) as integer) as points,
       round(avg(final_score), 1) as points_per_game
from sides
group by player_name
order by wins desc, draws desc, points desc, player_name
