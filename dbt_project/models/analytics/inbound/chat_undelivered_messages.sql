with messages as (

    select * from {{ ref('fct_chat_messages') }}
    where is_undelivered

),

final as (

    select
        site_id,
        {{ utc_day('undelivered_at') }} as day,
        channel,
        coalesce(delivery_error_provider, '(none)') as provider,
        coalesce(delivery_error_code, '(unknown)') as reason_code,
        coalesce(delivery_error, '(unknown)') as reason,
        count(*) as undelivered_messages,
        count(distinct conversation_id) as conversations
    from messages
    group by 1, 2, 3, 4, 5, 6

)

select * from final
