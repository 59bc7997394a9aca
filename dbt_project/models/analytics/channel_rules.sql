with dim_channel_rules as (

    select * from {{ ref('dim_channel_rules') }}

),

final as (

    select
        site_id,
        rule_position,
        channel,
        source_pattern,
        medium_pattern,
        campaign_pattern,
        source_category
    from dim_channel_rules

)

select * from final
