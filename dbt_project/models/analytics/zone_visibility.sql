with fct_zone_visibility as (

    select * from {{ ref('fct_zone_visibility') }}

),

final as (

    select
        event_id,
        site_id,
        visit_id,
        page_id,
        occurred_at,
        path,
        zone_name,
        zone_label,
        visible_ms
    from fct_zone_visibility

)

select * from final
