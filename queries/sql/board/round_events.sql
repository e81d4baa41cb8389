-- Every event of one round with the board after it (states) — what the round browser steps through.
-- grain: one row per event of ($match, $round), at most $limit (a round of a million lines stays browsable)
select e.seq, e.turn_no, e.event, e.actor, e.target, e.card_color, e.card_number, e.card_special,
       e.n_cards, e.chosen_color, e.yell_uno, e.draw_reason, e.contents::varchar as contents,
       s.to_act, s.prev_actor, s.top, s.direction, s.draw_pile, s.discard_pile, s.pending, s.owes_draw,
       s.bind::varchar as bind, s.hands::varchar as hands, s.yell::varchar as yell, s.gate,
       (select count(*) from violations v where v.match_id = e.match_id and v.seq = e.seq and v.severity = 'error') as errors,
       (select count(*) from violations v where v.match_id = e.match_id and v.seq = e.seq) as findings
from events e
left join states s on s.match_id = e.match_id and s.seq = e.seq
where e.match_id = $match and e.round_no = $round
order by e.seq
limit $limit
