-- Raw lines of a stretch of one match still stored as text (not packed into raw_blocks).
-- grain: one row per such line of $match with seq in [$first, $last]
select seq, raw from raw_activities where match_id = $match and seq between $first and $last and raw is not null
