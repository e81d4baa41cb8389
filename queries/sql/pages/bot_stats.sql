-- Every bot (by name) across all matches: the numbers a contestant compares between versions.
-- grain: one row per player_name
with per_match as (
    select p.player_name, p.match_id, p.player_code, p.final_score, p.rounds_won, p.final_rank, m.rounds_played
    from players p join matches m using (match_id)
),
rs as (select pl.player_name, avg(r.score) as avg_round_score, count(*) as rounds
       from round_scores r join players pl on pl.match_id = r.match_id and pl.player_code = r.player_code
       group by pl.player_name),
pen as (select pl.player_name, count(*) as penalties from penalties x
        join players pl on pl.match_id = x.match_id and pl.player_code = x.player group by pl.player_name),
vio as (select pl.player_name, count(*) filter (where v.severity = 'error') as violations,
               count(*) filter (where v.code = 'wd4-bluff') as wd4_bluffs
        from violations v join players pl on pl.match_id = v.match_id and pl.player_code = v.player
        group by pl.player_name),
tt as (select pl.player_name, cast(quantile_cont(t.think_ms, 0.5) as integer) as think_p50_ms,
              cast(quantile_cont(t.think_ms, 0.95) as integer) as think_p95_ms, max(t.think_ms) as think_max_ms,
              count(*) filter (where t.think_ms > 4000) as actions_over_4s
       from think_times t join players pl on pl.match_id = t.match_id and pl.player_code = t.player
       group by pl.player_name),
ch as (select pl.player_name, count(*) filter (where c.is_challenge) as challenges,
              count(*) filter (where c.success) as challenges_won
       from challenges c join players pl on pl.match_id = c.match_id and pl.player_code = c.challenger
       group by pl.player_name)
select pm.player_name, count(*) as matches, sum(pm.rounds_played) as rounds,
       sum(pm.rounds_won) as rounds_won,
       round(sum(pm.rounds_won) / nullif(sum(pm.rounds_played), 0), 4) as win_rate,
       round(rs.avg_round_score, 2) as avg_round_score,
       count(*) filter (where pm.final_rank = 1) as matches_won,
       coalesce(pen.penalties, 0) as penalties,
       round(coalesce(pen.penalties, 0) / nullif(sum(pm.rounds_played), 0), 4) as penalties_per_round,
       coalesce(vio.violations, 0) as violations,
       round(coalesce(vio.violations, 0) / nullif(sum(pm.rounds_played), 0), 4) as violations_per_round,
       coalesce(ch.challenges, 0) as challenges,
       round(coalesce(ch.challenges_won, 0) / nullif(ch.challenges, 0), 4) as challenge_accuracy,
       coalesce(vio.wd4_bluffs, 0) as wd4_bluffs,
       tt.think_p50_ms, tt.think_p95_ms, tt.think_max_ms, coalesce(tt.actions_over_4s, 0) as actions_over_4s
from per_match pm
left join rs on rs.player_name = pm.player_name
left join pen on pen.player_name = pm.player_name
left join vio on vio.player_name = pm.player_name
left join ch on ch.player_name = pm.player_name
left join tt on tt.player_name = pm.player_name
group by pm.player_name, rs.avg_round_score, pen.penalties, vio.violations, vio.wd4_bluffs, ch.challenges, ch.challenges_won,
         tt.think_p50_ms, tt.think_p95_ms, tt.think_max_ms, tt.actions_over_4s
order by win_rate desc nulls last, pm.player_name
