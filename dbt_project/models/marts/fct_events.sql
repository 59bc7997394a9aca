{{ config(materialized='view') }}

with events as (

    select * from {{ ref('int_events_sessionized') }}

),

final as (

    select
        event_id,
        site_id,
        visit_id,
        visitor_key,
        occurred_at,
        received_at,
        received_via,
        event_type,
        event_name,
        event_number,
        page_id,
        url,
        hostname,
        path,
        title,
        referrer,
        referrer_domain,
        utm_source,
        utm_medium,
        utm_campaign,
        utm_term,
        utm_content,
        country,
        device_class,
        browser,
        os,
        language,
        props,
        items,
        transaction_id,
        revenue,
        currency
    from events

)

select * from final
