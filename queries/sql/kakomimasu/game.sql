-- One Kakomimasu game: the board, the settings, how it ended, and the board's name.
-- grain: one row per match_id
select g.*, b.name as board_name, m.status as match_status, m.winner, m.log_format, m.ruleset
from kakomimasu_games g
join matches m using (match_id)
left join kakomimasu_boards b on b.board_key = g.board_key
where g.match_id = $match
