with dim_traffic_sources as (

    select * from {{ ref('dim_traffic_sources') }}

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
    from dim_traffic_sources

)

select * from final
