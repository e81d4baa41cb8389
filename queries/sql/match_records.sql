-- The stored records of a match, in order (a Kakomimasu game: its v1 Game JSON or 2020 snapshots; a CHaser
-- game: its server log).
-- grain: one row per (match_id, seq)
select seq, raw from raw_activities where match_id = $match order by seq
