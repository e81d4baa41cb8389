-- Every bot name across the CHaser games: games, wins, how its games ended, items, its action mix.
-- grain: one row per bot name
with sides as (
    select g.match_id, p.player_name as bot, p.player_code as team, g.winner, g.end_kind,
           case when p.player_code = 'COOL' then g.items_cool else g.items_hot end as items
    from chaser_games g
    join players p on p.match_id = g.match_id
), acts as (
    select p.player_name as bot, count(*) as actions,
           count(*) filter (where a.action = 'walk') as walks, count(*) filter (where a.action = 'look') as looks,
           count(*) filter (where a.action = 'search') as searches, count(*) filter (where a.action = 'put') as puts,
           count(*) filter (where a.action not in ('walk', 'look', 'search', 'put')) as invalid
    from chaser_actions a
    join players p on p.match_id = a.match_id and p.player_code = a.team
    group by 1
)
select s.bot, count(*) as games, count(*) filter (where s.winner = s.team) as wins,
       count(*) filter (where s.winner is not null and s.winner <> s.team) as losses,
       count(*) filter (where s.winner is null and s.end_kind = 'draw') as draws,
       sum(s.items) as items, round(avg(s.items), 1) as items_per_game,
       string_agg(distinct case when s.winner = s.team then s.end_kind end, ', '
                  order by case when s.winner = s.team then s.end_kind end) as won_by,
       string_agg(distinct case when s.winner is not null and s.winner <> s.team then s.end_kind end, ', '
                  order by case when s.winner is not null and s.winner <> s.team then s.end_kind end) as lost_by,
       a.walks, a.looks, a.searches, a.puts, a.invalid
from sides s
left join acts a on a.bot = s.bot
group by s.bot, a.walks, a.looks, a.searches, a.puts, a.invalid
order by wins desc, games desc, s.bot
