with fct_conversions as (

    select * from {{ ref('fct_conversions') }}

),

final as (

    select
        conversion_id,
        site_id,
        visit_id,
        visitor_key,
        converted_at,
        conversion_kind,
        goal_id,
        goal_name,
        event_id,
        event_name,
        transaction_id,
        conversion_value,
        currency,
        source,
        medium,
        campaign,
        channel
    from fct_conversions

)

select * from final
