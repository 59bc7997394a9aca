{{ config(materialized='view') }}

with events as (

    select * from {{ ref('int_events_sessionized') }}

),

classifications as (

    select * from {{ ref('int_classification_attributes') }}

),

pageviews as (

    select * from events where event_type = 'pageview'

),

final as (

    select
        pageviews.event_id,
        pageviews.site_id,
        pageviews.visit_id,
        pageviews.visitor_key,
        pageviews.page_id,
        pageviews.occurred_at,
        pageviews.url,
        pageviews.hostname,
        pageviews.path,
        pageviews.title,
        pageviews.referrer,
        pageviews.referrer_domain,
        pageviews.event_number = 1 as is_entry,
        pageviews.country,
        pageviews.device_class,
        pageviews.browser,
        pageviews.os,
        pageviews.language,
        coalesce(classifications.attributes, {{ empty_json_object() }}) as page_attributes
    from pageviews
    left join classifications
        on classifications.site_id = pageviews.site_id
       and classifications.dimension = 'path'
       and classifications.dimension_value = pageviews.path

)

select * from final
