-- The JUA rules' moments of one match, one row each (the JUA page lists them and counts them per bot): pair plays
-- the dealer accepted, cards added to a draw stack, draw stacks paid (`length`: draw cards in the stack, `cards`:
-- cards drawn, `player`: who paid) and challenges of a wild draw 4, by the colour in question (the colour in play
-- before the wild draw 4: the one its player must not have held).
-- grain: one row per (kind, seq) of $match; kind: 'pair' | 'stack_add' | 'stack' | 'challenge'
with e as (
    select seq, round_no, event, actor, target, contents,
           coalesce(contents->'card_play'->>'special', '') as special,
           last_value(case when event = 'next-player' then cast(contents->'draw_stack'->>'number' as integer) end ignore nulls)
               over (order by seq rows between unbounded preceding and 1 preceding) as stack_before,
           last_value(case when event = 'next-player' then contents->'card_before'->>'color' end ignore nulls)
               over (order by seq rows between unbounded preceding and 1 preceding) as colour_before,
           lead(event) over (order by seq) as next_event
    from events
    where match_id = $match
),
w as (
    select *, last_value(case when event in ('play-card', 'play-draw-card') and special = 'wild_draw_4' then colour_before end
                         ignore nulls) over (order by seq rows between unbounded preceding and 1 preceding) as wd4_colour
    from e
)
select 'pair' as kind, round_no, seq, actor as player, cast(null as varchar) as target, cast(null as integer) as length,
       cast(null as integer) as cards, contents->'card_play'->>'color' as colour, cast(null as boolean) as success
from w where event = 'play-card' and contents->>'card_play_pair' is not null and next_event is distinct from 'penalty'
union all
select 'stack_add', round_no, seq, actor, null, null, null, contents->'card_play'->>'color', null
from w where event in ('play-card', 'play-draw-card') and special in ('draw_2', 'wild_draw_4') and coalesce(stack_before, 0) > 0
  and next_event is distinct from 'penalty'
union all
select 'stack', round_no, seq, actor, null, json_array_length(contents->'draw_stack'->'cards'),
       cast(contents->'draw_stack'->>'number' as integer), null, null
from w where event = 'draw-card' and coalesce(cast(contents->'draw_stack'->>'number' as integer), 0) > 0
union all
select 'challenge', round_no, seq, actor, target, null, null, wd4_colour,
       try_cast(contents->'result'->>'is_challenge_success' as boolean)
from w where event = 'challenge' and try_cast(contents->>'is_challenge' as boolean)
order by seq
