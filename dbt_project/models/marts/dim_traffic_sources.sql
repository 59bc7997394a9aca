{{ config(materialized='view') }}

with channels as (

    select * from {{ ref('int_traffic_source_channels') }}

),

final as (

    select
        site_id,
        source,
        medium,
        campaign,
        source_category,
        channel,
        matched_rule_position
    from channels

)

select * from final
