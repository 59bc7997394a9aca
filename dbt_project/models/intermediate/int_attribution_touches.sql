{{
    config(
        materialized=incremental_materialization(by_day=true),
        incremental_strategy=day_partitioned_strategy('touch_replace'),
        partition_by=day_partition_by('conversion_day'),
        pre_hook="{{ day_partitions_prepare('conversion_day') }}",
        post_hook="{{ day_partitions_done() }}",
        indexes=[
            {'columns': ['conversion_id']},
            {'columns': ['built_at']},
        ],
    )
}}

{#- The visits that may take credit for a conversion: the converting visitor's visits that began
    within attribution_lookback_days before the conversion, up to the converting visit itself.
    Their channel is joined by fct_attribution (a view), so a rule edit does not rebuild this.

    Incremental: a run recomputes the touches of the conversions built since this table's latest
    row, and of the conversions that a visit built since then may touch (same visitor, converted
    between the visit's start and attribution_lookback_days after its end); the strategy
    touch_replace deletes their old touches and those of conversions that are gone. -#}

{% set lookback = days_interval(var('attribution_lookback_days') | int) %}
{% set incremental_run = reads_own_rows() and has_columns(this, ['built_at']) %}

with

{% if incremental_run %}
{% set mark = latest_in(this, 'built_at') %}

changed_visits as (

    select * from {{ visits_built_after(mark) }}

),

conversions_in_scope as (

    select conversion_id
    from {{ ref('int_conversions') }}
    where built_at > {{ mark }}

    union

    select conversions.conversion_id
    from changed_visits
    join {{ ref('int_conversions') }} as conversions
        on conversions.site_id = changed_visits.site_id
       and conversions.visitor_key = changed_visits.visitor_key
       and conversions.converted_at >= changed_visits.visit_start
       and conversions.converted_at <= changed_visits.visit_end + {{ lookback }}

),

conversions as (

    select *
    from {{ ref('int_conversions') }}
    where conversion_id in (select conversion_id from conversions_in_scope)

),

{% else %}

conversions as (

    select * from {{ ref('int_conversions') }}{{ rebuilt_days_filter('converted_at') }}

),

{% endif %}

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
       and visits.visit_start >= conversions.converted_at - {{ lookback }}

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
        {{ days_between('touches.visit_start', 'touches.converted_at') }} as days_before_conversion,
        now() as built_at{{ day_partition_column('touches.converted_at', 'conversion_day') }}
    from touches
    window conversion_touches as (partition by touches.conversion_id order by touches.visit_start, touches.visit_id)

)

select * from final
