{{ config(materialized='view') }}

{#- One row per purchase (the first event of each transaction id). -#}

with purchases as (

    select * from {{ ref('int_events_sessionized') }}
    where event_name = 'purchase'

),

deduplicated as (

    -- The first purchase of each transaction (one without an id is its own order). Written as
    -- "no earlier purchase of it" rather than DISTINCT ON: a filter on the time (a few days read
    -- by the lake's refresh) then reaches the scan, and the earlier one is found through an index
    -- (macros/reader_indexes.sql).
    select *
    from purchases
    where purchases.transaction_id is null
       or not exists (
            select 1 from {{ ref('int_events_sessionized') }} as earlier
            where earlier.event_name = 'purchase'
              and earlier.site_id = purchases.site_id
              and earlier.transaction_id = purchases.transaction_id
              and {{ row_before(['earlier.occurred_at', 'earlier.event_id'], ['purchases.occurred_at', 'purchases.event_id']) }}
       )

),

final as (

    select
        coalesce(transaction_id, {{ text_of('event_id') }}) as order_id,
        site_id,
        visit_id,
        visitor_key,
        event_id,
        occurred_at as ordered_at,
        transaction_id,
        revenue,
        currency,
        {{ order_item_count('items') }} as item_count,
        {{ order_quantity('items') }} as quantity
    from deduplicated

)

select * from final
