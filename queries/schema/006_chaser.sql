-- Schema 6: CHaser (U-16 旭川プロコン) and how every game ended.
-- A CHaser game is one row of `matches` (game = 'chaser', match_id 'chaser:<start time>-<hash>'),
-- its players `COOL` and `HOT` rows of `players` (player_name = the name the client sent), its findings
-- rows of `violations` (seq = the action number, turn_no = the round counting up from 1).

-- How a match ended, one word per game: CHaser 'put-on' | 'walked-into-block' | 'surrounded-by-opponent'
-- | 'self-surrounded' | 'items' | 'draw' | 'no-response' | 'invalid-method' | 'invalid-direction' |
-- 'incomplete'; Kakomimasu 'total' | 'wall' | 'draw' (the deciding rule); ALGORI: null (see rounds.end_kind).
alter table matches add column if not exists end_kind varchar;

-- One row per game: the map as it was at the start and the end explained.
create table if not exists chaser_games (
    match_id        varchar primary key,
    started         varchar,     -- the log's first timestamp, yyyyMMddhhmmss (server's local time)
    map_name        varchar,     -- N: of the embedded map (the server writes the log file's name there)
    map_key         varchar,     -- hash of size, cells and starts; joins chaser_maps for the map's real name
    width           integer,
    height          integer,
    turns           integer,     -- T: of the map
    cells           json,        -- row-major start map: 0 floor, 2 block, 3 item
    cool_start      json,        -- [x, y]
    hot_start       json,
    end_kind        varchar,
    end_turn        integer,
    winner          varchar,     -- COOL | HOT | null
    loser           varchar,
    items_cool      integer,     -- replayed items at the end
    items_hot       integer,
    sentence        varchar,     -- the end in words (English; pages word it in the viewer's language)
    actions         integer,
    unknown_lines   integer,     -- lines Kifu does not model, kept in raw_activities
    truncated       boolean,     -- the log stops before [決着]
    content_hash    varchar,
    progress        integer,
    run_id          integer
);

-- Every action: as logged and as replayed.
create table if not exists chaser_actions (
    match_id       varchar,
    seq            integer,      -- action number, 1-based
    turn           integer,      -- round number counting up from 1
    remaining      integer,      -- 残N as logged
    team           varchar,      -- COOL | HOT
    action         varchar,      -- walk | look | search | put, or the raw text when invalid
    direction      varchar,      -- up | down | left | right | null
    x              integer,      -- the player's position after the action
    y              integer,
    surroundings   varchar,      -- the 10 digits as logged
    surroundings_replayed varchar,
    item_taken     boolean,      -- the player took an item (+1)
    item_destroyed boolean,      -- a put destroyed an item (the server logs [取得] for it too)
    items_cool     integer,      -- items after the action
    items_hot      integer,
    primary key (match_id, seq)
);

-- Maps (.map files): a game's map is named by joining on map_key.
create table if not exists chaser_maps (
    map_key    varchar,
    name       varchar primary key,
    width      integer,
    height     integer,
    turns      integer,
    cells      json,
    cool_start json,
    hot_start  json,
    run_id     integer
);
