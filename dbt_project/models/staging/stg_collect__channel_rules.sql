with source as (

    select * from {{ source('collect', 'channel_rules') }}

),

final as (

    select
        site_id,
        position as rule_position,
        channel,
        source_pattern,
        medium_pattern,
        campaign_pattern,
        source_category
    from source

)

select * from final
