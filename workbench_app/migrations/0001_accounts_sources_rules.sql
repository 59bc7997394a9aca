-- The workbench's own metadata: people, groups, tokens, sources and permission rules.
-- Applied to the `workbench` database by pipelines.database.migrate (directory=workbench_app/migrations).

create table users (
    user_id       bigint generated always as identity primary key,
    email         text not null,
    display_name  text not null default '',
    password_hash text,                 -- argon2id; null for accounts that only sign in by single sign-on
    is_admin      boolean not null default false,
    is_active     boolean not null default true,
    locale        text not null default 'en' check (locale in ('en', 'fr', 'es')),
    created_at    timestamptz not null default now(),
    last_login_at timestamptz
);
create unique index users_email_key on users (lower(email));

create table groups (
    group_id    bigint generated always as identity primary key,
    name        text not null,
    description text not null default '',
    created_at  timestamptz not null default now()
);
create unique index groups_name_key on groups (lower(name));

create table group_members (
    group_id bigint not null references groups on delete cascade,
    user_id  bigint not null references users on delete cascade,
    primary key (group_id, user_id)
);
create index group_members_user on group_members (user_id);

-- Directory attributes used by row rules as {{user.<name>}}; a missing one closes access.
create table user_attributes (
    user_id bigint not null references users on delete cascade,
    name    text not null check (name ~ '^[A-Za-z_][A-Za-z0-9_]*$'),
    value   jsonb not null,
    primary key (user_id, name)
);

-- Bearer tokens of /api/v1 and the agent tool server: only the SHA-256 of the secret is kept.
create table api_tokens (
    token_id     bigint generated always as identity primary key,
    user_id      bigint not null references users on delete cascade,
    name         text not null default '',
    secret_hash  bytea not null unique,
    created_at   timestamptz not null default now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
create index api_tokens_user on api_tokens (user_id);

-- Sources attached as catalogs of the engine. `options` holds what is not secret (host, port,
-- database, user, path); `sealed_secret` is the password sealed with AES-256-GCM, bound to the
-- source id, or null. The warehouse source is built in: its connection comes from the settings.
create table sources (
    source_id     bigint generated always as identity primary key,
    name          text not null check (name ~ '^[A-Za-z_][A-Za-z0-9_]{0,62}$'),
    kind          text not null check (kind in ('warehouse', 'postgres', 'mysql', 'sqlite', 'duckdb', 'files')),
    options       jsonb not null default '{}',
    sealed_secret text,
    created_by    bigint references users on delete set null,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now()
);
create unique index sources_name_key on sources (lower(name));

-- One row: bumped whenever sources change, so every worker notices and attaches the difference.
create table source_catalog_version (
    singleton boolean primary key default true check (singleton),
    version   bigint not null default 1
);
insert into source_catalog_version default values;
insert into sources (name, kind, options) values ('warehouse', 'warehouse', '{"default_schema": "analytics"}');

-- A group reads every table of these catalogs without restriction (unless a table rule says otherwise).
create table catalog_grants (
    group_id bigint not null references groups on delete cascade,
    catalog  text not null,
    primary key (group_id, catalog)
);

-- A group's rule for one table (engine TableRule): access, row filter, hidden and masked columns.
create table table_rules (
    rule_id        bigint generated always as identity primary key,
    group_id       bigint not null references groups on delete cascade,
    catalog        text not null,
    schema_name    text not null,
    table_name     text not null,
    access         boolean not null default true,
    row_filter     text,
    hidden_columns text[] not null default '{}',
    masked_columns jsonb not null default '{}',  -- column -> {"kind", "keep_first", "keep_last", "expression"}
    created_at     timestamptz not null default now(),
    updated_at     timestamptz not null default now()
);
create unique index table_rules_one_per_table
    on table_rules (group_id, lower(catalog), lower(schema_name), lower(table_name));
