-- One-time links to set a password (workbench_app/accounts/password_links.py): an invitation for
-- a new account, or a reset. Only the SHA-256 of the token is kept, with an expiry; a person has at
-- most one link (a new one replaces it) and using it deletes it.
create table password_links (
    user_id    bigint primary key references users (user_id) on delete cascade,
    token_hash bytea not null unique,
    purpose    text not null check (purpose in ('invite', 'reset')),
    expires_at timestamptz not null,
    created_by bigint references users (user_id) on delete set null,
    created_at timestamptz not null default now()
);
