-- The rules one UNO match was played under: its rule profile id (`ruleset`, e.g. 'algori-2023/bind_2' or
-- 'jua-2016(rounds=2)'), the ALGORI white-wild setting and how many players and rounds it has.
-- grain: one row for $match (none when there is no such match)
select m.match_id, m.game, m.ruleset, m.white_wild, m.rounds_played,
       (select count(*) from players p where p.match_id = m.match_id) as n_players
from matches m
where m.match_id = $match
