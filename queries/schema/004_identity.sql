-- Schema 4: one identity for every record, whatever the cut (loaders/core/assemble.py).
-- rkey: a 63-bit hash of what the dealer wrote about the event (not its timestamp), equal for
-- the download and the MongoDB copy; pieces of a match are aligned by it.
-- log_start: 'start' when the stored log of a match begins at its first join-room with every
-- seat joined before the deal; 'partial' when only a later part of it has been seen so far.
alter table raw_activities add column if not exists rkey bigint;
alter table matches add column if not exists log_start varchar;
