with fct_visits as (

    select * from {{ ref('fct_visits') }}

),

final as (

    select
        visit_id,
        site_id,
        visitor_key,
        visitor_kind,
        visitor_visit_number,
        is_returning,
        visit_start,
        visit_end,
        duration_seconds,
        pageview_count,
        event_count,
        is_bounce,
        entry_path,
        exit_path,
        entry_url,
        source,
        medium,
        campaign,
        term,
        content,
        referrer_domain,
        source_category,
        channel,
        country,
        device_class,
        browser,
        os,
        language,
        purchase_count,
        purchase_revenue,
        attributes
    from fct_visits

)

select * from final
