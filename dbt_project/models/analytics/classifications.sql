with dim_classifications as (

    select * from {{ ref('dim_classifications') }}

),

final as (

    select
        site_id,
        dimension,
        dimension_value,
        attribute,
        attribute_value
    from dim_classifications

)

select * from final
