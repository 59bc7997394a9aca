{{ config(materialized='view') }}

with rows as (

    select * from {{ ref('stg_db__rows') }}

),

final as (

    select
        tenant,
        base,
        table_name,
        record_id,
        site_id,
        source_id,
        row_data,
        changed_at as last_changed_at
    from rows
    where not is_deleted

)

select * from final
