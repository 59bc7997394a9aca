{{ config(materialized='view') }}

with rules as (

    select * from {{ ref('stg_collect__channel_rules') }}

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
    from rules

)

select * from final
