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
    {{ return(adapter.dispatch('sessionization_shard_condition')(column, shard)) }}
{%- endmacro %}

{% macro default__sessionization_shard_condition(column, shard) -%}
    {%- set bounds = sessionization_shards()[shard] -%}
    {%- set conditions = [] -%}
    {%- if bounds['from'] is not none %}{% do conditions.append(column ~ " >= '" ~ bounds['from'] ~ "'") %}{% endif -%}
    {%- if bounds['to'] is not none %}{% do conditions.append(column ~ " < '" ~ bounds['to'] ~ "'") %}{% endif -%}
    ({{ conditions | join(' and ') if conditions else 'true' }})
{%- endmacro %}

{#- Spark divides one model's work among its executors itself (the windows are partitioned by
    visitor, each executor sorts its own visitors): a second shard would only read and decode every
    raw event once more, at the full build and at each incremental run's count of events by day. The
    first shard takes every visitor and the others none (empty tables: Spark plans `where 1 = 0` as
    an empty relation and reads nothing). Not `(true)` or `(false)`: after a relation's name Spark
    reads `where (false)` as an alias `where` with a column named false. -#}
{% macro spark__sessionization_shard_condition(column, shard) -%}
    ({{ '1 = 1' if shard == 0 else '1 = 0' }})
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
        materialized=incremental_materialization(by_day=true),
        tags=['partitioned'],
        incremental_strategy=day_partitioned_strategy('visit_replace'),
        partition_by=day_partition_by('event_day'),
        on_schema_change='append_new_columns',
        indexes=[
            {'columns': ['site_id', 'visitor_key', 'visit_start']},
            {'columns': ['site_id', 'occurred_at']},
            {'columns': ['event_name']},
            {'columns': ['visit_end']},
            {'columns': ['received_at']},
        ],
        pre_hook="{{ day_partitions_prepare('event_day') }}",
        post_hook=["{{ sessionized_event_reader_indexes() }}", "{{ day_partitions_done() }}"],
    )
}}

