-- Challenges (made and declined) with verdict, cards and whether the wild draw 4 was a bluff.
-- grain: one row per challenge line; params: $match, $player (challenger or target, code or name)
-- `was_bluff`: a wd4-bluff finding about the target in that round at or after the target's last card played before
-- the challenge (`played_seq`: one window over the challenges and the plays of the selected matches, never a lookup
-- in all events per challenge).
with ch as (
    select c.match_id, c.round_no, c.turn_no, c.seq, cn.player_name as challenger_name, c.challenger,
           tn.player_name as target_name, c.target, c.is_challenge, c.success, c.receiver, c.cards_received
    from challenges c
    left join players cn on cn.match_id = c.match_id and cn.player_code = c.challenger
    left join players tn on tn.match_id = c.match_id and tn.player_code = c.target
    where ($match is null or c.match_id = $match)
      and ($player is null or c.challenger = $player or c.target = $player or cn.player_name = $player
           or tn.player_name = $player)
),
timeline as (
    select e.match_id, e.actor as who, e.seq, false as is_challenge_line from events e
    where ($match is null or e.match_id = $match) and e.event in ('play-card', 'play-draw-card')
      and e.match_id in (select match_id from ch)
    union all
    select distinct match_id, target, seq, true from ch where target is not null
),
played as (
    select match_id, who, seq,
           max(case when not is_challenge_line then seq end) over (partition by match_id, who order by seq,
               is_challenge_line desc rows between unbounded preceding and 1 preceding) as played_seq
    from timeline
    qualify is_challenge_line
)
select c.match_id, c.round_no, c.turn_no, c.seq, c.challenger_name, c.challenger, c.target_name, c.target,
       c.is_challenge, c.success, c.receiver, c.cards_received,
       exists (select 1 from violations v where v.match_id = c.match_id and v.code = 'wd4-bluff'
               and v.player = c.target and v.round_no = c.round_no and v.seq < c.seq
               and v.seq >= p.played_seq) as was_bluff
from ch c
left join played p on p.match_id = c.match_id and p.who = c.target and p.seq = c.seq
order by c.match_id, c.seq
