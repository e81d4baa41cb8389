-- Every penalty the dealer gave, one row each, with the validator's player-rule finding that explains it.
-- grain: one row per (match_id, seq) of penalties
-- params: $match (match_id, dealer code or name; null = all), $player (player name or code; null = all)
-- `explained_by`: the check code(s) of the finding(s) linked to the penalty (null: none);
-- `finding`: the first such finding's message; `finding_seq`: the event it judged.
-- `dealer_fault`, `dealer_finding`: the dealer-judgement finding(s) about the penalty itself (a penalty the
-- log contradicts is the dealer's fault, docs/rules/algori-uno.md "Who is blamed").
select
    x.match_id,
    x.player,
    coalesce(p.player_name, x.player) as player_name,
    x.round_no,
    x.turn_no,
    x.seq,
    x.cause,
    cast(x.cards_received as integer) as cards,
    string_agg(distinct v.code, ', ' order by v.code) as explained_by,
    min_by(v.message, coalesce(v.seq, 0)) as finding,
    min(v.seq) as finding_seq,
    (select string_agg(distinct d.code, ', ' order by d.code) from violations d
      where d.match_id = x.match_id and d.penalty_seq = x.seq and d.family = 'dealer-judgement') as dealer_fault,
    (select min_by(d.message, coalesce(d.seq, 0)) from violations d
      where d.match_id = x.match_id and d.penalty_seq = x.seq and d.family = 'dealer-judgement') as dealer_finding
from penalties x
join matches m on m.match_id = x.match_id
left join players p on p.match_id = x.match_id and p.player_code = x.player
left join violations v
       on v.match_id = x.match_id and v.penalty_seq = x.seq and v.player = x.player
      and v.family = 'player-rule'
where ($match is null or m.match_id = $match or m.dealer_code = $match or m.dealer_name = $match)
  and ($player is null or x.player = $player or p.player_name = $player)
group by x.match_id, x.player, p.player_name, x.round_no, x.turn_no, x.seq, x.cause, x.cards_received
order by x.match_id, player_name, x.seq
