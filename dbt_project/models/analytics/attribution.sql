with fct_attribution as (

    select * from {{ ref('fct_attribution') }}

),

final as (

    select
        conversion_id,
        site_id,
        attribution_model,
        visit_id,
        touch_number,
        touch_count,
        visit_start,
        converted_at,
        source,
        medium,
        campaign,
        channel,
        credit,
        revenue_credit
    from fct_attribution

)

select * from final
