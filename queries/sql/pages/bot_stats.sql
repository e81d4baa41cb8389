-- Every UNO bot across its matches: the numbers a contestant compares between versions.  A bot is told apart by
-- its identity, not its name alone (`bot_id`: "name @ dealer", as in pages/bot_matches.sql and docs/dashboard.md
-- "Bot identity"): two bots of one name at two dealers are two rows.  Other games' bots have their own statistics
-- (pages/game_results, kakomimasu/players, chaser/bots).
-- grain: one row per bot_id (with its player_name and dealer_name); counts are integers, rates fractions (0..1)
-- $matches: only these matches (a list of match ids; null: every UNO match): the page keeps one rule family apart
with uno as (
    select coalesce(p.player_name, p.player_code) || ' @ ' || coalesce(m.dealer_name, m.dealer_code, m.match_id) as bot_id,
           coalesce(p.player_name, p.player_code) as player_name, m.dealer_name, p.match_id, p.player_code, p.final_score, p.rounds_won, p.final_rank, m.rounds_played
    from players p join matches m using (match_id)
    where m.game = 'algori-uno' and ($matches is null or list_contains($matches, m.match_id))
),
rs as (select u.bot_id, avg(r.score) as avg_round_score, count(*) as rounds
       from round_scores r join uno u on u.match_id = r.match_id and u.player_code = r.player_code
       group by u.bot_id),
pen as (select u.bot_id, count(*) as penalties from penalties x
        join uno u on u.match_id = x.match_id and u.player_code = x.player group by u.bot_id),
vio as (select u.bot_id, count(*) filter (where v.severity = 'error') as violations,
               count(*) filter (where v.code = 'wd4-bluff') as wd4_bluffs
        from violations v join uno u on u.match_id = v.match_id and u.player_code = v.player
        group by u.bot_id),
tt as (select u.bot_id, cast(quantile_cont(t.think_ms, 0.5) as integer) as think_p50_ms,
              cast(quantile_cont(t.think_ms, 0.95) as integer) as think_p95_ms, cast(max(t.think_ms) as integer) as think_max_ms,
              count(*) filter (where t.think_ms > 4000) as actions_over_4s
       from think_times t join uno u on u.match_id = t.match_id and u.player_code = t.player
       group by u.bot_id),
ch as (select u.bot_id, count(*) filter (where c.is_challenge) as challenges,
              count(*) filter (where c.success) as challenges_won
       from challenges c join uno u on u.match_id = c.match_id and u.player_code = c.challenger
       group by u.bot_id)
select pm.bot_id, any_value(pm.player_name) as player_name, any_value(pm.dealer_name) as dealer_name,
       cast(count(*) as integer) as matches, cast(coalesce(sum(pm.rounds_played), 0) as integer) as rounds,
       cast(coalesce(sum(pm.rounds_won), 0) as integer) as rounds_won,
       round(sum(pm.rounds_won) / nullif(sum(pm.rounds_played), 0), 4) as win_rate,
       round(rs.avg_round_score, 2) as avg_round_score,
       cast(count(*) filter (where pm.final_rank = 1) as integer) as matches_won,
       cast(coalesce(pen.penalties, 0) as integer) as penalties,
       round(coalesce(pen.penalties, 0) / nullif(sum(pm.rounds_played), 0), 4) as penalties_per_round,
       cast(coalesce(vio.violations, 0) as integer) as violations,
       round(coalesce(vio.violations, 0) / nullif(sum(pm.rounds_played), 0), 4) as violations_per_round,
       cast(coalesce(ch.challenges, 0) as integer) as challenges,
       round(coalesce(ch.challenges_won, 0) / nullif(ch.challenges, 0), 4) as challenge_accuracy,
       cast(coalesce(vio.wd4_bluffs, 0) as integer) as wd4_bluffs,
       tt.think_p50_ms, tt.think_p95_ms, tt.think_max_ms, cast(coalesce(tt.actions_over_4s, 0) as integer) as actions_over_4s
from uno pm
left join rs on rs.bot_id = pm.bot_id
left join pen on pen.bot_id = pm.bot_id
left join vio on vio.bot_id = pm.bot_id
left join ch on ch.bot_id = pm.bot_id
left join tt on tt.bot_id = pm.bot_id
group by pm.bot_id, rs.avg_round_score, pen.penalties, vio.violations, vio.wd4_bluffs, ch.challenges, ch.challenges_won,
         tt.think_p50_ms, tt.think_p95_ms, tt.think_max_ms, tt.actions_over_4s
order by win_rate desc nulls last, pm.bot_id
