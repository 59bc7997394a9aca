{{ config(materialized='view') }}

with changes as (

    select * from {{ ref('stg_db__events') }}

),

final as (

    select
        event_id as change_id,
        site_id,
        source_id,
        tenant,
        base,
        table_name,
        record_id,
        change_type,
        occurred_at,
        received_via,
        actor_kind,
        row_before,
        row_after,
        changed_fields,
        cardinality(changed_fields) as changed_field_count,
        row_number() over (partition by tenant, base, table_name, record_id
                           order by occurred_at, event_id) as version_number
    from changes

)

select * from final
