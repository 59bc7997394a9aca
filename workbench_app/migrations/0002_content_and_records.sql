-- Folders, questions, models and metrics, dashboards; query history and the audit log.

-- A personal folder belongs to one user (owner_id); a shared folder (owner_id null) is opened
-- to groups through folder_access. Administrators see and edit every folder.
create table folders (
    folder_id  bigint generated always as identity primary key,
    name       text not null,
    parent_id  bigint references folders on delete cascade,
    owner_id   bigint references users on delete cascade,
    created_by bigint references users on delete set null,
    created_at timestamptz not null default now()
);
create unique index folders_one_personal on folders (owner_id) where parent_id is null and owner_id is not null;

create table folder_access (
    folder_id bigint not null references folders on delete cascade,
    group_id  bigint not null references groups on delete cascade,
    level     text not null check (level in ('view', 'edit')),
    primary key (folder_id, group_id)
);

-- A question is SQL (with typed {{variables}}) or a builder definition compiled to SQL on save.
create table questions (
    question_id   bigint generated always as identity primary key,
    folder_id     bigint not null references folders on delete cascade,
    name          text not null,
    description   text not null default '',
    kind          text not null check (kind in ('sql', 'builder')),
    builder       jsonb,
    sql_text      text not null,
    variables     jsonb not null default '{}',   -- name -> text | number | date
    visualization jsonb not null default '{}',
    created_by    bigint references users on delete set null,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now()
);
create index questions_folder on questions (folder_id);

-- A model is a named SQL query; a metric aggregates one of its columns, grouped by dimensions.
create table models (
    model_id    bigint generated always as identity primary key,
    folder_id   bigint not null references folders on delete cascade,
    name        text not null,
    description text not null default '',
    sql_text    text not null,
    created_by  bigint references users on delete set null,
    created_at  timestamptz not null default now(),
    updated_at  timestamptz not null default now()
);

create table metrics (
    metric_id   bigint generated always as identity primary key,
    model_id    bigint not null references models on delete cascade,
    name        text not null check (name ~ '^[A-Za-z_][A-Za-z0-9_]*$'),
    description text not null default '',
    aggregation text not null check (aggregation in ('count', 'count_distinct', 'sum', 'avg', 'min', 'max')),
    column_name text,
    dimensions  text[] not null default '{}',
    created_by  bigint references users on delete set null,
    created_at  timestamptz not null default now()
);
create unique index metrics_name_key on metrics (lower(name));

create table dashboards (
    dashboard_id         bigint generated always as identity primary key,
    folder_id            bigint not null references folders on delete cascade,
    name                 text not null,
    description          text not null default '',
    auto_refresh_seconds integer check (auto_refresh_seconds is null or auto_refresh_seconds >= 10),
    created_by           bigint references users on delete set null,
    created_at           timestamptz not null default now(),
    updated_at           timestamptz not null default now()
);

create table dashboard_tabs (
    tab_id       bigint generated always as identity primary key,
    dashboard_id bigint not null references dashboards on delete cascade,
    name         text not null,
    position     integer not null default 0
);

-- A card shows a question or a text block at a grid position of a tab.
create table dashboard_cards (
    card_id      bigint generated always as identity primary key,
    dashboard_id bigint not null references dashboards on delete cascade,
    tab_id       bigint references dashboard_tabs on delete set null,
    kind         text not null check (kind in ('question', 'text')),
    question_id  bigint references questions on delete cascade,
    text         text,
    col          integer not null default 0 check (col >= 0),
    row          integer not null default 0 check (row >= 0),
    width        integer not null default 6 check (width > 0),
    height       integer not null default 4 check (height > 0),
    check ((kind = 'question') = (question_id is not null))
);

create table dashboard_filters (
    filter_id     bigint generated always as identity primary key,
    dashboard_id  bigint not null references dashboards on delete cascade,
    name          text not null,
    type          text not null check (type in ('text', 'number', 'date')),
    default_value jsonb
);

-- A filter feeds a variable (a field) of a card's question.
create table dashboard_filter_links (
    filter_id bigint not null references dashboard_filters on delete cascade,
    card_id   bigint not null references dashboard_cards on delete cascade,
    variable  text not null,
    primary key (filter_id, card_id)
);

create table query_history (
    query_id    bigint generated always as identity primary key,
    user_id     bigint references users on delete set null,
    origin      text not null check (origin in ('ui', 'api', 'tool_server', 'embed', 'assistant')),
    sql_text    text not null,
    question_id bigint references questions on delete set null,
    started_at  timestamptz not null default now(),
    duration_ms double precision not null,
    row_count   integer,
    status      text not null check (status in ('ok', 'refused', 'failed')),
    error_code  text
);
create index query_history_user on query_history (user_id, started_at desc);

create table audit_log (
    entry_id bigint generated always as identity primary key,
    at       timestamptz not null default now(),
    actor_id bigint references users on delete set null,
    actor    text not null,
    action   text not null,
    target   text,
    details  jsonb not null default '{}'
);
create index audit_log_at on audit_log (at desc);
