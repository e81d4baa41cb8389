-- The seqs of one match's lines still stored as text (not packed into raw_blocks).
-- grain: one row per such line of $match, in seq order
select seq from raw_activities where match_id = $match and raw is not null order by seq
