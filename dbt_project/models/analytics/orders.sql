with fct_orders as (

    select * from {{ ref('fct_orders') }}

),

final as (

    select
        order_id,
        site_id,
        visit_id,
        visitor_key,
        ordered_at,
        transaction_id,
        revenue,
        currency,
        item_count,
        quantity
    from fct_orders

)

select * from final
