{{ config(materialized='view') }}

with visits as (

    select * from {{ ref('int_visits') }}

),

channels as (

    select * from {{ ref('int_traffic_source_channels') }}

),

classifications as (

    select * from {{ ref('int_classification_attributes') }}

),

with_channels as (

    select
        visits.*,
        channels.source_category,
        coalesce(channels.channel, 'Unassigned') as channel,
        row_number() over (partition by visits.site_id, visits.visitor_key order by visits.visit_start) as visitor_visit_number
    from visits
    left join channels
        on channels.site_id = visits.site_id
       and channels.source = visits.visit_source
       and channels.medium = visits.visit_medium
       and coalesce(channels.campaign, '') = coalesce(visits.visit_campaign, '')

),

final as (

    select
        with_channels.visit_id,
        with_channels.site_id,
        with_channels.visitor_key,
        with_channels.visitor_kind,
        with_channels.visitor_visit_number,
        with_channels.visitor_visit_number > 1 as is_returning,
        with_channels.visit_start,
        with_channels.visit_end,
        with_channels.duration_seconds,
        with_channels.pageview_count,
        with_channels.event_count,
        with_channels.is_bounce,
        with_channels.entry_path,
        with_channels.exit_path,
        with_channels.entry_url,
        with_channels.visit_source as source,
        with_channels.visit_medium as medium,
        with_channels.visit_campaign as campaign,
        with_channels.visit_term as term,
        with_channels.visit_content as content,
        with_channels.referrer_domain,
        with_channels.source_category,
        with_channels.channel,
        with_channels.country,
        with_channels.device_class,
        with_channels.browser,
        with_channels.os,
        with_channels.language,
        with_channels.purchase_count,
        with_channels.purchase_revenue,
        -- Campaign classes win over source, medium and channel classes of the same attribute.
        {{ merged_attributes(['by_channel.attributes', 'by_medium.attributes', 'by_source.attributes',
                              'by_campaign.attributes']) }} as attributes
    from with_channels
    left join classifications as by_campaign
        on by_campaign.site_id = with_channels.site_id
       and by_campaign.dimension = 'campaign'
       and by_campaign.dimension_value = with_channels.visit_campaign
    left join classifications as by_source
        on by_source.site_id = with_channels.site_id
       and by_source.dimension = 'source'
       and by_source.dimension_value = with_channels.visit_source
    left join classifications as by_medium
        on by_medium.site_id = with_channels.site_id
       and by_medium.dimension = 'medium'
       and by_medium.dimension_value = with_channels.visit_medium
    left join classifications as by_channel
        on by_channel.site_id = with_channels.site_id
       and by_channel.dimension = 'channel'
       and by_channel.dimension_value = with_channels.channel

)

select * from final
