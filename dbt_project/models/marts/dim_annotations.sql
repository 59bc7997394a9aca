{{ config(materialized='view') }}

with annotations as (

    select * from {{ ref('stg_collect__annotations') }}

),

final as (

    select
        annotation_id,
        site_id,
        on_date,
        annotation_text,
        created_at
    from annotations

)

select * from final
