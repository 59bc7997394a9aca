-- Sharing of dashboards (workbench_app/sharing/): installation settings, public links, embedding secrets.

-- Public links are off until an administrator turns them on; the embed token's lifetime is capped;
-- each public link answers at most this many requests a minute (per worker). One row, changed in
-- the Settings screen with the other settings of the installation (instance_settings, audited).
create table sharing_settings (
    singleton                       boolean primary key default true check (singleton),
    public_sharing                  boolean not null default false,
    embed_max_lifetime_seconds      integer not null default 3600 check (embed_max_lifetime_seconds between 60 and 604800),
    public_link_requests_per_minute integer not null default 120
        check (public_link_requests_per_minute between 1 and 100000)
);
insert into sharing_settings default values;

-- A public link runs under its creator's rights (read fresh on every call), with only the filters
-- chosen when it was made. Only the SHA-256 of the link's secret is kept; revoking is immediate.
create table public_links (
    link_id         bigint generated always as identity primary key,
    dashboard_id    bigint not null references dashboards on delete cascade,
    secret_sha256   text not null unique,
    allowed_filters text[] not null default '{}',
    created_by      bigint not null references users on delete cascade,
    created_at      timestamptz not null default now(),
    revoked_at      timestamptz,
    revoked_by      bigint references users on delete set null
);
create index public_links_dashboard on public_links (dashboard_id);

-- An embedding secret signs embed tokens (HS256) for the host pages of one customer. It is sealed
-- with AES-256-GCM like source passwords, shown once, revocable. Its tokens run as its own account
-- (`account_id`: no password, member of `group_id` only), with the token's attributes in place of
-- stored ones, so the group's `{{user.<attribute>}}` row filters apply per token.
create table embedding_secrets (
    secret_id       bigint generated always as identity primary key,
    kid             text not null unique check (kid ~ '^[A-Za-z0-9_-]{1,64}$'),
    name            text not null check (length(name) between 1 and 200),
    group_id        bigint not null references groups on delete cascade,
    account_id      bigint not null references users on delete cascade,
    sealed_secret   text not null,
    allowed_origins text[] not null default '{}',
    created_by      bigint references users on delete set null,
    created_at      timestamptz not null default now(),
    revoked_at      timestamptz
);
