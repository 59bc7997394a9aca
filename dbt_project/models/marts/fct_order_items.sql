{{ config(materialized='view') }}

with orders as (

    select * from {{ ref('int_events_sessionized') }}
    where event_name = 'purchase' and jsonb_typeof(items) = 'array'

),

deduplicated as (

    -- The first such purchase of each transaction, as in fct_orders (why not DISTINCT ON: there).
    select *
    from orders
    where orders.transaction_id is null
       or not exists (
            select 1 from {{ ref('int_events_sessionized') }} as earlier
            where earlier.event_name = 'purchase' and jsonb_typeof(earlier.items) = 'array'
              and earlier.site_id = orders.site_id
              and earlier.transaction_id = orders.transaction_id
              and (earlier.occurred_at, earlier.event_id) < (orders.occurred_at, orders.event_id)
       )

),

items as (

    select
        deduplicated.site_id,
        deduplicated.visit_id,
        coalesce(deduplicated.transaction_id, deduplicated.event_id::text) as order_id,
        deduplicated.occurred_at as ordered_at,
        deduplicated.currency,
        item.position as line_number,
        item.value as item
    from deduplicated
    cross join lateral jsonb_array_elements(deduplicated.items) with ordinality as item(value, position)

),

typed as (

    select
        *,
        case when jsonb_typeof(item -> 'price') = 'number' then (item ->> 'price')::numeric end as price,
        case when jsonb_typeof(item -> 'quantity') = 'number' then (item ->> 'quantity')::numeric else 1 end as quantity
    from items

),

final as (

    select
        site_id,
        order_id,
        line_number::integer as line_number,
        visit_id,
        ordered_at,
        item ->> 'id' as item_id,
        item ->> 'name' as item_name,
        price,
        quantity,
        price * quantity as line_total,
        currency
    from typed

)

select * from final
