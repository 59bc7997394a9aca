{{ config(materialized='view') }}

with orders as (

    select * from {{ ref('int_events_sessionized') }}
    where event_name = 'purchase' and {{ json_is_array('items') }}

),

deduplicated as (

    -- The first such purchase of each transaction, as in fct_orders (why not DISTINCT ON: there).
    select *
    from orders
    where orders.transaction_id is null
       or not exists (
            select 1 from {{ ref('int_events_sessionized') }} as earlier
            where earlier.event_name = 'purchase' and {{ json_is_array('earlier.items') }}
              and earlier.site_id = orders.site_id
              and earlier.transaction_id = orders.transaction_id
              and {{ row_before(['earlier.occurred_at', 'earlier.event_id'], ['orders.occurred_at', 'orders.event_id']) }}
       )

),

items as (

    select
        deduplicated.site_id,
        deduplicated.visit_id,
        coalesce(deduplicated.transaction_id, {{ text_of('deduplicated.event_id') }}) as order_id,
        deduplicated.occurred_at as ordered_at,
        deduplicated.currency,
        {{ element_position('item.position') }} as line_number,
        item.value as item
    from deduplicated
    {{ join_json_array_elements('deduplicated.items', 'item') }}

),

typed as (

    select
        *,
        {{ json_number('item', 'price') }} as price,
        case when {{ json_is_number('item', 'quantity') }} then {{ json_number_value('item', 'quantity') }} else 1 end as quantity
    from items

),

final as (

    select
        site_id,
        order_id,
        line_number::integer as line_number,
        visit_id,
        ordered_at,
        {{ json_text('item', 'id') }} as item_id,
        {{ json_text('item', 'name') }} as item_name,
        price,
        quantity,
        price * quantity as line_total,
        currency
    from typed

)

select * from final
