-- Subscriptions and alerts: a dashboard or a question sent on a schedule, a question watched, and
-- the log of every delivery.
--
-- A delivery row is written before its message goes out, one per (subscription or alert,
-- recipient, due time): a retry after a crash finds it and sends under the same delivery id (the
-- webhook's X-Analytics-Delivery-Id, the mail's Message-ID), so a receiver sees one message per
-- firing, and a row already sent is never sent again.

-- Whether messages may go to addresses outside the workbench's accounts and to webhooks (they then
-- get only what a public link of the same dashboard would show). Off until an administrator allows.
alter table sharing_settings add column external_recipients boolean not null default false;

create table subscriptions (
    subscription_id bigint generated always as identity primary key,
    owner_id        bigint not null references users on delete cascade,
    target_kind     text not null check (target_kind in ('dashboard', 'question')),
    -- Null once the dashboard or question is deleted: the next due time logs it and tells the owner.
    dashboard_id    bigint references dashboards on delete set null,
    question_id     bigint references questions on delete set null,
    name            text not null default '',
    schedule        jsonb not null,                 -- workbench_app/deliveries/schedules.py
    filters         jsonb not null default '{}',    -- the dashboard filters' values for this one
    channel         text not null check (channel in ('email', 'webhook')),
    webhook_url     text,
    webhook_format  text not null default 'json' check (webhook_format in ('json', 'slack')),
    webhook_secret_sealed text,                     -- signs the webhook's body, sealed like other secrets
    paused_at       timestamptz,
    last_due_at     timestamptz,                    -- the last due time handled
    created_at      timestamptz not null default now(),
    updated_at      timestamptz not null default now(),
    check ((channel = 'webhook') = (webhook_url is not null)),
    check (target_kind = 'dashboard' or dashboard_id is null),
    check (target_kind = 'question' or question_id is null)
);
create index subscriptions_owner on subscriptions (owner_id);

create table alerts (
    alert_id        bigint generated always as identity primary key,
    owner_id        bigint not null references users on delete cascade,
    question_id     bigint references questions on delete set null,
    name            text not null default '',
    schedule        jsonb not null,
    -- has_rows: the result has rows; above / below: the watched number crosses `threshold`;
    -- changes_by: it moved by more than `threshold` percent since the previous check.
    condition       text not null check (condition in ('has_rows', 'above', 'below', 'changes_by')),
    value_column    text,                           -- the watched number: this column of the first row
    threshold       double precision,
    repeat          text not null default 'every_time' check (repeat in ('once', 'every_time')),
    channel         text not null check (channel in ('email', 'webhook')),
    webhook_url     text,
    webhook_format  text not null default 'json' check (webhook_format in ('json', 'slack')),
    webhook_secret_sealed text,
    paused_at       timestamptz,
    last_due_at     timestamptz,
    last_value      double precision,               -- the watched number at the previous check
    fired_at        timestamptz,                    -- the last firing (a `once` alert stops after it)
    created_at      timestamptz not null default now(),
    updated_at      timestamptz not null default now(),
    check ((channel = 'webhook') = (webhook_url is not null)),
    check ((condition = 'has_rows') = (value_column is null)),
    check ((condition = 'has_rows') = (threshold is null))
);
create index alerts_owner on alerts (owner_id);

-- Who receives a subscription's or an alert's mail: an account (at sending time, under its own
-- rights) or an external address (public-link rights). Each message carries the recipient's own
-- unsubscribe link, signed with a key derived from the server secret (nothing to store, and only
-- that recipient's link works for them).
create table delivery_recipients (
    recipient_id        bigint generated always as identity primary key,
    subscription_id     bigint references subscriptions on delete cascade,
    alert_id            bigint references alerts on delete cascade,
    user_id             bigint references users on delete cascade,
    email               text,
    unsubscribed_at     timestamptz,
    added_at            timestamptz not null default now(),
    check (num_nonnulls(subscription_id, alert_id) = 1),
    check (num_nonnulls(user_id, email) = 1)
);
create unique index delivery_recipients_account on delivery_recipients
    (coalesce(subscription_id, 0), coalesce(alert_id, 0), user_id) where user_id is not null;
create unique index delivery_recipients_address on delivery_recipients
    (coalesce(subscription_id, 0), coalesce(alert_id, 0), lower(email)) where email is not null;

create table deliveries (
    delivery_id     uuid primary key,
    subscription_id bigint references subscriptions on delete cascade,
    alert_id        bigint references alerts on delete cascade,
    recipient       text not null,                  -- what the log shows: an address, or "webhook"
    due_at          timestamptz not null,
    status          text not null check (status in ('sending', 'sent', 'failed', 'skipped')),
    error_code      text,
    error_message   text,
    attempts        integer not null default 0,
    started_at      timestamptz not null default now(),
    finished_at     timestamptz,
    check (num_nonnulls(subscription_id, alert_id) = 1)
);
create unique index deliveries_once on deliveries (coalesce(subscription_id, 0), coalesce(alert_id, 0), recipient, due_at);
create index deliveries_of_subscription on deliveries (subscription_id, started_at desc) where subscription_id is not null;
create index deliveries_of_alert on deliveries (alert_id, started_at desc) where alert_id is not null;
