{{ config(materialized='view') }}

with source as (

    select * from {{ source('inbound', 'chat_conversations') }}

),

final as (

    select
        conversation_id,
        source_id,
        site_id,
        inbox_id,
        team_id,
        status as conversation_status,
        assignee_id,
        handed_off,
        channel,
        contact_id,
        priority,
        sentiment,
        tags,
        first_seen_at,
        state_at as state_changed_at,
        state_event_type
    from source

)

select * from final
