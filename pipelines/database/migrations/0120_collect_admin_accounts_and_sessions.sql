-- Accounts of the collector's administration pages (/admin) and their browser sessions.
-- Passwords are argon2id hashes (pipelines.web_auth.passwords); sessions keep the SHA-256 of the
-- cookie's secret only (pipelines.web_auth.sessions). Only administrators may use the pages: an
-- account without the flag is refused on every route.
create table collect.admin_users (
    user_id          bigint generated always as identity primary key,
    email            text not null check (length(email) between 3 and 320),
    password_hash    text not null,
    is_administrator boolean not null default true,
    locale           text check (locale in ('en', 'fr', 'es')),
    created_at       timestamptz not null default now(),
    last_sign_in_at  timestamptz
);
create unique index admin_users_email on collect.admin_users (lower(email));

create table collect.admin_sessions (
    session_id   bigint generated always as identity primary key,
    user_id      bigint not null references collect.admin_users on delete cascade,
    secret_hash  bytea not null unique,
    csrf_token   text not null,
    created_at   timestamptz not null default now(),
    last_seen_at timestamptz not null default now()
);
create index admin_sessions_user on collect.admin_sessions (user_id);
