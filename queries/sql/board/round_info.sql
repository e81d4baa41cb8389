-- One round: seat order, first card, winner and scores.
-- grain: one row for ($match, $round)
select r.round_no, r.play_order::varchar as play_order, r.first_player, r.first_card_label, r.winner,
       r.end_kind, r.n_turns, r.scores::varchar as scores, r.white_wild, r.first_seq, r.last_seq
from rounds r
where r.match_id = $match and r.round_no = $round
