-- Validator output (rules engine replay of every round).

-- One row per finding. `penalty_seq` is the dealer penalty event the finding explains.
create table if not exists violations (
    match_id        varchar,
    round_no        integer,
    turn_no         integer,
    seq             integer,     -- the event the finding is about (null: the match as a whole)
    player          varchar,
    code            varchar,     -- stable kebab-case check code (docs/rules/algori-uno.md)
    family          varchar,     -- 'player-rule' | 'dealer-judgement' | 'consistency'
    severity        varchar,     -- 'error' | 'warning' | 'info'
    ruleset         varchar,
    ruleset_version varchar,
    message         varchar,
    expected        varchar,
    actual          varchar,
    penalty_seq     integer,
    run_id          integer
);

-- The replayed board only where the fold over the round's lines cannot give it (the round's deal,
-- a resync after a snapshot mismatch, an inferred hand-over, a skipped or swapped line, the last
-- line of a batch): every other event's board is derived from the nearest keyframe before it
-- (rules.uno.boards; queries.boards.round_boards), and the loader checks at ingest that the
-- derived board equals the replay's.
create table if not exists board_keyframes (
    match_id      varchar,
    seq           integer,
    round_no      integer,
    state         json using compression zstd,   -- the whole GameState (rules.uno.boards.encode_state)
    primary key (match_id, seq)
);
