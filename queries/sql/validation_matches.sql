-- Matches selected for a validation report, with penalty coverage.
-- grain: one row per match_id
-- params: $match — match_id, dealer code or dealer name (null: every match)
with picked as (
    select * from matches
    where $match is null or match_id = $match or dealer_code = $match or dealer_name = $match
),
explained as (
    select p.match_id, p.seq
    from penalties p
    join violations v
      on v.match_id = p.match_id and v.penalty_seq = p.seq and v.player = p.player and v.family = 'player-rule'
    group by all
)
select
    m.match_id, m.dealer_name, m.dealer_code, m.ruleset, m.ruleset_version, m.rounds_played, m.status,
    (select count(*) from penalties p where p.match_id = m.match_id) as penalties,
    (select count(*) from explained e where e.match_id = m.match_id) as penalties_explained,
    (select count(*) from violations v where v.match_id = m.match_id and v.severity = 'error') as errors
from picked m
order by m.started_at, m.match_id
