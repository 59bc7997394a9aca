{{ config(materialized='view') }}

with classifications as (

    select * from {{ ref('stg_collect__classifications') }}

),

final as (

    select
        site_id,
        dimension,
        dimension_value,
        attribute,
        attribute_value
    from classifications

)

select * from final
