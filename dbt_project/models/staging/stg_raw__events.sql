with source as (

    select * from {{ source('raw', 'events') }}

),

final as (

    select
        event_id,
        site_id,
        occurred_at,
        received_at,
        event_type,
        event_name,
        visitor_kind,
        visitor_id,
        user_id,
        url,
        path
    from source

)

select * from final
