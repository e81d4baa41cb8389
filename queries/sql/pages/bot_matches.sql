-- Every bot of every match and its faults there: the contestant's path (a bot chosen once, the match worth opening,
-- the bot's first fault).  A bot's identity (`bot_id`, docs/dashboard.md "Bot identity"): in UNO matches (ALGORI
-- and JUA) its name at its dealer, "name @ dealer" (two bots of one name at two dealers are two bots); in the other
-- games the name the game server knows it by (a Kakomimasu user, a CHaser bot).
-- grain: one row per (match_id, player_code), newest match first
-- faults: the dealer's penalties of the player and the rules check's errors and warnings about it (notes such as a
-- wild draw 4 bluff are not faults); first_round / first_seq / first_turn: the earliest of them (null: none) — its
-- turn is the number the replayers show first (UNO: the turn in its round; CHaser: a turn is Cool's action then Hot's).
with fault as (
    select match_id, player, round_no, turn_no, seq, 1 as penalty, 0 as error, 0 as warning from penalties
    union all
    select match_id, player, round_no, turn_no, seq, 0, case when severity = 'error' then 1 else 0 end,
           case when severity = 'warning' then 1 else 0 end
    from violations where severity in ('error', 'warning') and player is not null
),
per as (
    select match_id, player, sum(penalty) as penalties, sum(error) as errors, sum(warning) as warnings,
           arg_min(round_no, coalesce(seq, 2147483647)) as first_round, min(seq) as first_seq,
           arg_min(turn_no, coalesce(seq, 2147483647)) as first_turn
    from fault group by match_id, player
)
select m.game, m.match_id, m.started_at, m.ruleset, m.dealer_name, p.player_code,
       coalesce(p.player_name, p.player_code) as player_name,
       case when m.game = 'algori-uno'
            then coalesce(p.player_name, p.player_code) || ' @ ' || coalesce(m.dealer_name, m.dealer_code, m.match_id)
            else coalesce(p.player_name, p.player_code) end as bot_id,
       cast(coalesce(f.penalties, 0) as integer) as penalties, cast(coalesce(f.errors, 0) as integer) as errors,
       cast(coalesce(f.warnings, 0) as integer) as warnings,
       cast(coalesce(f.penalties, 0) + coalesce(f.errors, 0) + coalesce(f.warnings, 0) as integer) as faults,
       f.first_round, f.first_seq, f.first_turn
from players p
join matches m using (match_id)
left join per f on f.match_id = p.match_id and f.player = p.player_code
order by m.started_at desc nulls last, m.match_id, p.join_order, p.player_code
