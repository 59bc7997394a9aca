with fct_order_items as (

    select * from {{ ref('fct_order_items') }}

),

final as (

    select
        order_id,
        site_id,
        line_number,
        visit_id,
        ordered_at,
        item_id,
        item_name,
        price,
        quantity,
        line_total,
        currency
    from fct_order_items

)

select * from final
