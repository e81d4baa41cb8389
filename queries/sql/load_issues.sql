-- Records that could not be ingested.
-- grain: one row per quarantined record
select run_id, source, line, reason, raw_length, left(raw, 300) as raw_head
from load_issues
order by run_id desc, source, line
