{{ config(materialized='view') }}

with sites as (

    select * from {{ ref('stg_collect__sites') }}

),

final as (

    select
        site_id,
        site_name,
        tracking_mode,
        timezone,
        default_currency,
        created_at
    from sites

)

select * from final
