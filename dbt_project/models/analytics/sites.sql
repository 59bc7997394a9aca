with dim_sites as (

    select * from {{ ref('dim_sites') }}

),

final as (

    select
        site_id,
        site_name,
        tracking_mode,
        timezone,
        default_currency,
        created_at
    from dim_sites

)

select * from final