{#- Every event with the visit it belongs to. A visit is a run of events of one visitor on one
    site without a pause longer than session_timeout_minutes. Rebuilds the window's visits whole,
    reading events from the start of the earliest built visit the window may extend
    (sessionization_read_from) to session_context_hours after the window. -#}

{#- The window's bounds as constants in the query (see macros/incremental_window.sql). -#}
{% set window = sessionization_window(ref('stg_raw__events'), shard) %}
{% set window_start_at = window['start'] %}
{% set window_end_at = window['end'] %}
{% set read_from = window['read_from'] %}

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
        {{ row_number_over_whole_window('visit', 'site_id, visitor_key, visitor_visit_number', 'occurred_at, event_id') }} as event_number,
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
    where {{ sessionization_kept('visit_bounds', window) }}

),

final as (

    select
        event_id,
        -- Collation "C" like visitor_key: byte order for a hex digest, cheap to index and to sort.
        md5({{ text_of('site_id') }} || '/' || visitor_key || '/' || {{ timestamp_text('visit_start') }}) {{ byte_order() }} as visit_id,
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
        currency{{ day_partition_column('occurred_at', 'event_day') }}
    from kept

)

select * from final
{% endmacro %}

{#- The window of a shard's run: its bounds `start` and `end` and where reading starts (`read_from`),
    timestamp constants. On PostgreSQL, the window of macros/incremental_window.sql. -#}
{% macro sessionization_window(upstream, shard) -%}
    {{ return(adapter.dispatch('sessionization_window')(upstream, shard)) }}
{%- endmacro %}

{% macro default__sessionization_window(upstream, shard) -%}
    {%- set start = window_start(upstream) -%}
    {{ return({'start': start, 'end': window_end(), 'read_from': sessionization_read_from(start)}) }}
{%- endmacro %}

{#- On Spark the shards are partitioned by the events' day (event_day) and an incremental run
    replaces whole days (insert_overwrite): every event of a rebuilt day is written again, with its
    visit's columns. The rebuilt days are those of every visit the shard's new events (received
    since the table's latest received_at) can change: from the start day of the earliest built visit they may
    extend (one ending at most session_timeout_minutes before the earliest new event) to the end
    day of the latest one they may join (one starting at most session_timeout_minutes after the
    latest), so that a visit crossing midnight is rewritten whole, on both days. Reading starts at
    the start of the earliest built visit still running session_timeout_minutes before the first
    rebuilt day, so that the visits crossing into it are numbered as before; events are read to
    session_context_hours after the last day, as on PostgreSQL. Only days holding events are
    written, and events are never removed but by erasure (which rewrites the lake's files itself):
    a rebuilt day always holds rows, so no stale partition stays. Without new events, no day. -#}
{% macro spark__sessionization_window(upstream, shard) -%}
    {%- if not (is_incremental() and execute) -%}
        {%- set window = default__sessionization_window(upstream, shard) -%}
        {%- do window.update({'days': none}) -%}
        {{ return(window) }}
    {%- endif -%}
    {{- check_window_supported() -}}
    {%- set timeout = session_timeout() -%}
    {%- set condition = sessionization_shard_condition('visitor_key', shard) -%}
    {%- set ranges = [] -%}
    {#- Days whose events were erased (or are new): the shard holds another count of them than the
        lake's raw events. -#}
    {%- for day in run_query(
            "select cast(coalesce(raw.day, built.day) as string), cast(date_add(coalesce(raw.day, built.day), 1) as string) from"
            ~ " (select to_date(occurred_at) as day, count(*) as n from " ~ upstream ~ " where " ~ condition ~ " group by 1) as raw"
            ~ " full outer join (select event_day as day, count(*) as n from " ~ this ~ " group by 1) as built"
            ~ " on raw.day = built.day where raw.n is distinct from built.n").rows -%}
        {%- do ranges.append({'first': day[0], 'end': day[1]}) -%}
    {%- endfor -%}
    {%- set new = run_query("select cast(min(occurred_at) as string), cast(max(occurred_at) as string) from " ~ upstream
                            ~ " where " ~ condition
                            ~ " and received_at > (select coalesce(max(received_at), "
                            ~ timestamp_constant('-infinity') ~ ") from " ~ this ~ ")").rows[0] -%}
    {%- if new[0] is not none -%}
        {%- set first_new = timestamp_constant(new[0]) -%}
        {%- set last_new = timestamp_constant(new[1]) -%}
        {%- set days = run_query("select cast(to_date(least(min(visit_start), " ~ first_new ~ ")) as string),"
                                 ~ " cast(date_add(to_date(greatest(max(visit_end), " ~ last_new ~ ")), 1) as string)"
                                 ~ " from " ~ this ~ " where visit_end >= " ~ first_new ~ " - " ~ timeout
                                 ~ " and visit_start <= " ~ last_new ~ " + " ~ timeout).rows[0] -%}
        {%- do ranges.append({'first': days[0], 'end': days[1]}) -%}
    {%- endif -%}
    {%- set days = day_range_union([ranges]) -%}
    {%- if not days -%}
        {%- set nothing = timestamp_constant('infinity') -%}
        {{ return({'start': nothing, 'end': nothing, 'read_from': nothing, 'days': days}) }}
    {%- endif -%}
    {%- set start = timestamp_constant(days[0]['first'] ~ ' 00:00:00Z') -%}
    {%- set read_from = run_query("select cast(least(min(visit_start), " ~ start ~ " - " ~ timeout ~ ") as string) from "
                                  ~ this ~ " where visit_end >= " ~ start ~ " - " ~ timeout).rows[0][0] -%}
    {{ return({'start': start, 'end': timestamp_constant(days[-1]['end'] ~ ' 00:00:00Z'),
               'read_from': timestamp_constant(read_from), 'days': days}) }}
{%- endmacro %}

{#- The rows a shard's run writes: on PostgreSQL the visits touching the window (one that ended just
    before it may be extended by a late event), replaced by visit (visit_replace); on Spark every
    event of the rebuilt days (their partitions are replaced whole). -#}
{% macro sessionization_kept(rows, window) -%}
    {{ return(adapter.dispatch('sessionization_kept')(rows, window)) }}
{%- endmacro %}

{% macro default__sessionization_kept(rows, window) -%}
    {{ rows }}.visit_end >= {{ window['start'] }} - {{ session_timeout() }}
      and {{ rows }}.visit_start < {{ window['end'] }}
{%- endmacro %}

{% macro spark__sessionization_kept(rows, window) -%}
    {%- if window['days'] is none -%}
        {{ default__sessionization_kept(rows, window) }}
    {%- else -%}
        {{ spark_on_days(rows ~ '.occurred_at', window['days']) }}
    {%- endif -%}
{%- endmacro %}
