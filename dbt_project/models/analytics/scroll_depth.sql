with fct_scroll_depth as (

    select * from {{ ref('fct_scroll_depth') }}

),

final as (

    select
        site_id,
        page_id,
        visit_id,
        path,
        first_scrolled_at,
        max_percent
    from fct_scroll_depth

)

select * from final
