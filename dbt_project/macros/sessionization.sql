{#- int_events_sessionized is built in shards: the sessionization of all events is one query,
    and PostgreSQL runs its window functions (and writes the table) in one backend, whatever
    parallel workers scan and sort beneath them; at 10,000,000 events that serial part was most of
    the full build. Visits never cross visitors, so visitors split by key are sessionized
    independently: each shard is a model of its own, which dbt builds at the same time as the other
    on its own connection (threads), and int_events_sessionized is the view that reads them all.
    Two shards for the two cores of the machine we size for; a shard is a range of visitor_key,
    an MD5 digest in hex, so a range of its first digit holds an even share of visitors. -#}

{#- The shards: models int_events_sessionized_shard_<n>, each with its range of visitor_key. -#}
{% macro sessionization_shards() -%}
    {{ return([
        {'model': 'int_events_sessionized_shard_0', 'from': none, 'to': '8'},
        {'model': 'int_events_sessionized_shard_1', 'from': '8', 'to': none},
    ]) }}
{%- endmacro %}

{#- Whether `column` (a visitor_key, collation "C") falls in shard number `shard`. -#}
{% macro sessionization_shard_condition(column, shard) -%}
    {%- set bounds = sessionization_shards()[shard] -%}
    {%- set conditions = [] -%}
    {%- if bounds['from'] is not none %}{% do conditions.append(column ~ " >= '" ~ bounds['from'] ~ "'") %}{% endif -%}
    {%- if bounds['to'] is not none %}{% do conditions.append(column ~ " < '" ~ bounds['to'] ~ "'") %}{% endif -%}
    ({{ conditions | join(' and ') if conditions else 'true' }})
{%- endmacro %}

{#- The shard models, as relations (for the view int_events_sessionized and int_visits). -#}
{% macro sessionized_event_shards() -%}
    {%- set relations = [] -%}
    {%- for shard in sessionization_shards() %}{% do relations.append(ref(shard['model'])) %}{% endfor -%}
    {{ return(relations) }}
{%- endmacro %}

{#- The model of shard number `shard`: its configuration and query. -#}
{#- Only indexes that a reader uses; each costs the full build a sort of every event and the
    15-minute build an insertion per new event (random keys, such as event and visit ids, a
    page read and a page written per row once the table outgrows memory):
      (site_id, visitor_key, visit_start): the visit_replace delete of the visits rebuilt;
      (site_id, occurred_at): the analytics views read by site and period;
      event_name: purchases, funnel steps, scroll and zone events (marts);
      visit_end: the window of int_visits;
      received_at: the window of the next run (max(received_at)).
    And three small partial ones for the lake's refresh of some marts (macros/reader_indexes.sql).
    None on event_id or visit_id: nothing looks an event up by them (erasure scans by person). -#}
{% macro sessionized_events(shard) %}
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
        post_hook="{{ sessionized_event_reader_indexes() }}",
    )
}}

{#- Every event with the visit it belongs to. A visit is a run of events of one visitor on one
    site without a pause longer than session_timeout_minutes. Rebuilds the window's visits whole,
    reading events from the start of the earliest built visit the window may extend
    (sessionization_read_from) to session_context_hours after the window. -#}

{#- The window's bounds as constants in the query (see macros/incremental_window.sql). -#}
{% set window_start_at = window_start(ref('stg_raw__events')) %}
{% set window_end_at = window_end() %}
{% set read_from = sessionization_read_from(window_start_at) %}

with events as (

    -- Constant bounds: partitions are pruned when the query is planned, and the scan filtered.
    -- The shard's condition is tested in the scan, before the staging view computes its columns.
    select stg.*
    from {{ ref('stg_raw__events') }} as stg
    where stg.occurred_at >= {{ read_from }}
      and stg.occurred_at < {{ window_end_at }} + {{ session_context() }}
      and {{ sessionization_shard_condition('stg.visitor_key', shard) }}

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

    -- One window, ordered, over the whole visit (one pass over the wide rows instead of two): in
    -- time order the first value is the visit's start and the last its end.
    select
        *,
        first_value(occurred_at) over visit as visit_start,
        last_value(occurred_at) over visit as visit_end,
        row_number() over visit as event_number,
        count(*) over visit as visit_event_count,
        first_value(traffic_source) over visit as visit_source,
        first_value(traffic_medium) over visit as visit_medium,
        first_value(traffic_campaign) over visit as visit_campaign
    from numbered
    window visit as (
        partition by site_id, visitor_key, visitor_visit_number
        order by occurred_at, event_id
        rows between unbounded preceding and unbounded following
    )

),

kept as (

    -- Visits touching the window (one that ended just before it may be extended by a late event).
    select visit_bounds.*
    from visit_bounds
    where visit_bounds.visit_end >= {{ window_start_at }} - {{ session_timeout() }}
      and visit_bounds.visit_start < {{ window_end_at }}

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
{% endmacro %}
