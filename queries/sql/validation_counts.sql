-- Findings per match, player, family, severity and code, with the first example of each.
-- grain: one row per (match_id, player, family, severity, code)
-- params: $match (match_id, dealer code or name; null = all), $player (player name or code; null = all)
select
    v.match_id,
    v.player,
    coalesce(p.player_name, v.player, '(dealer)') as player_name,
    v.family,
    v.severity,
    v.code,
    count(*) as n,
    count(v.penalty_seq) as with_penalty,
    min_by(v.seq, coalesce(v.seq, 0)) as example_seq,
    min_by(v.round_no, coalesce(v.seq, 0)) as example_round,
    min_by(v.turn_no, coalesce(v.seq, 0)) as example_turn,
    min_by(v.message, coalesce(v.seq, 0)) as example
from violations v
join matches m on m.match_id = v.match_id
left join players p on p.match_id = v.match_id and p.player_code = v.player
where ($match is null or m.match_id = $match or m.dealer_code = $match or m.dealer_name = $match)
  and ($player is null or v.player = $player or p.player_name = $player)
group by v.match_id, v.player, p.player_name, v.family, v.severity, v.code
order by match_id, player_name,
         case family when 'player-rule' then 1 when 'dealer-judgement' then 2 else 3 end,
         case severity when 'error' then 1 when 'warning' then 2 else 3 end,
         n desc, code
