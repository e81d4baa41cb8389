-- Every event of one round with its log time (ms since the epoch), for think times where the rules run no
-- clock (JUA: no think_times rows).
-- grain: one row per event of ($match, $round)
select seq, event, actor, target, epoch_ms(created_at) as at_ms
from events
where match_id = $match and round_no = $round
order by seq
