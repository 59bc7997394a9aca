-- Requests answered per public link in the current minute (fixed window), counted here so that
-- every worker and host shares one count (workbench_app/sharing/request_throttle.py), as the
-- collector counts its server keys (collect.server_key_usage). One row per link, holding its minute.
-- Unlogged: a transaction that writes only unlogged tables does not wait for a WAL flush, and
-- losing the counters in a crash only forgives a minute of rate limit.
create unlogged table public_link_usage (
    link_id      bigint      primary key,
    window_start timestamptz not null,
    requests     integer     not null
);
comment on table public_link_usage is 'Requests answered per public link in the current minute, for its rate limit.';
