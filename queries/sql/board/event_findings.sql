-- The validator's findings about one event.
-- grain: one row per finding at ($match, $seq)
select v.severity, v.family, v.code, v.player, v.message, v.expected, v.actual, v.penalty_seq
from violations v
where v.match_id = $match and (v.seq = $seq or v.penalty_seq = $seq)
order by case v.severity when 'error' then 1 when 'warning' then 2 else 3 end, v.code
