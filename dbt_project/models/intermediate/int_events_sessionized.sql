{#- Only indexes that a reader uses; each costs the full build a sort of every event and the
    15-minute build an insertion per new event (random keys, such as event and visit ids, a
    page read and a page written per row once the table outgrows memory):
      (site_id, visitor_key, visit_start): the visit_replace delete of the visits rebuilt;
      (site_id, occurred_at): the analytics views read by site and period;
      event_name: purchases, funnel steps, scroll and zone events (marts);
      visit_end: the window of int_visits;
      received_at: the window of the next run (max(received_at)).
    None on event_id or visit_id: nothing looks an event up by them (erasure scans by person). -#}
{{
    config(
        materialized='incremental',
        tags=['partitioned'],
        incremental_strategy='visit_replace',
        on_schema_change='append_new_columns',
        indexes=[
            {'columns': ['site_id', 'visitor_key', 'visit_start']},
            {'columns': ['site_id', 'occurred_at']},
            {'columns': ['event_name']},
            {'columns': ['visit_end']},
            {'columns': ['received_at']},
        ],
    )
}}

{#- Every event with the visit it belongs to. A visit is a run of events of one visitor on one
    site without a pause longer than session_timeout_minutes. Rebuilds the window's visits whole,
    reading session_context_hours of events on each side of it. -#}

with window_bounds as (

    select
        {{ window_start(ref('stg_raw__events')) }} as window_start,
        {{ window_end() }} as window_end

),

events as (

    -- Scalar subqueries, not a join: the bounds become parameters that prune partitions and
    -- filter the scan, instead of a filter applied after reading every event.
    select stg.*
    from {{ ref('stg_raw__events') }} as stg
    where stg.occurred_at >= (select window_start from window_bounds) - {{ session_context() }}
      and stg.occurred_at < (select window_end from window_bounds) + {{ session_context() }}

),

gaps as (

    select
        *,
        case
            when lag(occurred_at) over visitor_timeline is null then 1
            when occurred_at - lag(occurred_at) over visitor_timeline > {{ session_timeout() }} then 1
            else 0
        end as starts_visit
    from events
    window visitor_timeline as (partition by site_id, visitor_key order by occurred_at, event_id)

),

numbered as (

    select
        *,
        sum(starts_visit) over (
            partition by site_id, visitor_key
            order by occurred_at, event_id
            rows between unbounded preceding and current row
        ) as visitor_visit_number
    from gaps

),

visit_bounds as (

    select
        *,
        min(occurred_at) over visit as visit_start,
        max(occurred_at) over visit as visit_end,
        row_number() over (visit order by occurred_at, event_id) as event_number,
        count(*) over visit as visit_event_count,
        first_value(traffic_source) over (visit order by occurred_at, event_id) as visit_source,
        first_value(traffic_medium) over (visit order by occurred_at, event_id) as visit_medium,
        first_value(traffic_campaign) over (visit order by occurred_at, event_id) as visit_campaign
    from numbered
    window visit as (partition by site_id, visitor_key, visitor_visit_number)

),

kept as (

    -- Visits touching the window (one that ended just before it may be extended by a late event).
    select visit_bounds.*
    from visit_bounds
    where visit_bounds.visit_end >= (select window_start from window_bounds) - {{ session_timeout() }}
      and visit_bounds.visit_start < (select window_end from window_bounds)

),

final as (

    select
        event_id,
        -- Collation "C" like visitor_key: byte order for a hex digest, cheap to index and to sort.
        md5(site_id::text || '/' || visitor_key || '/' || visit_start::text) collate "C" as visit_id,
        site_id,
        visitor_key,
        visit_start,
        visit_end,
        event_number,
        visit_event_count,
        occurred_at,
        received_at,
        received_via,
        event_type,
        event_name,
        visitor_kind,
        visitor_id,
        user_id,
        page_id,
        url,
        hostname,
        path,
        referrer,
        referrer_host,
        referrer_domain,
        title,
        utm_source,
        utm_medium,
        utm_campaign,
        utm_term,
        utm_content,
        click_id_kind,
        traffic_source,
        traffic_medium,
        traffic_campaign,
        visit_source,
        visit_medium,
        visit_campaign,
        language,
        country,
        browser,
        os,
        device_class,
        screen_class,
        props,
        items,
        transaction_id,
        revenue,
        currency
    from kept

)

select * from final
