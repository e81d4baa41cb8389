-- Moments of the JUA rules in one match, for a look at the card table (scripts/jua_screenshots.py): a pair play the
-- dealer accepted, the biggest draw stack handed to a player to answer, and a challenge (a successful one first).
-- grain: one row per kind ('pair', 'stack', 'challenge') found in $match: its round and the event's seq
(select 'pair' as kind, e.round_no, e.seq
 from events e
 where e.match_id = $match and e.event = 'play-card' and e.contents->>'card_play_pair' is not null
   and not exists (select 1 from events p where p.match_id = e.match_id and p.seq = e.seq + 1 and p.event = 'penalty')
 order by e.seq limit 1)
union all
(select 'stack', e.round_no, e.seq
 from events e
 where e.match_id = $match and e.event = 'next-player' and json_array_length(e.contents->'draw_stack'->'cards') >= 2
 order by json_array_length(e.contents->'draw_stack'->'cards') desc, e.seq limit 1)
union all
(select 'challenge', c.round_no, c.seq
 from challenges c
 where c.match_id = $match and c.is_challenge
 order by c.success desc nulls last, c.seq limit 1)
