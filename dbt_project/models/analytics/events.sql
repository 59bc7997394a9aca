with fct_events as (

    select * from {{ ref('fct_events') }}

),

final as (

    select
        event_id,
        site_id,
        visit_id,
        visitor_key,
        occurred_at,
        received_via,
        event_type,
        event_name,
        event_number,
        page_id,
        url,
        hostname,
        path,
        title,
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
    from fct_events

)

select * from final
