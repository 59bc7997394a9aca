with source as (

    select * from {{ source('collect', 'source_categories') }}

),

final as (

    select
        lower(source) as source_name,
        category as source_category
    from source

)

select * from final
