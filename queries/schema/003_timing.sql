-- Think times: for every timed player action (play-card, draw-card, play-draw-card,
-- challenge, a player's color-of-wild), the milliseconds since the dealer's 5-second clock
-- for that player started (its next-player, color-change-request, playable draw or a
-- successful UNO pointing), from the log's dateCreated. Judged in rules/uno/timing.py.
create table if not exists think_times (
    match_id    varchar,
    seq         integer,     -- the action
    round_no    integer,
    turn_no     integer,
    player      varchar,
    action      varchar,     -- event name
    think_ms    integer
    -- one row per (match_id, seq): kept by the loader, no index (an index per event costs more than the table)
);
