-- The AI assistant: its provider (set by an administrator; the environment gives the defaults),
-- each person's conversations, and the hourly usage counted against the quota.

-- One row at most (id = 1). A null column falls back to the environment's value.
create table assistant_provider (
    id                  smallint primary key default 1 check (id = 1),
    base_url            text,
    model               text,
    -- AES-256-GCM sealed (workbench_app/assistant/provider_config.py), never returned by the API.
    api_key_sealed      text,
    organization        text,
    headers             jsonb not null default '{}'::jsonb,
    max_tool_rounds     integer check (max_tool_rounds between 1 and 20),
    max_rows            integer check (max_rows between 1 and 1000),
    max_result_chars    integer check (max_result_chars between 500 and 200000),
    requests_per_hour   integer check (requests_per_hour >= 0),
    tokens_per_hour     integer check (tokens_per_hour >= 0),
    timeout_seconds     integer check (timeout_seconds between 1 and 600),
    updated_at          timestamptz not null default now()
);

-- Private to their owner: every query filters on user_id; deleting removes the rows.
create table assistant_conversations (
    conversation_id bigint generated always as identity primary key,
    user_id         bigint not null references users on delete cascade,
    title           text not null,
    created_at      timestamptz not null default now(),
    updated_at      timestamptz not null default now()
);
create index assistant_conversations_owner on assistant_conversations (user_id, updated_at desc);

-- The exchange as sent to the provider (user, assistant with tool calls, tool results), plus what
-- the screen shows of a tool run (`artifacts`: the SQL it ran, the chart it drew) and a failure.
create table assistant_messages (
    message_id      bigint generated always as identity primary key,
    conversation_id bigint not null references assistant_conversations on delete cascade,
    role            text not null check (role in ('user', 'assistant', 'tool')),
    content         text not null default '',
    tool_calls      jsonb,
    tool_call_id    text,
    artifacts       jsonb not null default '[]'::jsonb,
    error           jsonb,
    created_at      timestamptz not null default now()
);
create index assistant_messages_conversation on assistant_messages (conversation_id, message_id);

-- Requests and tokens per person and clock hour (UTC), for the hourly quota.
create table assistant_usage (
    user_id    bigint not null references users on delete cascade,
    hour       timestamptz not null,
    requests   integer not null default 0,
    tokens     bigint not null default 0,
    primary key (user_id, hour)
);
