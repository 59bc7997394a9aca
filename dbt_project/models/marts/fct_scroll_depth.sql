{{ config(materialized='view') }}

{#- The deepest scroll reached on each page view (events scroll_depth, property percent). -#}

with events as (

    select * from {{ ref('int_events_sessionized') }}
    where event_name = 'scroll_depth' and page_id is not null

),

final as (

    select
        site_id,
        page_id,
        min(visit_id) as visit_id,
        min(path) as path,
        min(occurred_at) as first_scrolled_at,
        max(case when {{ json_is_number('props', 'percent') }}
                 then least(greatest({{ json_number_value('props', 'percent') }}, 0), 100) end) as max_percent
    from events
    group by site_id, page_id

)

select * from final
