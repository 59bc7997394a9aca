{#- The sources as the Spark target reads them: `raw.events` is an external table over the lake's
    raw events (<lake>/raw/events/site_id=<uuid>/day=<YYYY-MM-DD>/part-0.parquet, pipelines/lake/
    layout.py), its columns read from the files and its partitions from the folders. Declared again
    at the start of every run (dropping an external table leaves its files): the days exported since
    the last run, and a column added to raw events, are then seen. The other sources (the collector's
    metadata: collect.sites, goals, channel rules...; the inbound services' raw tables) are tables
    over the whole files the lake's export writes beside them (<lake>/<schema>/<table>/part-0.parquet,
    pipelines/lake/tables.py SOURCE_TABLES), declared the same way. PostgreSQL reads its own tables. -#}
{% macro prepare_sources() -%}
    {{ return(adapter.dispatch('prepare_sources')()) }}
{%- endmacro %}

{% macro default__prepare_sources() -%}
{%- endmacro %}

{% macro spark__prepare_sources() -%}
    {%- if execute -%}
        {%- set lake = env_var('ANALYTICS_DBT_LAKE_PATH', '') -%}
        {%- if not lake -%}
            {{ exceptions.raise_compiler_error("ANALYTICS_DBT_LAKE_PATH is not set: the Spark target reads the lake's raw events") }}
        {%- endif -%}
        {%- set events = lake.rstrip('/') ~ '/raw/events' -%}
        {%- do run_query("create schema if not exists raw") -%}
        {%- do run_query("drop table if exists raw.events") -%}
        {%- do run_query("create table raw.events using parquet location '" ~ events | replace("'", "") ~ "'") -%}
        {%- do run_query("alter table raw.events recover partitions") -%}
        {%- do run_query("create schema if not exists collect") -%}
        {%- for source in graph.sources.values() if source.source_name in ('collect', 'inbound') -%}
            {%- set folder = lake.rstrip('/') ~ '/' ~ source.schema ~ '/' ~ source.identifier -%}
            {%- do run_query("drop table if exists " ~ source.schema ~ "." ~ source.identifier) -%}
            {%- do run_query("create table " ~ source.schema ~ "." ~ source.identifier ~ " using parquet location '"
                             ~ folder | replace("'", "") ~ "'") -%}
        {%- endfor -%}
        {#- The day-partitioned models' logs, before any model runs (macros/day_partitions.sql). -#}
        {%- do prepare_day_rebuilds() -%}
    {%- endif -%}
{%- endmacro %}
