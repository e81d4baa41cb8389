-- Schema 7: matches a `kifu watch` is following while they are played (docs/live.md).
-- One row per match of a source being watched, written with every batch; the row goes when the
-- match's log ends (ALGORI finish-game, a Kakomimasu game ended, a CHaser log settled) or the
-- watcher stops.  A row only counts while its watcher runs (its lock `<db>.watch` is held): one
-- killed with SIGKILL leaves rows that the dashboard ignores and the next watcher replaces.
create table if not exists live_matches (
    match_id      varchar primary key,
    game          varchar,
    source        varchar,     -- the file, collection or URL the watcher reads it from
    run_id        integer,     -- the watcher's load_runs row
    last_seq      integer,     -- the newest event stored
    last_event_at timestamp,   -- when the newest event was logged (the log's own time)
    updated_at    timestamp    -- when the watcher last wrote this match
);
