-- Card results cached in the workbench database (no new server), keyed by the SHA-256 of the
-- statement after the permission rewrite with its bound values: two people whose row filters or
-- masks differ never share an entry (workbench_app/content/result_cache.py).
alter table dashboards add column cache_ttl_seconds integer not null default 300
    check (cache_ttl_seconds between 0 and 86400);
-- Marks a dashboard for the warm-up after builds (the Dagster side is still to come; not in the API yet).
alter table dashboards add column warm_up boolean not null default false;

create table dashboard_result_cache (
    cache_key     text not null,
    dashboard_id  bigint not null references dashboards on delete cascade,
    card_id       bigint not null references dashboard_cards on delete cascade,
    -- whose run it was and with which filter values: the warm-up runs it again as them
    user_id       bigint references users on delete cascade,
    filter_values jsonb not null default '{}',
    tables        text[] not null,
    result        jsonb not null,
    created_at    timestamptz not null default now(),
    expires_at    timestamptz not null,
    primary key (dashboard_id, cache_key)
);
create index dashboard_result_cache_tables on dashboard_result_cache using gin (tables);

create table dashboard_cache_counts (
    dashboard_id bigint primary key references dashboards on delete cascade,
    hits         bigint not null default 0,
    misses       bigint not null default 0
);
