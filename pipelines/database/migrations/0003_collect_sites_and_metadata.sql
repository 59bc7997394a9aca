-- Sites and the metadata that administrators declare for them.
create table collect.sites (
    site_id          uuid        primary key default gen_random_uuid(),
    name             text        not null check (length(name) between 1 and 200),
    tracking_mode    text        not null default 'cookieless'
                                 check (tracking_mode in ('cookieless', 'cookie', 'consent')),
    accept_user_id   boolean     not null default false,
    retention_months integer     not null default 25 check (retention_months between 1 and 120),
    timezone         text        not null default 'UTC',
    currency         text        not null default 'EUR' check (currency ~ '^[A-Z]{3}$'),
    created_at       timestamptz not null default now(),
    updated_at       timestamptz not null default now()
);

-- A domain may be exact (example.com) or a wildcard for subdomains (*.example.com).
create table collect.site_domains (
    site_id uuid not null references collect.sites on delete cascade,
    domain  text not null check (domain = lower(domain) and length(domain) between 1 and 253),
    primary key (site_id, domain)
);

create table collect.declared_events (
    site_id     uuid        not null references collect.sites on delete cascade,
    name        text        not null check (name ~ '^[a-z][a-z0-9_]{0,62}$'),
    label       text        not null,
    description text        not null default '',
    updated_at  timestamptz not null default now(),
    primary key (site_id, name)
);

create table collect.declared_event_properties (
    site_id     uuid not null,
    event_name  text not null,
    name        text not null check (name ~ '^[a-z][a-z0-9_]{0,62}$'),
    type        text not null check (type in ('string', 'number', 'boolean', 'timestamp')),
    label       text not null,
    description text not null default '',
    primary key (site_id, event_name, name),
    foreign key (site_id, event_name) references collect.declared_events on delete cascade
);

create table collect.zones (
    site_id  uuid not null references collect.sites on delete cascade,
    name     text not null check (name ~ '^[a-z][a-z0-9_-]{0,62}$'),
    selector text not null check (length(selector) between 1 and 500),
    label    text not null,
    primary key (site_id, name)
);

-- A goal is reached by a page view whose path matches a pattern, or by a named event
-- (optionally with one property equal to a value). `value` is the conversion's worth.
create table collect.goals (
    goal_id        uuid    primary key default gen_random_uuid(),
    site_id        uuid    not null references collect.sites on delete cascade,
    name           text    not null,
    kind           text    not null check (kind in ('pageview', 'event')),
    path_pattern   text,
    event_name     text,
    property_name  text,
    property_value text,
    value          numeric(18, 4),
    check ((kind = 'pageview') = (path_pattern is not null)),
    check ((kind = 'event') = (event_name is not null)),
    check ((property_name is null) = (property_value is null)),
    unique (site_id, name)
);

-- Classifications imported from CSV: a value of a dimension (a campaign, a page path, ...)
-- belongs to a class under an attribute (for instance campaign 'spring_fb' -> product_line 'Shoes').
create table collect.classifications (
    site_id         uuid not null references collect.sites on delete cascade,
    dimension       text not null,
    value           text not null,
    attribute       text not null,
    attribute_value text not null,
    primary key (site_id, dimension, value, attribute)
);

create table collect.annotations (
    annotation_id uuid        primary key default gen_random_uuid(),
    site_id       uuid        not null references collect.sites on delete cascade,
    on_date       date        not null,
    text          text        not null check (length(text) between 1 and 1000),
    created_at    timestamptz not null default now()
);

-- Channel rules are data, applied in order (first match wins) by the pipeline to every visit,
-- past ones included. Each pattern is a case-insensitive regular expression; null matches anything.
-- `source_category` matches the category of the source in collect.source_categories.
create table collect.channel_rules (
    site_id         uuid    not null references collect.sites on delete cascade,
    position        integer not null,
    channel         text    not null,
    source_pattern  text,
    medium_pattern  text,
    campaign_pattern text,
    source_category text check (source_category in ('search', 'social', 'shopping', 'video', 'email')),
    primary key (site_id, position)
);

-- Bumped on every edit of a site's channel rules; the pipeline re-applies rules when it moves.
create table collect.channel_rules_versions (
    site_id    uuid        primary key references collect.sites on delete cascade,
    version    integer     not null default 1,
    changed_at timestamptz not null default now()
);

create table collect.source_categories (
    source   text primary key,
    category text not null check (category in ('search', 'social', 'shopping', 'video', 'email'))
);
