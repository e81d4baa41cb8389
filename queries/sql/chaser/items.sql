-- Items per team after every action of a CHaser game (for the items-over-time chart).
-- grain: one row per (seq, team)
select a.seq, a.turn, t.team, coalesce(p.player_name, t.team) as player,
       case when t.team = 'COOL' then a.items_cool else a.items_hot end as items
from chaser_actions a
cross join (values ('COOL'), ('HOT')) t(team)
left join players p on p.match_id = a.match_id and p.player_code = t.team
where a.match_id = $match
order by a.seq, t.team
