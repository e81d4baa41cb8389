-- The keyframes a stretch of boards is folded from: the newest at or before $first, and every one up to $last.
-- grain: one row per keyframe of $match with seq in [that keyframe, $last]
select seq, state::varchar as state
from board_keyframes
where match_id = $match
  and seq between coalesce((select max(seq) from board_keyframes where match_id = $match and seq <= $first), $first) and $last
order by seq
