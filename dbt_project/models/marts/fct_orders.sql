{{ config(materialized='view') }}

{#- One row per purchase (the first event of each transaction id). -#}

with purchases as (

    select * from {{ ref('int_events_sessionized') }}
    where event_name = 'purchase'

),

deduplicated as (

    select distinct on (site_id, coalesce(transaction_id, event_id::text))
        *
    from purchases
    order by site_id, coalesce(transaction_id, event_id::text), occurred_at, event_id

),

final as (

    select
        coalesce(transaction_id, event_id::text) as order_id,
        site_id,
        visit_id,
        visitor_key,
        event_id,
        occurred_at as ordered_at,
        transaction_id,
        revenue,
        currency,
        coalesce(jsonb_array_length(case when jsonb_typeof(items) = 'array' then items end), 0) as item_count,
        (select sum(case when jsonb_typeof(item -> 'quantity') = 'number' then (item ->> 'quantity')::numeric else 1 end)
           from jsonb_array_elements(case when jsonb_typeof(items) = 'array' then items else '[]'::jsonb end) as item) as quantity
    from deduplicated

)

select * from final
