{#- The visits that may take credit for a conversion: the converting visitor's visits that began
    within attribution_lookback_days before the conversion, up to the converting visit itself.
    Their channel is joined by fct_attribution (a view), so a rule edit does not rebuild this. -#}

with conversions as (

    select * from {{ ref('int_conversions') }}

),

visits as (

    select * from {{ ref('int_visits') }}

),

touches as (

    select
        conversions.conversion_id,
        conversions.site_id,
        conversions.converted_at,
        conversions.conversion_value,
        visits.visit_id,
        visits.visit_start,
        visits.visit_source as source,
        visits.visit_medium as medium,
        visits.visit_campaign as campaign
    from conversions
    join visits
        on visits.site_id = conversions.site_id
       and visits.visitor_key = conversions.visitor_key
       and visits.visit_start <= conversions.converted_at
       and visits.visit_start >= conversions.converted_at - make_interval(days => {{ var('attribution_lookback_days') | int }})

),

final as (

    select
        touches.conversion_id,
        touches.site_id,
        touches.converted_at,
        touches.conversion_value,
        touches.visit_id,
        touches.visit_start,
        touches.source,
        touches.medium,
        touches.campaign,
        touches.source = '(direct)' and touches.medium = '(none)' as is_direct,
        row_number() over conversion_touches as touch_number,
        count(*) over (partition by touches.conversion_id) as touch_count,
        extract(epoch from touches.converted_at - touches.visit_start) / 86400.0 as days_before_conversion
    from touches
    window conversion_touches as (partition by touches.conversion_id order by touches.visit_start, touches.visit_id)

)

select * from final
