-- Settings of the whole workbench, changed in the Settings screen (one row; audited):
-- the language of accounts created without one.
create table instance_settings (
    singleton      boolean primary key default true check (singleton),
    default_locale text not null default 'en' check (default_locale in ('en', 'fr', 'es')),
    updated_at     timestamptz not null default now(),
    updated_by     bigint references users (user_id) on delete set null
);
insert into instance_settings default values;
