-- Player names and codes of the selected matches (to list them when --player names nobody).
-- grain: one row per (player_name, player_code)
-- params: $match (match_id, dealer code or name; null = all)
select distinct p.player_name, p.player_code
from players p join matches m using (match_id)
where $match is null or m.match_id = $match or m.dealer_code = $match or m.dealer_name = $match
order by p.player_name, p.player_code
