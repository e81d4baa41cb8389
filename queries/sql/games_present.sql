-- The games that have at least one match in the database (the navigation shows only these).
-- grain: one row per game
select game, count(*) as matches from matches group by game order by game
