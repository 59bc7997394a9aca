{{ config(materialized='view') }}

with messages as (

    select * from {{ ref('int_chat_messages') }}

),

final as (

    select
        message_id,
        conversation_id,
        site_id,
        message_kind,
        written_at,
        channel,
        message_length,
        attachment_count,
        is_deleted,
        deleted_at,
        is_undelivered,
        undelivered_at,
        delivery_error,
        delivery_error_provider,
        delivery_error_code,
        is_handoff_message
    from messages

)

select * from final
