with fct_pageviews as (

    select * from {{ ref('fct_pageviews') }}

),

final as (

    select
        event_id,
        site_id,
        visit_id,
        visitor_key,
        page_id,
        occurred_at,
        url,
        hostname,
        path,
        title,
        referrer,
        referrer_domain,
        is_entry,
        country,
        device_class,
        browser,
        os,
        language,
        page_attributes
    from fct_pageviews

)

select * from final
