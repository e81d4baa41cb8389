-- Schema 5: Kakomimasu (囲みマス) — game-specific tables beside the shared ones.
-- A Kakomimasu game is one row of `matches` (game = 'kakomimasu', match_id 'kakomimasu:<game id>'),
-- its players are rows of `players` (player_code = the player's id, numbered where ids repeat),
-- its findings rows of `violations` (turn_no = seq = the turn), its records rows of `raw_activities`.

-- One row per game: the board and how the replay judged it.
create table if not exists kakomimasu_games (
    match_id        varchar primary key,
    game_id         varchar,     -- the server's game id
    name            varchar,     -- the game's name, as created
    game_type       varchar,     -- 'normal' | 'self' | 'personal' (v1)
    status          varchar,     -- the server's status: 'free' | 'ready' | 'gaming' | 'ended'
    board_key       varchar,     -- hash of width, height and points; joins kakomimasu_boards
    width           integer,
    height          integer,
    points          json,        -- row-major cell values (index = y * width + x)
    n_player        integer,
    n_agent         integer,
    total_turn      integer,
    turns_logged    integer,     -- turns with actions (v1) or snapshot transitions (2020)
    operation_sec   double,
    transition_sec  double,
    started_at      timestamp,
    winners         json,        -- player indices with the best result (several: a draw)
    decided_by      varchar,     -- 'total' | 'wall' (tie-break on wall points) | 'draw'
    area_fill       varchar,     -- 'server-2.0.1' (shared tile object) | 'as-written'
    written_points  json,        -- [[area, wall], ...] by the written area rule (v1)
    content_hash    varchar,     -- identity of what was loaded (re-ingest is a no-op)
    progress        integer,     -- how far the stored copy goes (a longer copy replaces it)
    run_id          integer
);

-- Every action of every turn: as logged and as replayed.
create table if not exists kakomimasu_actions (
    match_id      varchar,
    turn          integer,
    player_index  integer,
    agent_id      integer,
    type          integer,       -- 1 PUT, 2 NONE, 3 MOVE, 4 REMOVE
    x             integer,
    y             integer,
    res           integer,       -- result code as logged (null: not logged, 2020 logs)
    res_replayed  integer,       -- 0 success, 1 conflict, 2 revert, 3 several actions, 4 no such agent, 5 illegal action
    why           varchar,       -- the rule that refused it
    inferred      boolean,       -- 2020 logs: inferred from two snapshots
    undetermined  boolean,       -- 2020 logs: what the agent did is not known
    position      integer        -- order within the player's actions of the turn
);

-- Every player's points after every turn: as logged and as replayed.
create table if not exists kakomimasu_points (
    match_id             varchar,
    turn                 integer,
    player_index         integer,
    area_point           integer,
    wall_point           integer,
    area_point_replayed  integer,
    wall_point_replayed  integer,
    primary key (match_id, turn, player_index)
);

-- Board sets (boards.json): a game's board is named by joining on board_key.
create table if not exists kakomimasu_boards (
    board_key      varchar,
    name           varchar primary key,
    width          integer,
    height         integer,
    points         json,
    n_agent        integer,
    n_player       integer,
    total_turn     integer,
    operation_sec  double,
    run_id         integer
);
