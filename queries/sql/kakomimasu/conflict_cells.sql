-- Where on the field actions collided: conflicts (1) and reverts (2) per cell.
-- grain: one row per (x, y)
select x, y, count(*) filter (where res_replayed = 1) as conflicts,
       count(*) filter (where res_replayed = 2) as reverts
from kakomimasu_actions
where match_id = $match and res_replayed in (1, 2)
group by x, y
order by x, y
