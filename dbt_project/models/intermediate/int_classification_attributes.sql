{#- Classifications imported from CSV, one JSON object of attributes per classified value
    (for instance campaign 'spring_fb' -> {"product_line": "Shoes"}). -#}

with classifications as (

    select * from {{ ref('stg_collect__classifications') }}

),

final as (

    select
        site_id,
        dimension,
        dimension_value,
        {{ attributes_object_agg('attribute', 'attribute_value') }} as attributes
    from classifications
    group by site_id, dimension, dimension_value

)

select * from final
