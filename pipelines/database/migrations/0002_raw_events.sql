-- Events as received from browsers, backends and imports, one row per event.
-- Partitioned by month of event time; the default partition takes any month that has no
-- partition yet, so an insert is never refused for lack of one (maintenance moves such rows).
create table raw.events (
    event_id        uuid        not null default gen_random_uuid(),
    site_id         uuid        not null,
    occurred_at     timestamptz not null,
    received_at     timestamptz not null default now(),
    source          text        not null check (source in ('browser', 'server', 'import')),
    event_type      text        not null check (event_type in ('pageview', 'event')),
    event_name      text        not null,
    visitor_kind    text        not null check (visitor_kind in ('none', 'hash', 'cookie', 'user')),
    visitor_id      text,
    user_id         text,
    page_id         text,
    url             text,
    hostname        text,
    path            text,
    referrer        text,
    referrer_host   text,
    title           text,
    utm_source      text,
    utm_medium      text,
    utm_campaign    text,
    utm_term        text,
    utm_content     text,
    click_id_kind   text,
    language        text,
    country         text,
    browser         text,
    os              text,
    device_class    text,
    screen_class    text,
    props           jsonb       not null default '{}'::jsonb,
    items           jsonb,
    transaction_id  text,
    revenue         numeric(18, 4),
    currency        text,
    constraint events_visitor_kind_matches check (
        (visitor_kind = 'none') = (visitor_id is null and user_id is null)
    )
) partition by range (occurred_at);

comment on table raw.events is 'Events as received. The IP address and the raw user agent are never stored.';
comment on column raw.events.event_name is 'pageview for page views, otherwise the event name.';
comment on column raw.events.visitor_kind is 'none: no visitor; hash: daily cookieless hash; cookie: _vis cookie; user: signed-in user id.';
comment on column raw.events.visitor_id is 'Daily hash (hex) or cookie id, depending on visitor_kind; null for none.';
comment on column raw.events.click_id_kind is 'Which advertising click id was present (gclid, fbclid, msclkid, ...); its value is not kept.';

create table raw.events_default partition of raw.events default;

create index events_site_time on raw.events (site_id, occurred_at);
create index events_received on raw.events using brin (received_at);
