with source as (

    select * from {{ source('collect', 'classifications') }}

),

final as (

    select
        site_id,
        lower(btrim(dimension)) as dimension,
        value as dimension_value,
        attribute,
        attribute_value
    from source

)

select * from final
