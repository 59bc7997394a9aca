{{ config(materialized='view') }}

{#- Time zones of pages were visible (events zone_visibility, properties zone and visible_ms). -#}

with events as (

    select * from {{ ref('int_events_sessionized') }}
    where event_name = 'zone_visibility'

),

zones as (

    select * from {{ ref('stg_collect__zones') }}

),

final as (

    select
        events.event_id,
        events.site_id,
        events.visit_id,
        events.page_id,
        events.occurred_at,
        events.path,
        {{ json_text('events.props', 'zone') }} as zone_name,
        zones.zone_label,
        {{ json_number('events.props', 'visible_ms') }} as visible_ms
    from events
    left join zones
        on zones.site_id = events.site_id
       and zones.zone_name = {{ json_text('events.props', 'zone') }}

)

select * from final
