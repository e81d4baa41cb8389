-- The newest event of one match.
-- grain: one row
select coalesce(max(seq), 0) from events where match_id = $match
