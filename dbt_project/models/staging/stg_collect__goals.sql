with source as (

    select * from {{ source('collect', 'goals') }}

),

final as (

    select
        goal_id,
        site_id,
        name as goal_name,
        kind as goal_kind,
        path_pattern,
        {{ path_pattern_to_like('path_pattern') }} as path_like,
        event_name,
        property_name,
        property_value,
        value as goal_value
    from source

)

select * from final
