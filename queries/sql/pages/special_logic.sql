-- Special-logic firings with their outcome and the event right before each.
-- grain: one row per special-logic line; params: $match, $player
select s.match_id, s.round_no, s.turn_no, s.seq, pl.player_name, s.player, s.title, s.title_length,
       coalesce((select p.cause from penalties p where p.match_id = s.match_id and p.seq = s.seq + 1
                 and p.player = s.player and p.cause in ('Param title invalid.', 'Special logic title too long.')),
                'accepted') as outcome,
       (select e.event || coalesce(' by ' || coalesce(ap.player_name, e.actor), '')
        from events e left join players ap on ap.match_id = e.match_id and ap.player_code = e.actor
        where e.match_id = s.match_id and e.seq = s.seq - 1) as before_event
from special_logic s
left join players pl on pl.match_id = s.match_id and pl.player_code = s.player
where ($match is null or s.match_id = $match)
  and ($player is null or s.player = $player or pl.player_name = $player)
order by s.match_id, s.seq
