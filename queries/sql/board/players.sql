-- Player codes and names of one match.
-- grain: one row per player of $match
select player_code, player_name from players where match_id = $match order by join_order
