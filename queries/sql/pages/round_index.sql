-- Rounds of one match with what happened in each (flags for the round browser index).
-- grain: one row per round of $match
with ev as (
    select round_no,
           count(*) filter (where event = 'special-logic') as special_logic,
           count(*) filter (where event = 'challenge') as challenges,
           count(*) filter (where event = 'penalty') as penalties,
           count(*) filter (where event = 'shuffle-wild') as shuffles,
           count(*) filter (where card_special = 'white_wild' and event in ('play-card', 'play-draw-card')) as white_wilds
    from events where match_id = $match group by round_no
),
v as (select round_no, count(*) filter (where severity = 'error') as violations,
             count(*) filter (where severity = 'warning') as warnings
      from violations where match_id = $match group by round_no)
select r.round_no, w.player_name as winner, r.end_kind, r.n_turns, r.first_card_label as first_card,
       coalesce(ev.penalties, 0) as penalties, coalesce(ev.challenges, 0) as challenges,
       coalesce(ev.special_logic, 0) as special_logic, coalesce(ev.shuffles, 0) as shuffles,
       coalesce(ev.white_wilds, 0) as white_wilds, coalesce(v.violations, 0) as violations,
       coalesce(v.warnings, 0) as warnings, r.first_seq, r.last_seq
from rounds r
left join ev on ev.round_no = r.round_no
left join v on v.round_no = r.round_no
left join players w on w.match_id = r.match_id and w.player_code = r.winner
where r.match_id = $match
order by r.round_no
