-- The rule profiles of the UNO matches in the database, with how many matches each (the Players and Standings
-- pages tell ALGORI matches from JUA ones with it).
-- grain: one row per (match_id) of the UNO game: match_id, ruleset
select m.match_id, m.ruleset
from matches m
where m.game = 'algori-uno'
order by m.started_at desc nulls last, m.match_id
