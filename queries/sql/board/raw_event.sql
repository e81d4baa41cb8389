-- The raw activity as read from the source.
-- grain: one row for ($match, $seq)
select raw, source, line from raw_activities where match_id = $match and seq = $seq
