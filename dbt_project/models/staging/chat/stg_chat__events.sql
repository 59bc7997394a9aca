{{ config(materialized='view') }}

with source as (

    select * from {{ source('inbound', 'chat_events') }}

),

final as (

    select
        event_id,
        event_type,
        occurred_at,
        received_at,
        source_id,
        site_id,
        conversation_id,
        inbox_id,
        team_id,
        status as conversation_status,
        assignee_id,
        handed_off,
        channel,
        contact_id,
        contact_identified,
        message_id,
        message_kind,
        coalesce(message_at, occurred_at) as message_at,
        message_length,
        attachment_count,
        nullif(trim(delivery_error), '') as delivery_error,
        webhook_id
    from source

)

select * from final
