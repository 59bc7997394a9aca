with dim_annotations as (

    select * from {{ ref('dim_annotations') }}

),

final as (

    select
        annotation_id,
        site_id,
        on_date,
        annotation_text,
        created_at
    from dim_annotations

)

select * from final
