-- Matches a `kifu watch` is following right now (schema 7, docs/live.md), with how far each has come.
-- A row counts only while its watcher runs: the caller asks `queries.sharing.watcher_present` first.
-- grain: one row per match being played
-- `round_no`: the newest round (ALGORI) or turn (Kakomimasu, CHaser) stored; `events`: the match's stored
-- events (ALGORI; null for other games); `last_seq`: the newest event the watcher wrote;
-- `last_event_at`: when that event was logged (the log's own time); `updated_at`: when the watcher wrote.
select l.match_id, coalesce(m.game, l.game) as game, l.source, l.last_seq, l.last_event_at, l.updated_at,
       coalesce(m.dealer_name, m.match_id, l.match_id) as name, m.dealer_code,
       coalesce((select max(e.round_no) from events e where e.match_id = l.match_id), m.rounds_played) as round_no,
       case when coalesce(m.game, l.game) = 'algori-uno'
            then (select count(*) from events e where e.match_id = l.match_id) end as events
from live_matches l
left join matches m on m.match_id = l.match_id
order by l.updated_at desc nulls last, l.match_id
