-- One round: seat order, first card, winner and scores, and the match's rule profile (ruleset).
-- grain: one row for ($match, $round)
select r.round_no, r.play_order::varchar as play_order, r.first_player, r.first_card_label, r.winner,
       r.end_kind, r.n_turns, r.scores::varchar as scores, r.white_wild, r.first_seq, r.last_seq, m.ruleset
from rounds r
left join matches m on m.match_id = r.match_id
where r.match_id = $match and r.round_no = $round
