{{ config(materialized='view') }}

with source as (

    select * from {{ source('inbound', 'db_rows') }}

),

final as (

    select
        tenant,
        base,
        table_name,
        record_id,
        source_id,
        site_id,
        row_data,
        deleted as is_deleted,
        state_at as changed_at
    from source

)

select * from final
