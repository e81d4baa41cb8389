-- Penalties by the dealer's own cause text (one check code can cover several causes), with the
-- validator's finding that explains them.
-- grain: one row per (match_id, player, cause)
-- params: $match (match_id, dealer code or name; null = all), $player (player name or code; null = all)
select
    x.match_id,
    x.player,
    coalesce(p.player_name, x.player) as player_name,
    x.cause,
    count(*) as n,
    cast(sum(x.cards_received) as integer) as cards,
    string_agg(distinct v.code, ', ' order by v.code) as explained_by,
    min(x.seq) as example_seq
from penalties x
join matches m on m.match_id = x.match_id
left join players p on p.match_id = x.match_id and p.player_code = x.player
left join violations v
       on v.match_id = x.match_id and v.penalty_seq = x.seq and v.player = x.player and v.family = 'player-rule'
where ($match is null or m.match_id = $match or m.dealer_code = $match or m.dealer_name = $match)
  and ($player is null or x.player = $player or p.player_name = $player)
group by x.match_id, x.player, p.player_name, x.cause
order by x.match_id, player_name, n desc, x.cause
