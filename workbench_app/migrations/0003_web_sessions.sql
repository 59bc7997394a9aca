-- Browser sessions of the web application (pipelines/web_auth/sessions.py): the cookie holds a
-- random secret, this table only its SHA-256; each session has its own CSRF token.
create table web_sessions (
    session_id   bigint generated always as identity primary key,
    user_id      bigint not null references users on delete cascade,
    secret_hash  bytea not null unique,
    csrf_token   text not null,
    created_at   timestamptz not null default now(),
    last_seen_at timestamptz not null default now()
);
create index web_sessions_user on web_sessions (user_id);
