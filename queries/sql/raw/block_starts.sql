-- Where each packed block of one match starts (queries.rawlines.repack reads the match a window of blocks at a time).
-- grain: one row per block of $match, in seq order
select first_seq from raw_blocks where match_id = $match order by first_seq
