-- The mail server of subscriptions and alerts as an administrator sets it in the Settings screen
-- (workbench_app/subscriptions/mail_settings.py). With a host here, it replaces the environment's
-- ANALYTICS_SMTP_* server whole; without one, the environment's applies.
create table mail_server (
    id              smallint primary key default 1 check (id = 1),
    host            text check (host is null or length(host) between 1 and 253),
    port            integer check (port between 1 and 65535),
    security        text not null default 'starttls' check (security in ('starttls', 'tls', 'none')),
    username        text,
    -- AES-256-GCM sealed, never returned by the API.
    password_sealed text,
    from_address    text,
    updated_at      timestamptz not null default now(),
    updated_by      bigint references users on delete set null
);
