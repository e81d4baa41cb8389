-- Every ingested match, newest first.
-- grain: one row per match_id
select
    m.match_id,
    m.dealer_name,
    m.dealer_code,
    m.white_wild,
    m.rounds_played,
    m.status,
    w.player_name as winner_name,
    m.winner,
    m.n_events,
    m.started_at,
    m.finished_at,
    m.log_format
from matches m
left join players w on w.match_id = m.match_id and w.player_code = m.winner
order by m.started_at desc nulls last, m.match_id
