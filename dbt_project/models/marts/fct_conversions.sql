{{ config(materialized='view') }}

with conversions as (

    select * from {{ ref('int_conversions') }}

),

visits as (

    select * from {{ ref('int_visits') }}

),

channels as (

    select * from {{ ref('int_traffic_source_channels') }}

),

final as (

    select
        conversions.conversion_id,
        conversions.site_id,
        conversions.visit_id,
        conversions.visitor_key,
        conversions.converted_at,
        conversions.conversion_kind,
        conversions.goal_id,
        conversions.goal_name,
        conversions.event_id,
        conversions.event_name,
        conversions.transaction_id,
        conversions.conversion_value,
        conversions.currency,
        visits.visit_source as source,
        visits.visit_medium as medium,
        visits.visit_campaign as campaign,
        coalesce(channels.channel, 'Unassigned') as channel
    from conversions
    left join visits on visits.visit_id = conversions.visit_id
    left join channels
        on channels.site_id = visits.site_id
       and channels.source = visits.visit_source
       and channels.medium = visits.visit_medium
       and coalesce(channels.campaign, '') = coalesce(visits.visit_campaign, '')

)

select * from final
