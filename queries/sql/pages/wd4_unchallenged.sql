-- Wild-draw-4 bluffs that nobody challenged.
-- grain: one row per unchallenged bluff; params: $match, $player
select v.match_id, v.round_no, v.turn_no, v.seq, pl.player_name, v.player, v.message
from violations v
left join players pl on pl.match_id = v.match_id and pl.player_code = v.player
where v.code = 'wd4-bluff' and ($match is null or v.match_id = $match)
  and ($player is null or v.player = $player or pl.player_name = $player)
  and not exists (
      select 1 from challenges c where c.match_id = v.match_id and c.target = v.player and c.is_challenge
        and c.seq > v.seq and c.seq < coalesce((select min(e.seq) from events e where e.match_id = v.match_id
            and e.seq > v.seq and e.event in ('play-card', 'play-draw-card', 'finish-turn')), 2147483647))
order by v.match_id, v.seq
