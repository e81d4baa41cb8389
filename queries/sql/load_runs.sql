-- Ingest runs, newest first.
-- grain: one row per run_id
select run_id, started_at, round(duration_s, 2) as duration_s, records_read, records_ingested,
       records_duplicate, records_quarantined, matches, status
from load_runs
order by run_id desc
