-- Think time per bot and match: how long it took to act after the dealer's 5-second clock
-- started (think_times, judged in rules/uno/timing.py). near_limit = actions over 4 s.
-- grain: one row per (match_id, player)
-- params: $match (match_id, dealer code or name; null = all), $player (player name or code; null = all)
select
    t.match_id,
    t.player,
    coalesce(p.player_name, t.player) as player_name,
    count(*) as actions,
    cast(quantile_cont(t.think_ms, 0.5) as integer) as p50_ms,
    cast(quantile_cont(t.think_ms, 0.95) as integer) as p95_ms,
    max(t.think_ms) as max_ms,
    count(*) filter (where t.think_ms > 4000) as near_limit,
    count(*) filter (where t.think_ms > 5000) as over_limit
from think_times t
join matches m on m.match_id = t.match_id
left join players p on p.match_id = t.match_id and p.player_code = t.player
where ($match is null or m.match_id = $match or m.dealer_code = $match or m.dealer_name = $match)
  and ($player is null or t.player = $player or p.player_name = $player)
group by t.match_id, t.player, p.player_name
order by t.match_id, player_name
