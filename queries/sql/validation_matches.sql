-- Matches selected for a validation report, with penalty coverage (for the selected player).
-- grain: one row per match_id
-- params: $match — match_id, dealer code or dealer name (null: every match);
--         $player — player name or code (null: every player)
with picked as (
    select * from matches
    where $match is null or match_id = $match or dealer_code = $match or dealer_name = $match
),
pen as (
    select x.* from penalties x
    left join players p on p.match_id = x.match_id and p.player_code = x.player
    where $player is null or x.player = $player or p.player_name = $player
),
explained as (
    select x.match_id, x.seq
    from pen x
    join violations v
      on v.match_id = x.match_id and v.penalty_seq = x.seq and v.player = x.player and v.family = 'player-rule'
    group by all
)
select
    m.match_id, m.dealer_name, m.dealer_code, m.ruleset, m.ruleset_version, m.rounds_played, m.status,
    (select count(*) from pen x where x.match_id = m.match_id) as penalties,
    (select count(*) from explained e where e.match_id = m.match_id) as penalties_explained,
    (select count(*) from violations v left join players p on p.match_id = v.match_id and p.player_code = v.player
      where v.match_id = m.match_id and v.severity = 'error'
        and ($player is null or v.player = $player or p.player_name = $player)) as errors
from picked m
order by m.started_at, m.match_id
