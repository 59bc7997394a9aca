{{ config(materialized='view') }}

with source as (

    select * from {{ source('inbound', 'db_events') }}

),

final as (

    select
        event_id,
        event_type as change_type,
        via as received_via,
        occurred_at,
        received_at,
        source_id,
        site_id,
        tenant,
        base,
        table_name,
        record_id,
        actor_kind,
        before as row_before,
        after as row_after,
        coalesce(changed, {{ empty_text_array() }}) as changed_fields
    from source

)

select * from final
