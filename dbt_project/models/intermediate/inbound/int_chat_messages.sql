{{ config(materialized='view') }}

{#- One row per message: its creation, and whether it was later deleted or not delivered. -#}

with events as (

    select * from {{ ref('stg_chat__events') }}
    where message_id is not null

),

per_message as (

    select
        message_id,
        min(conversation_id) as conversation_id,
        {{ min_identifier('site_id') }} as site_id,
        min(message_kind) filter (where event_type = 'message.created') as created_kind,
        min(message_kind) as any_kind,
        min(message_at) filter (where event_type = 'message.created') as created_at,
        min(message_at) as any_at,
        max(message_length) as message_length,
        max(attachment_count) as attachment_count,
        min(channel) as channel,
        min(occurred_at) filter (where event_type = 'message.deleted') as deleted_at,
        min(occurred_at) filter (where event_type = 'message.undelivered') as undelivered_at,
        {{ first_ordered('delivery_error', 'occurred_at', "event_type = 'message.undelivered' and delivery_error is not null") }} as delivery_error,
        bool_or(event_type = 'conversation.handed_off') as is_handoff_message
    from events
    group by message_id

),

messages as (

    select
        message_id,
        conversation_id,
        site_id,
        coalesce(created_kind, any_kind) as message_kind,
        coalesce(created_at, any_at) as written_at,
        message_length,
        attachment_count,
        channel,
        deleted_at,
        undelivered_at,
        delivery_error,
        -- A reason may start with the channel provider's name ("SMTP:550 5.1.1"); null without one.
        {{ regex_capture('delivery_error', '^([A-Za-z][A-Za-z0-9_-]*)[:./ ]') }} as delivery_error_prefix,
        is_handoff_message
    from per_message

),

final as (

    select
        message_id,
        conversation_id,
        site_id,
        message_kind,
        written_at,
        message_length,
        attachment_count,
        channel,
        deleted_at is not null as is_deleted,
        deleted_at,
        undelivered_at is not null as is_undelivered,
        undelivered_at,
        delivery_error,
        lower(delivery_error_prefix) as delivery_error_provider,
        case when delivery_error_prefix is not null
             -- What follows the prefix and its one separator character.
             then substr(delivery_error, length(delivery_error_prefix) + 2)
             else delivery_error end as delivery_error_code,
        is_handoff_message
    from messages

)

select * from final
