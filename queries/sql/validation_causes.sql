-- Penalties by the dealer's own cause text (one check code can cover several causes), with the
-- validator's finding that explains them, and how many of them the log contradicts (`dealer_fault`:
-- a dealer-judgement finding on the penalty — the referee's fault, not the player's).
-- grain: one row per (match_id, player, cause)
-- params: $match (match_id, dealer code or name; null = all), $player (player name or code; null = all)
with each as (  -- one row per penalty
    select
        x.match_id, x.player, x.cause, x.seq, x.cards_received,
        (select string_agg(distinct v.code, ', ' order by v.code) from violations v
          where v.match_id = x.match_id and v.penalty_seq = x.seq and v.player = x.player
            and v.family = 'player-rule') as explained_by,
        exists (select 1 from violations d
                 where d.match_id = x.match_id and d.penalty_seq = x.seq and d.family = 'dealer-judgement') as fault
    from penalties x
    join matches m on m.match_id = x.match_id
    where ($match is null or m.match_id = $match or m.dealer_code = $match or m.dealer_name = $match)
)
select
    e.match_id,
    e.player,
    coalesce(p.player_name, e.player) as player_name,
    e.cause,
    count(*) as n,
    count(*) filter (where e.fault) as dealer_fault,
    cast(sum(e.cards_received) as integer) as cards,
    string_agg(distinct e.explained_by, ', ' order by e.explained_by) as explained_by,
    min(e.seq) as example_seq
from each e
left join players p on p.match_id = e.match_id and p.player_code = e.player
where ($player is null or e.player = $player or p.player_name = $player)
group by e.match_id, e.player, p.player_name, e.cause
order by e.match_id, player_name, n desc, e.cause
