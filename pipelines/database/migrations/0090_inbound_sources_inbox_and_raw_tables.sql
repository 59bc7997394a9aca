-- Inbound sources (issue 6): chat and database-service webhooks, database change-stream followers.

-- One configured source. `site_id` null means the source belongs to the whole instance.
-- `settings` holds what is not secret (base URL, tenant, database, tables, polling period,
-- REST read path); secrets and tokens live sealed in collect.inbound_secrets.
create table collect.inbound_sources (
    source_id  uuid        primary key default gen_random_uuid(),
    kind       text        not null check (kind in ('chat_webhook', 'db_webhook', 'db_stream')),
    site_id    uuid        references collect.sites on delete cascade,
    name       text        not null default '' check (length(name) <= 200),
    settings   jsonb       not null default '{}'::jsonb,
    state      text        not null default 'active' check (state in ('active', 'paused')),
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
comment on table collect.inbound_sources is 'Inbound sources: chat webhook receivers, database webhook receivers, database stream followers.';

-- Signing secrets (several per chat source during a rotation) and integration tokens, sealed
-- with AES-256-GCM under a key derived from the server secret for this use only. Never shown again:
-- `hint` (prefix and last four characters) is all an operator sees.
create table collect.inbound_secrets (
    secret_id  uuid        primary key default gen_random_uuid(),
    source_id  uuid        not null references collect.inbound_sources on delete cascade,
    purpose    text        not null check (purpose in ('signing', 'token')),
    sealed     text        not null,
    hint       text        not null,
    created_at timestamptz not null default now(),
    retired_at timestamptz
);
create index inbound_secrets_source on collect.inbound_secrets (source_id) where retired_at is null;

-- Refused deliveries counted per source, reason and minute.
create table collect.inbound_refusals (
    source_id uuid        not null,
    reason    text        not null,
    minute    timestamptz not null,
    count     bigint      not null,
    primary key (source_id, reason, minute)
);

-- Payloads of refused (unauthenticated) deliveries, kept for an operator to inspect, bounded in
-- size and number; deleted after 7 days by processing.
create table raw.inbound_quarantine (
    quarantine_id bigint      generated always as identity primary key,
    source_id     uuid        not null,
    received_at   timestamptz not null default now(),
    reason        text        not null,
    headers       jsonb       not null default '{}'::jsonb,
    body          bytea       not null,
    body_bytes    integer     not null,
    truncated     boolean     not null default false
);
create index inbound_quarantine_source on raw.inbound_quarantine (source_id, received_at);

-- Verified deliveries, written before the 2xx answer and processed afterwards. The body is
-- cleared once processed: what stays is in raw.chat_events / raw.db_events.
create table raw.inbound_inbox (
    inbox_id     bigint      generated always as identity primary key,
    source_id    uuid        not null,
    source_kind  text        not null check (source_kind in ('chat_webhook', 'db_webhook')),
    delivery_id  text,
    received_at  timestamptz not null default clock_timestamp(),
    event_count  integer     not null,
    body         bytea,
    processed_at timestamptz,
    attempts     integer     not null default 0,
    last_error   text
);
create index inbound_inbox_pending on raw.inbound_inbox (inbox_id) where processed_at is null;

-- Chat service events, one row per event id (deduplicated). Contact names and e-mail addresses,
-- message bodies, previews and attachment links are not kept: only what the models need.
create table raw.chat_events (
    event_id          text        primary key,
    event_type        text        not null,
    occurred_at       timestamptz not null,
    received_at       timestamptz not null default now(),
    source_id         uuid        not null,
    site_id           uuid,
    inbox_seq         bigint,
    conversation_id   text,
    inbox_id          text,
    team_id           text,
    status            text,
    assignee_id       text,
    handed_off        boolean,
    channel           text,
    contact_id        text,
    contact_identified boolean,
    message_id        text,
    message_kind      text,
    message_at        timestamptz,
    message_length    integer,
    attachment_count  integer,
    delivery_error    text,
    webhook_id        text,
    conversation      jsonb,
    message           jsonb
);
comment on table raw.chat_events is 'Chat service webhook events, deduplicated on the event id; personal texts removed.';
create index chat_events_conversation on raw.chat_events (conversation_id, occurred_at);
create index chat_events_received on raw.chat_events using brin (received_at);

-- Current state of each conversation: moved only by an event newer than the high-water mark
-- (occurred_at, inbox_seq, position), so a late or duplicate event never rolls it back.
create table raw.chat_conversations (
    conversation_id text        primary key,
    source_id       uuid        not null,
    site_id         uuid,
    inbox_id        text,
    team_id         text,
    status          text,
    assignee_id     text,
    handed_off      boolean,
    channel         text,
    contact_id      text,
    priority        text,
    sentiment       text,
    tags            jsonb,
    first_seen_at   timestamptz not null,
    state_at        timestamptz not null,
    state_seq       bigint      not null,
    state_position  integer     not null,
    state_event_id  text        not null,
    state_event_type text       not null,
    updated_at      timestamptz not null default now()
);

-- Database service events (webhooks, and changes read back by the stream follower).
create table raw.db_events (
    event_id     text        primary key,
    via          text        not null check (via in ('webhook', 'stream', 'poll')),
    event_type   text        not null,
    occurred_at  timestamptz not null,
    received_at  timestamptz not null default now(),
    source_id    uuid        not null,
    site_id      uuid,
    inbox_seq    bigint,
    delivery_id  text,
    tenant       text        not null,
    base         text        not null,
    table_name   text        not null,
    record_id    text        not null,
    actor_kind   text,
    before       jsonb,
    after        jsonb,
    changed      text[]
);
comment on table raw.db_events is 'Database service row changes, deduplicated on the event id.';
create index db_events_record on raw.db_events (tenant, base, table_name, record_id, occurred_at);
create index db_events_received on raw.db_events using brin (received_at);

-- Current state of each followed row, under the same high-water-mark rule as conversations.
create table raw.db_rows (
    tenant         text        not null,
    base           text        not null,
    table_name     text        not null,
    record_id      text        not null,
    source_id      uuid        not null,
    site_id        uuid,
    row_data       jsonb,
    deleted        boolean     not null default false,
    state_at       timestamptz not null,
    state_seq      bigint      not null,
    state_position integer     not null,
    state_event_id text        not null,
    updated_at     timestamptz not null default now(),
    primary key (tenant, base, table_name, record_id)
);

-- Where each stream follower stands: its cursor on _updated_at, the last SSE id, and whether it
-- runs or was stopped (a refused token stops it until the token is replaced).
create table raw.db_follow_state (
    source_id        uuid        not null,
    table_name       text        not null,
    cursor_at        timestamptz,
    last_event_id    text,
    state            text        not null default 'running' check (state in ('running', 'stopped')),
    last_error       text,
    last_error_at    timestamptz,
    last_signal_at   timestamptz,
    last_read_at     timestamptz,
    rows_read        bigint      not null default 0,
    changes_recorded bigint      not null default 0,
    connections      bigint      not null default 0,
    updated_at       timestamptz not null default now(),
    primary key (source_id, table_name)
);
