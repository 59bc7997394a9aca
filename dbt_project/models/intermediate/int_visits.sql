{{
    config(
        materialized='incremental',
        tags=['partitioned'],
        incremental_strategy='visit_replace',
        on_schema_change='append_new_columns',
        indexes=[
            {'columns': ['site_id', 'visitor_key', 'visit_start']},
            {'columns': ['visit_id'], 'unique': True},
            {'columns': ['site_id', 'visit_source', 'visit_medium', 'visit_campaign']},
            {'columns': ['last_received_at']},
            {'columns': ['built_at']},
        ],
    )
}}

{#- One row per visit, aggregated from its events. Rebuilds the visits touched by the window. -#}

{#- The shards of int_events_sessionized, read directly rather than through its view: the 15-minute
    build runs this model with everything upstream of it (`+tag:partitioned`), which would then take
    in the view, and dbt replaces a view by dropping it with the views that read it (the marts'). -#}
{% set shards = sessionized_event_shards() %}
{#- The window's bounds as constants in the query (see macros/incremental_window.sql). -#}
{% set events_received = [] %}
{% for shard in shards %}{% do events_received.append('select occurred_at, received_at from ' ~ shard) %}{% endfor %}
{% set window_start_at = window_start('(' ~ events_received | join(' union all ') ~ ') as events', 'last_received_at') %}
{% set window_end_at = window_end() %}

with

{% for shard in shards %}
events_{{ loop.index0 }} as (

    -- Only the columns the aggregates read: the rows are sorted by visit, and narrow rows sort faster.
    select
        events.visit_id,
        events.site_id,
        events.visitor_key,
        events.visit_start,
        events.visit_end,
        events.occurred_at,
        events.event_id,
        events.received_at,
        events.event_type,
        events.event_name,
        events.path,
        events.url,
        events.title,
        events.visitor_kind,
        events.visitor_id,
        events.user_id,
        events.visit_source,
        events.visit_medium,
        events.visit_campaign,
        events.utm_term,
        events.utm_content,
        events.referrer_domain,
        events.country,
        events.device_class,
        events.browser,
        events.os,
        events.language,
        events.revenue
    from {{ shard }} as events
    where events.visit_end >= {{ window_start_at }} - {{ session_timeout() }}
      and events.visit_start < {{ window_end_at }}

),

{% endfor %}
visits as (

    -- One pass over the events, sorted once by visit then time: the page view figures are
    -- aggregates filtered on page views (a visit without any has a count of 0 and null paths).
    -- Grouped by (site_id, visitor_key, visit_start), which visit_id is made of: the events come
    -- in that order from the table's index on those columns, and a full build (whose table is
    -- written in that order) reads them through it instead of sorting every event again.
    -- Aggregated shard by shard (a visit is in one shard only): each reads its own index in order,
    -- where the shards' rows together would have to be merged or sorted again.
    {% for shard in shards %}
    select
        visit_id,
        site_id,
        visitor_key,
        visit_start,
        max(visit_end) as visit_end,
        count(*) as event_count,
        max(received_at) as last_received_at,
        count(*) filter (where event_type = 'pageview') as pageview_count,
        array_agg(path order by occurred_at, event_id) filter (where event_type = 'pageview') as pageview_paths,
        (array_agg(url order by occurred_at, event_id) filter (where event_type = 'pageview'))[1] as entry_url,
        (array_agg(title order by occurred_at, event_id) filter (where event_type = 'pageview'))[1] as entry_title,
        (array_agg(visitor_kind order by occurred_at, event_id))[1] as visitor_kind,
        (array_agg(visitor_id order by occurred_at, event_id) filter (where visitor_id is not null))[1] as visitor_id,
        (array_agg(user_id order by occurred_at, event_id) filter (where user_id is not null))[1] as user_id,
        min(visit_source) as visit_source,
        min(visit_medium) as visit_medium,
        min(visit_campaign) as visit_campaign,
        (array_agg(utm_term order by occurred_at, event_id))[1] as visit_term,
        (array_agg(utm_content order by occurred_at, event_id))[1] as visit_content,
        (array_agg(referrer_domain order by occurred_at, event_id))[1] as referrer_domain,
        (array_agg(country order by occurred_at, event_id) filter (where country is not null))[1] as country,
        (array_agg(device_class order by occurred_at, event_id) filter (where device_class is not null))[1] as device_class,
        (array_agg(browser order by occurred_at, event_id) filter (where browser is not null))[1] as browser,
        (array_agg(os order by occurred_at, event_id) filter (where os is not null))[1] as os,
        (array_agg(language order by occurred_at, event_id) filter (where language is not null))[1] as language,
        count(*) filter (where event_type = 'event'
                           and event_name not in ('scroll_depth', 'zone_visibility')) as interaction_count,
        count(*) filter (where event_name = 'purchase') as purchase_count,
        coalesce(sum(revenue) filter (where event_name = 'purchase'), 0) as purchase_revenue
    from events_{{ loop.index0 }}
    group by site_id, visitor_key, visit_start, visit_id
    {% if not loop.last %}union all{% endif %}
    {% endfor %}

),

final as (

    select
        visits.visit_id,
        visits.site_id,
        visits.visitor_key,
        visits.visitor_kind,
        visits.visitor_id,
        visits.user_id,
        visits.visit_start,
        visits.visit_end,
        extract(epoch from visits.visit_end - visits.visit_start)::integer as duration_seconds,
        visits.pageview_count,
        visits.event_count,
        -- A bounce: one page view and no interaction (scrolling and zones seen do not count).
        visits.pageview_count <= 1 and visits.interaction_count = 0 as is_bounce,
        visits.pageview_paths[1] as entry_path,
        visits.pageview_paths[cardinality(visits.pageview_paths)] as exit_path,
        visits.entry_url,
        visits.entry_title,
        visits.visit_source,
        visits.visit_medium,
        visits.visit_campaign,
        visits.visit_term,
        visits.visit_content,
        visits.referrer_domain,
        visits.country,
        visits.device_class,
        visits.browser,
        visits.os,
        visits.language,
        visits.purchase_count,
        visits.purchase_revenue,
        visits.last_received_at,
        -- The models downstream (conversions, attribution touches) redo the visits built since their last run.
        now() as built_at
    from visits

)

select * from final
