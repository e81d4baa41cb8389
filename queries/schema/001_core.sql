-- Kifu core schema (game-independent tables + ALGORI UNO tables).
-- Applied by queries.apply_schema(); every statement is idempotent.
-- Grain and keys are documented in docs/data-model.md. Table and column names are a
-- public contract: change them only with a schema_version bump.

create table if not exists kifu_meta (
    key   varchar primary key,
    value varchar
);

-- One row per `kifu ingest` run (lineage: every data row carries run_id).
create table if not exists load_runs (
    run_id             integer primary key,
    started_at         timestamp,
    finished_at        timestamp,
    duration_s         double,
    kifu_version       varchar,
    sources            json,      -- list of source descriptions (paths, Mongo URI without credentials)
    records_read       bigint,    -- records seen in all sources
    records_ingested   bigint,    -- new events written
    records_duplicate  bigint,    -- events already in the database (re-ingest)
    records_quarantined bigint,   -- rows written to load_issues
    unknown_events     json,      -- {event name: count} of event types Kifu does not model
    matches            integer,   -- matches touched by this run
    bytes_read         bigint,
    status             varchar    -- 'ok' | 'empty' (nothing could be ingested)
);

-- Every record that could not be ingested, with where it was and why.
create table if not exists load_issues (
    run_id      integer,
    source      varchar,
    line        bigint,       -- 1-based line (files) or position (MongoDB cursor, JSON array element)
    reason      varchar,
    raw         varchar using compression zstd,   -- the record's text (first 64 KiB of it)
    raw_length  bigint,       -- its full length in bytes
    raw_hash    varchar       -- identity for idempotent re-ingest
);

-- Append-only: every accepted source record, as read.
create table if not exists raw_activities (
    match_id    varchar,
    seq         integer,      -- position in the match log (1-based)
    run_id      integer,
    source      varchar,
    line        bigint,
    raw         varchar using compression zstd   -- the line as read, while not packed; NULL once its bytes are in raw_blocks
);

-- One row per match (one dealer run of N rounds).
create table if not exists matches (
    match_id        varchar primary key,
    game            varchar,   -- rules module id, 'algori-uno'
    dealer_code     varchar,
    dealer_name     varchar,
    white_wild      varchar,   -- 'bind_2' | 'skip_bind_2' | null (no white wild)
    rounds_played   integer,   -- rounds that reached finish-turn
    rounds_logged   integer,   -- rounds that reached first-player
    winner          varchar,   -- finish-game winner (player code)
    status          varchar,   -- 'finished' (finish-game logged) | 'incomplete'
    final_scores    json,      -- finish-game score {code: total}
    final_order     json,      -- finish-game order {code: rounds won}
    n_events        integer,
    started_at      timestamp,
    finished_at     timestamp,
    log_format      varchar,   -- 'algori-2023' | 'algori-2022'
    ruleset         varchar,   -- the ruleset that validated it, e.g. 'algori-2023/skip_bind_2'
    ruleset_version varchar,
    first_run_id    integer,
    last_run_id     integer
);

create table if not exists players (
    match_id     varchar,
    player_code  varchar,
    player_name  varchar,
    join_order   integer,      -- 1..4, order of join-room
    rounds_won   integer,
    final_score  integer,
    final_rank   integer,      -- by final score; ties broken by who reached it first
    primary key (match_id, player_code)
);

create table if not exists rounds (
    match_id      varchar,
    round_no      integer,     -- the dealer's `turn`
    first_player  varchar,
    first_card    json,
    first_card_label varchar,
    play_order    json,        -- list of 4 player codes
    white_wild    varchar,
    winner        varchar,     -- null when nobody emptied the hand
    end_kind      varchar,     -- 'won' | 'no-progress' | 'deck-exhausted' | 'incomplete'
    n_turns       integer,     -- highest number_turn_play logged
    n_events      integer,
    first_seq     integer,
    last_seq      integer,
    scores        json,        -- finish-turn score {code: n}
    started_at    timestamp,
    ended_at      timestamp,
    primary key (match_id, round_no)
);

create table if not exists round_scores (
    match_id     varchar,
    round_no     integer,
    player_code  varchar,
    score        integer,      -- this round's score
    total_score  integer,      -- running total after this round (finish-turn total_score)
    is_winner    boolean,
    primary key (match_id, round_no, player_code)
);

-- One row per activity, typed.
create table if not exists events (
    match_id      varchar,
    dealer_code   varchar,
    seq           integer,
    round_no      integer,     -- dealer `turn`
    turn_no       integer,     -- number_turn_play (carried forward for events without one)
    event         varchar,
    actor         varchar,     -- `player` of the activity (null when the dealer acts)
    target        varchar,     -- who the event is about (penalised player, challenge/pointing target, next player, winner)
    card_color    varchar,     -- card played (play-card, play-draw-card), first card drawn, first card of a round
    card_number   tinyint,
    card_special  varchar,
    n_cards       smallint,    -- cards drawn / received
    chosen_color  varchar,     -- color_of_wild
    yell_uno      boolean,     -- only when sent as a real boolean; the raw value stays in contents
    draw_reason   varchar,
    contents      json using compression zstd,
    created_at    timestamp,
    run_id        integer
    -- one row per (match_id, seq): kept by the loader, no index (an index per event costs more than the table)
);

create table if not exists penalties (
    match_id        varchar,
    seq             integer,
    round_no        integer,
    turn_no         integer,
    player          varchar,   -- the penalised player
    cause           varchar,   -- the dealer's error text ('timeout', 'Card play invalid with card before.', ...)
    cards_received  smallint
    -- one row per (match_id, seq): kept by the loader, no index (an index per event costs more than the table)
);

create table if not exists challenges (
    match_id        varchar,
    seq             integer,
    round_no        integer,
    turn_no         integer,
    challenger      varchar,
    target          varchar,   -- who played the wild_draw_4
    is_challenge    boolean,   -- false: declined (the challenger draws the 4)
    is_challenge_raw varchar,  -- as sent, when not a boolean
    success         boolean,   -- null when declined
    receiver        varchar,   -- who drew the cards
    cards_received  smallint
    -- one row per (match_id, seq): kept by the loader, no index (an index per event costs more than the table)
);

create table if not exists special_logic (
    match_id     varchar,
    seq          integer,
    round_no     integer,
    turn_no      integer,
    player       varchar,
    title        varchar,      -- null when no title was sent
    title_length integer,      -- JavaScript string length (UTF-16 code units), as the dealer counts
    primary key (match_id, seq)
);

-- The bytes of raw_activities' lines, packed (queries.rawlines): up to 1,024 consecutive lines of
-- one match, concatenated and compressed (codec 'zstd': a standard zstd frame), with each line's
-- seq and length, so every line comes back byte for byte. raw_activities.raw is NULL for them.
create table if not exists raw_blocks (
    match_id    varchar,
    first_seq   bigint,
    last_seq    bigint,
    codec       varchar,
    seqs        bigint[],
    lengths     bigint[],
    data        blob
);
