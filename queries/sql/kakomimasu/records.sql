-- The stored records of a Kakomimasu game (the v1 Game JSON, or the 2020 snapshots), in order.
-- grain: one row per (match_id, seq)
select seq, raw from raw_activities where match_id = $match order by seq
