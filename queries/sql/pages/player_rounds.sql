-- "Where did my bot go wrong?": per player and round, what went wrong and where it starts.
-- grain: one row per (round, player) of $match; $player (code or null) keeps one player
-- causes: the dealer's penalty causes in event order; unpenalised_codes: player-rule findings of
-- severity error/warning that no penalty answered (e.g. UNO not yelled and not pointed out)
with pen as (
    select round_no, player, count(*) as penalties, sum(cards_received) as penalty_cards, min(seq) as first_seq,
           list(cause order by seq) as causes
    from penalties where match_id = $match group by all
),
fin as (
    select round_no, player, count(*) filter (where severity = 'error') as errors,
           count(*) filter (where family = 'player-rule') as player_rule, count(*) as findings,
           count(*) filter (where family = 'player-rule' and severity in ('error', 'warning')) as rule_breaks,
           coalesce(list(code order by seq) filter (where family = 'player-rule' and severity in ('error', 'warning')
                                                    and penalty_seq is null), []) as unpenalised_codes,
           min(seq) filter (where severity = 'error' or family = 'player-rule') as first_seq
    from violations where match_id = $match and seq is not null and player is not null group by all
)
select r.round_no, p.player_code as player, p.player_name,
       coalesce(pen.penalties, 0) as penalties, coalesce(pen.penalty_cards, 0) as penalty_cards,
       coalesce(fin.errors, 0) as errors, coalesce(fin.player_rule, 0) as player_rule,
       coalesce(fin.findings, 0) as findings, s.score, s.total_score, r.winner = p.player_code as won,
       least(pen.first_seq, fin.first_seq) as first_flag_seq,
       coalesce(fin.rule_breaks, 0) as rule_breaks, coalesce(pen.causes, []) as causes,
       coalesce(fin.unpenalised_codes, []) as unpenalised_codes
from rounds r
join players p on p.match_id = r.match_id
left join pen on pen.round_no = r.round_no and pen.player = p.player_code
left join fin on fin.round_no = r.round_no and fin.player = p.player_code
left join round_scores s on s.match_id = r.match_id and s.round_no = r.round_no and s.player_code = p.player_code
where r.match_id = $match and ($player is null or p.player_code = $player)
order by r.round_no, p.join_order
