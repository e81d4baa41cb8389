-- The think time of every timed action of one round (ms since the player's clock started: the hand-over
-- it received), for the replayer.
-- grain: one row per timed action of ($match, $round)
select seq, think_ms
from think_times
where match_id = $match and round_no = $round and think_ms is not null
order by seq
