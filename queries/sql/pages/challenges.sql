-- Challenges (made and declined) with verdict, cards and whether the wild draw 4 was a bluff.
-- grain: one row per challenge line; params: $match, $player (challenger or target, code or name)
select c.match_id, c.round_no, c.turn_no, c.seq, cn.player_name as challenger_name, c.challenger,
       tn.player_name as target_name, c.target, c.is_challenge, c.success, c.receiver, c.cards_received,
       exists (select 1 from violations v where v.match_id = c.match_id and v.code = 'wd4-bluff'
               and v.player = c.target and v.round_no = c.round_no and v.seq < c.seq
               and v.seq >= (select max(e.seq) from events e where e.match_id = c.match_id and e.seq < c.seq
                             and e.event in ('play-card', 'play-draw-card') and e.actor = c.target)) as was_bluff
from challenges c
left join players cn on cn.match_id = c.match_id and cn.player_code = c.challenger
left join players tn on tn.match_id = c.match_id and tn.player_code = c.target
where ($match is null or c.match_id = $match)
  and ($player is null or c.challenger = $player or c.target = $player or cn.player_name = $player or tn.player_name = $player)
order by c.match_id, c.seq
