with source as (

    select * from {{ source('collect', 'annotations') }}

),

final as (

    select
        annotation_id,
        site_id,
        on_date,
        text as annotation_text,
        created_at
    from source

)

select * from final
