-- Themes (issue 12): fonts from the bundled set, colours, card style, chart palette, PDF layout
-- (settings, checked by workbench_app/themes/settings.py) and an uploaded logo. A folder or a
-- dashboard names its own theme or none; none means "as the folder above" (resolved in one place:
-- workbench_app/themes/resolution.py). Deleting a theme leaves its folders and dashboards inheriting.
create table themes (
    theme_id     bigint generated always as identity primary key,
    name         text not null check (length(name) between 1 and 100),
    settings     jsonb not null default '{}',
    logo         bytea check (logo is null or length(logo) <= 262144),
    logo_type    text check (logo_type in ('image/png', 'image/jpeg', 'image/webp')),
    created_by   bigint references users on delete set null,
    created_at   timestamptz not null default now(),
    updated_at   timestamptz not null default now(),
    check ((logo is null) = (logo_type is null))
);

alter table folders add column theme_id bigint references themes on delete set null;
alter table dashboards add column theme_id bigint references themes on delete set null;
