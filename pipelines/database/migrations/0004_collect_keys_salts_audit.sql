-- Credentials, salts, counters, privacy requests and the audit log.
create table collect.admin_tokens (
    token_id     uuid        primary key default gen_random_uuid(),
    name         text        not null,
    token_hash   bytea       not null unique,
    created_at   timestamptz not null default now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);

create table collect.server_keys (
    key_id                uuid        primary key default gen_random_uuid(),
    site_id               uuid        not null references collect.sites on delete cascade,
    name                  text        not null default '',
    secret_hash           bytea       not null unique,
    secret_hint           text        not null,
    rate_limit_per_minute integer     not null default 6000 check (rate_limit_per_minute > 0),
    created_at            timestamptz not null default now(),
    last_used_at          timestamptz,
    revoked_at            timestamptz
);

-- One random salt per UTC day for the cookieless visitor hash; yesterday's is destroyed.
create table collect.daily_salts (
    salt_day   date        primary key,
    salt       bytea       not null check (length(salt) = 32),
    created_at timestamptz not null default now()
);

-- Refused events, counted per site, reason and minute (never the events themselves).
create table collect.rejections (
    site_id  uuid        not null,
    reason   text        not null,
    minute   timestamptz not null,
    count    bigint      not null,
    primary key (site_id, reason, minute)
);

-- Export and erasure requests. The subject's identifier is needed only until the request is
-- processed: then subject_value is cleared and only its keyed hash stays, so that a done erasure
-- leaves no copy of the person's identifier behind.
create table collect.privacy_requests (
    request_id   uuid        primary key default gen_random_uuid(),
    site_id      uuid        not null references collect.sites on delete cascade,
    kind         text        not null check (kind in ('export', 'erasure')),
    subject_kind text        not null check (subject_kind in ('user_id', 'visitor')),
    subject_hash bytea       not null,
    subject_value text,
    state        text        not null default 'pending' check (state in ('pending', 'running', 'done', 'failed')),
    requested_by text        not null,
    requested_at timestamptz not null default now(),
    completed_at timestamptz,
    result       jsonb
);

create table collect.audit_log (
    audit_id bigint      generated always as identity primary key,
    at       timestamptz not null default now(),
    actor    text        not null,
    action   text        not null,
    target   text,
    details  jsonb       not null default '{}'::jsonb
);
create index audit_log_at on collect.audit_log (at);
