-- The first-run setup link (workbench_app/accounts/setup_link.py): at most one, kept as the
-- SHA-256 of its token only, with an expiry; deleted when the first administrator is created.
create table setup_link (
    singleton  boolean primary key default true check (singleton),
    token_hash bytea not null,
    expires_at timestamptz not null,
    created_at timestamptz not null default now()
);

-- Content the product created once (the Demo folder): a row here means "done, never again",
-- even after a person edited or deleted that content (workbench_app/content/demo_content.py).
create table seeded_content (
    name       text primary key,
    created_at timestamptz not null default now()
);
