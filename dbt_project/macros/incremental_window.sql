{#- The time window an incremental model rebuilds.

    With the vars `window_start` / `window_end` (set by Dagster from a month partition or a
    range of them), exactly that window. Without them, on an incremental run: from the earliest
    event received since this table was last built, to the end of time; on a full build:
    everything. Visits crossing the window's edges are rebuilt whole (see session_context_hours). -#}

{#- On an incremental run the start is looked up before the model's query is planned and written
    into it as a constant: with the value known, PostgreSQL reads the new events and the window
    through their indexes and prunes partitions; with a subquery in its place it plans for an
    unknown value and scans every event (two full scans of int_events_sessionized per run). -#}
{% macro window_start(upstream, received_column='received_at') -%}
    {{- check_window_supported() -}}
    {%- if var('window_start', none) -%}
        {{ timestamp_constant(var("window_start")) }}
    {%- elif is_incremental() -%}
        {%- if execute -%}
            {%- set start = run_query("select coalesce(min(occurred_at), 'infinity'::timestamptz)::text from " ~ upstream
                                      ~ " where received_at > " ~ latest_in(this, received_column)).columns[0].values()[0] -%}
            '{{ start }}'::timestamptz
        {%- else -%}
            'infinity'::timestamptz
        {%- endif -%}
    {%- else -%}
        {{ timestamp_constant('-infinity') }}
    {%- endif -%}
{%- endmacro %}

{% macro window_end() -%}
    {%- if var('window_end', none) -%}
        {{ timestamp_constant(var("window_end")) }}
    {%- else -%}
        {{ timestamp_constant('infinity') }}
    {%- endif -%}
{%- endmacro %}

{#- How the incremental models are materialized: incrementally on PostgreSQL. On Spark, the models
    partitioned by day (`by_day`: the sessionized events' shards, int_visits, int_conversions,
    int_attribution_touches) are incremental too, their days replaced with insert_overwrite
    (day_partitioned_strategy, macros/day_partitions.sql); the others are tables built whole
    (dbt_project.yml says the same for the folders' defaults). -#}
{% macro incremental_materialization(by_day=false) -%}
    {{ return(adapter.dispatch('incremental_materialization')(by_day)) }}
{%- endmacro %}

{% macro default__incremental_materialization(by_day) -%}
    {{ return('incremental') }}
{%- endmacro %}

{% macro spark__incremental_materialization(by_day) -%}
    {{ return('incremental' if by_day else 'table') }}
{%- endmacro %}

{#- The incremental strategy of a model partitioned by day: its own strategy on PostgreSQL
    (`strategy`, macros/incremental_strategies.sql), insert_overwrite on Spark (the rebuilt days'
    partitions replaced whole, dynamically: those the new rows hold). -#}
{% macro day_partitioned_strategy(strategy) -%}
    {{ return(adapter.dispatch('day_partitioned_strategy')(strategy)) }}
{%- endmacro %}

{% macro default__day_partitioned_strategy(strategy) -%}
    {{ return(strategy) }}
{%- endmacro %}

{% macro spark__day_partitioned_strategy(strategy) -%}
    {{ return('insert_overwrite') }}
{%- endmacro %}

{#- The partition column of a model partitioned by day: Spark only (PostgreSQL's tables are not
    partitioned by dbt). -#}
{% macro day_partition_by(column) -%}
    {{ return(adapter.dispatch('day_partition_by')(column)) }}
{%- endmacro %}

{% macro default__day_partition_by(column) -%}
    {{ return(none) }}
{%- endmacro %}

{% macro spark__day_partition_by(column) -%}
    {{ return([column]) }}
{%- endmacro %}

{#- The day partition column in a model's select list (after its last column, with its comma): the
    UTC day of `expression`, on Spark only. -#}
{% macro day_partition_column(expression, name) -%}
    {{ return(adapter.dispatch('day_partition_column')(expression, name)) }}
{%- endmacro %}

{% macro default__day_partition_column(expression, name) -%}
{%- endmacro %}

{% macro spark__day_partition_column(expression, name) -%}
    ,
        to_date({{ expression }}) as {{ name }}
{%- endmacro %}

{#- Spark builds whole every model but the day-partitioned ones, and takes no window from the
    vars (Dagster's month partitions pass none to Spark): a window would replace a table with the
    window's rows only, so it is refused. -#}
{% macro check_window_supported() -%}
    {{ return(adapter.dispatch('check_window_supported')()) }}
{%- endmacro %}

{% macro default__check_window_supported() -%}
{%- endmacro %}

{% macro spark__check_window_supported() -%}
    {%- if var('window_start', none) or var('window_end', none) -%}
        {{ exceptions.raise_compiler_error("The Spark target takes no window_start/window_end: its incremental runs "
                                           "rebuild the days of the events received since the last run") }}
    {%- endif -%}
{%- endmacro %}

{% macro session_timeout() -%}
    {{ minutes_interval(var('session_timeout_minutes') | int) }}
{%- endmacro %}

{% macro session_context() -%}
    {{ hours_interval(var('session_context_hours') | int) }}
{%- endmacro %}

{#- The latest value of a timestamp column of `relation` (-infinity when it is empty), looked up
    before the query is planned and written into it as a constant, for the same reason as above:
    "column > constant" is read through the column's index. -#}
{% macro latest_in(relation, column) -%}
    {%- if execute -%}
        '{{ run_query("select coalesce(max(" ~ column ~ "), '-infinity'::timestamptz)::text from " ~ relation).columns[0].values()[0] }}'::timestamptz
    {%- else -%}
        '-infinity'::timestamptz
    {%- endif -%}
{%- endmacro %}

{#- The visits int_visits built after `mark` (a timestamp constant, see latest_in): what the models
    downstream of it redo on an incremental run. -#}
{% macro visits_built_after(mark) -%}
    (select site_id, visitor_key, visit_start, visit_end
       from {{ ref('int_visits') }}
      where built_at > {{ mark }})
{%- endmacro %}

{#- Whether `relation` has every column of `names`: a table built before a column existed is
    rebuilt whole once (on_schema_change adds the column). -#}
{% macro has_columns(relation, names) -%}
    {%- set present = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
    {{ return(names | reject('in', present) | list | length == 0) }}
{%- endmacro %}

{#- Where sessionization starts reading events for a window: at the start of the earliest visit
    already built that the window may extend (one ending at most session_timeout_minutes before
    it), or session_timeout_minutes before the window when there is none. Earlier events cannot
    join a visit of the window: the visits built say where each begins. A constant, looked up
    through the visit_end index of the table being built. -#}
{% macro sessionization_read_from(window_start_at) -%}
    {%- if is_incremental() and execute -%}
        '{{ run_query("select least(min(visit_start), " ~ window_start_at ~ " - " ~ session_timeout() ~ ")::text from "
                      ~ this ~ " where visit_end >= " ~ window_start_at ~ " - " ~ session_timeout()).columns[0].values()[0] }}'::timestamptz
    {%- elif is_incremental() -%}
        {{ window_start_at }} - {{ session_context() }}
    {%- else -%}
        {{ window_start_at }}
    {%- endif -%}
{%- endmacro %}

{#- A table that has just been created (first or full build) has no statistics until autovacuum
    gets to it: the next incremental run would then plan "visit_end >= constant" for a third of
    the table and scan all of it. Analyzed once, after its creation; later runs leave it to
    autovacuum. -#}
{% macro analyze_when_new() -%}
    {{ return(adapter.dispatch('analyze_when_new')()) }}
{%- endmacro %}

{#- Spark keeps no statistics a plan depends on this way: nothing to do. -#}
{% macro spark__analyze_when_new() -%}
{%- endmacro %}

{% macro postgres__analyze_when_new() -%}
    do $analyze_when_new$
    begin
        if not exists (select 1 from pg_stats
                        where schemaname = '{{ this.schema }}' and tablename = '{{ this.identifier }}') then
            analyze {{ this }};
        end if;
    end
    $analyze_when_new$
{%- endmacro %}
