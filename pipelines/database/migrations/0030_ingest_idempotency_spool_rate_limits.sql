-- Ingestion bookkeeping: idempotency keys of server requests, replayed spool segments, and the
-- per-minute event counters of server keys.

-- The answer to a request sent with an Idempotency-Key header, written in the same transaction as
-- its events: a retried request finds it and stores nothing twice. Kept for a day. The key is
-- chosen by the caller and could hold anything, so only its SHA-256 is kept.
create table raw.idempotency_keys (
    key_id          uuid        not null,
    key_hash        text        not null check (key_hash ~ '^[0-9a-f]{64}$'),
    request_hash    text        not null,
    response        jsonb       not null,
    created_at      timestamptz not null default now(),
    primary key (key_id, key_hash)
);
create index idempotency_keys_created on raw.idempotency_keys (created_at);
comment on table raw.idempotency_keys is 'Answers to server requests sent with an Idempotency-Key, per server key; kept for 24 hours.';

-- Spool segments already written to raw.events, recorded in the replay's own transaction so that
-- a segment is replayed once even if the process dies before deleting its file.
create table raw.spool_segments (
    segment     text        primary key,
    events      bigint      not null,
    replayed_at timestamptz not null default now()
);
comment on table raw.spool_segments is 'Names of local spool files already replayed into raw.events.';

-- Events counted per server key in the current minute (fixed window), shared by every worker and
-- host. Unlogged: a transaction that writes only unlogged tables does not wait for a WAL flush,
-- and losing the counters in a crash only forgives a minute of rate limit.
create unlogged table collect.server_key_usage (
    key_id       uuid        primary key,
    window_start timestamptz not null,
    events       integer     not null
);
comment on table collect.server_key_usage is 'Events received per server key in the current minute, for its rate limit.';
