{{
    config(
        materialized=incremental_materialization(by_day=true),
        tags=['partitioned'],
        incremental_strategy=day_partitioned_strategy('visit_replace'),
        partition_by=day_partition_by('visit_day'),
        pre_hook="{{ day_partitions_prepare('visit_day') }}",
        post_hook="{{ day_partitions_done() }}",
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
{% set window = visits_window('(' ~ events_received | join(' union all ') ~ ') as events') %}

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
    where {{ visits_in_window('events', window) }}

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
        {{ ends_in_time('path', "event_type = 'pageview'") }} as pageview_paths,
        {{ first_in_time('url', "event_type = 'pageview'") }} as entry_url,
        {{ first_in_time('title', "event_type = 'pageview'") }} as entry_title,
        {{ first_in_time('visitor_kind') }} as visitor_kind,
        {{ first_in_time('visitor_id', 'visitor_id is not null') }} as visitor_id,
        {{ first_in_time('user_id', 'user_id is not null') }} as user_id,
        min(visit_source) as visit_source,
        min(visit_medium) as visit_medium,
        min(visit_campaign) as visit_campaign,
        {{ first_in_time('utm_term') }} as visit_term,
        {{ first_in_time('utm_content') }} as visit_content,
        {{ first_in_time('referrer_domain') }} as referrer_domain,
        {{ first_in_time('country', 'country is not null') }} as country,
        {{ first_in_time('device_class', 'device_class is not null') }} as device_class,
        {{ first_in_time('browser', 'browser is not null') }} as browser,
        {{ first_in_time('os', 'os is not null') }} as os,
        {{ first_in_time('language', 'language is not null') }} as language,
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
        {{ seconds_between('visits.visit_start', 'visits.visit_end') }} as duration_seconds,
        visits.pageview_count,
        visits.event_count,
        -- A bounce: one page view and no interaction (scrolling and zones seen do not count).
        visits.pageview_count <= 1 and visits.interaction_count = 0 as is_bounce,
        {{ first_element('visits.pageview_paths') }} as entry_path,
        {{ last_element('visits.pageview_paths') }} as exit_path,
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
        now() as built_at{{ day_partition_column('visits.visit_start', 'visit_day') }}
    from visits

)

select * from final
