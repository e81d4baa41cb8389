-- Wild-draw-4 bluffs that nobody challenged.
-- grain: one row per unchallenged bluff; params: $match, $player
-- A bluff can be challenged until the next card played or turn finished after it (`until_seq`): found by one window
-- over the bluffs and those events of the selected matches (never a lookup in all events per bluff).
with bluffs as (
    select v.match_id, v.round_no, v.turn_no, v.seq, pl.player_name, v.player, v.message
    from violations v
    left join players pl on pl.match_id = v.match_id and pl.player_code = v.player
    where v.code = 'wd4-bluff' and ($match is null or v.match_id = $match)
      and ($player is null or v.player = $player or pl.player_name = $player)
),
timeline as (
    select e.match_id, e.seq, false as is_bluff from events e
    where ($match is null or e.match_id = $match) and e.event in ('play-card', 'play-draw-card', 'finish-turn')
      and e.match_id in (select match_id from bluffs)
    union all
    select distinct match_id, seq, true from bluffs
),
windows as (
    select match_id, seq,
           coalesce(min(case when not is_bluff then seq end) over (partition by match_id order by seq, is_bluff
                    rows between 1 following and unbounded following), 2147483647) as until_seq
    from timeline
    qualify is_bluff
)
select b.match_id, b.round_no, b.turn_no, b.seq, b.player_name, b.player, b.message
from bluffs b join windows w on w.match_id = b.match_id and w.seq = b.seq
where not exists (
    select 1 from challenges c where c.match_id = b.match_id and c.target = b.player and c.is_challenge
      and c.seq > b.seq and c.seq < w.until_seq)
order by b.match_id, b.seq
