-- The first-run setup link of the collector's administration pages (pipelines/admin/admin_setup.py,
-- rules in pipelines/web_auth/setup_links.py): at most one, kept as the SHA-256 of its token only,
-- with an expiry; deleted when the first administrator account is created.
create table collect.admin_setup_link (
    singleton  boolean primary key default true check (singleton),
    token_hash bytea not null,
    expires_at timestamptz not null,
    created_at timestamptz not null default now()
);
