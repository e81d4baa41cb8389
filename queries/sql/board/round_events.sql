-- Every event of one round — what the round browser steps through (the board after each event is
-- derived from the nearest keyframe by queries.boards, not stored per event).
-- grain: one row per event of ($match, $round), at most $limit (a round of a million lines stays browsable)
select e.seq, e.turn_no, e.event, e.actor, e.target, e.card_color, e.card_number, e.card_special,
       e.n_cards, e.chosen_color, e.yell_uno, e.draw_reason, e.contents::varchar as contents,
       (select count(*) from violations v where v.match_id = e.match_id and v.seq = e.seq and v.severity = 'error') as errors,
       (select count(*) from violations v where v.match_id = e.match_id and v.seq = e.seq) as findings
from events e
where e.match_id = $match and e.round_no = $round
order by e.seq
limit $limit
