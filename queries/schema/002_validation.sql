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

-- The replayed board after every event, so pages can draw any turn without replaying.
create table if not exists states (
    match_id      varchar,
    seq           integer,
    round_no      integer,
    turn_no       integer,
    to_act        varchar,     -- whose turn it is
    prev_actor    varchar,     -- the last player who ended a turn
    top           varchar,     -- top card with its effective colour, e.g. 'blue-wild'
    direction     boolean,     -- true: play moves right in seat order
    draw_pile     smallint,
    discard_pile  smallint,
    pending       smallint,    -- cards the player to act must take (draw 2 / wild draw 4)
    owes_draw     boolean,
    bind          json,        -- {player: forced-draw turns left} (white wild)
    hands         json,        -- {player: [card, ...]}
    yell          json,        -- {player: UNO flag}
    gate          varchar,     -- 'play-draw' | 'color' | null
    stall         smallint,    -- consecutive turns without a card moving
    cards_played  smallint,
    primary key (match_id, seq)
);
