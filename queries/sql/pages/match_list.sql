-- Matches for the shared match picker, newest first.
-- grain: one row per match_id
select m.match_id, m.dealer_name, m.dealer_code, m.white_wild, m.rounds_played, m.status, m.started_at,
       (select string_agg(coalesce(p.player_name, p.player_code), ', ' order by p.final_rank)
        from players p where p.match_id = m.match_id) as players,
       (select coalesce(w.player_name, m.winner) from players w where w.match_id = m.match_id and w.player_code = m.winner) as winner,
       m.dealer_name || ' · ' || coalesce(m.dealer_code, '?') || ' · ' || m.rounds_played || ' rounds · '
           || coalesce(strftime(m.started_at, '%Y-%m-%d %H:%M'), '') as label
from matches m
order by m.started_at desc nulls last, m.match_id
