-- Penalties of the selected matches, with the player's name and the finding that explains each: the penalised
-- player's own player-rule finding, or else (`dealer_fault`) the dealer-judgement finding that says the log
-- contradicts the penalty (docs/rules/algori-uno.md "Who is blamed").
-- grain: one row per penalty; params: $match (null = all), $player (code or name; null = all)
select p.match_id, m.dealer_name, p.round_no, p.turn_no, p.seq, pl.player_name, p.player, p.cause,
       p.cards_received,
       (select min(v.code) from violations v where v.match_id = p.match_id and v.penalty_seq = p.seq
          and v.family = 'player-rule' and v.player = p.player) as explained_by,
       (select min(v.code) from violations v where v.match_id = p.match_id and v.penalty_seq = p.seq
          and v.family = 'dealer-judgement') as dealer_fault
from penalties p
join matches m on m.match_id = p.match_id
left join players pl on pl.match_id = p.match_id and pl.player_code = p.player
where ($match is null or p.match_id = $match)
  and ($player is null or p.player = $player or pl.player_name = $player)
order by p.match_id, p.seq
