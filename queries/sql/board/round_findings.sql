-- Every finding of one round (the replayer shows them at their event and at the penalty they explain).
-- grain: one row per finding of ($match, $round) tied to an event
select v.seq, v.penalty_seq, v.severity, v.family, v.code, v.player, v.message, v.expected, v.actual
from violations v
where v.match_id = $match and v.round_no = $round and v.seq is not null
order by v.seq, v.code
