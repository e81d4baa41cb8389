-- The packed blocks holding lines of a stretch of one match (queries.rawlines unpacks them).
-- grain: one row per block of $match overlapping [$first, $last]
select codec, seqs, lengths, data from raw_blocks
where match_id = $match and first_seq <= $last and last_seq >= $first
order by first_seq
