-- How every team's and agent's actions turned out (the replayed result code).
-- grain: one row per (player_index, agent_id, type, res_replayed)
select a.player_index, coalesce(p.player_name, p.player_code) as player, a.agent_id, a.type,
       a.res_replayed as res, count(*) as actions
from kakomimasu_actions a
left join players p on p.match_id = a.match_id and p.join_order = a.player_index + 1
where a.match_id = $match and a.res_replayed is not null
group by all
order by a.player_index, a.agent_id, a.type, a.res_replayed
