-- Whether the database has the `live_matches` table (schema 7; a schema-6 file has none).
-- grain: one row, one column (0 or 1)
select count(*) from information_schema.tables
where table_catalog = current_database() and table_name = 'live_matches'
