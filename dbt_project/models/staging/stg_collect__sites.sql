with source as (

    select * from {{ source('collect', 'sites') }}

),

final as (

    select
        site_id,
        name as site_name,
        tracking_mode,
        retention_months,
        timezone,
        currency as default_currency,
        created_at
    from source

)

select * from final
