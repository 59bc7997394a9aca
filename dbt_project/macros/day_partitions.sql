{#- Day partitions on Spark: the incremental models (the sessionized events' shards, int_visits,
    int_conversions, int_attribution_touches) are partitioned by a day and an incremental run
    replaces the days it rebuilds (insert_overwrite, dynamic: the days the new rows hold).

    Which days a run rebuilds is decided before its query, as a range of days [first, end):
      - the shards: the days of the events received since the last run and of the visits they may
        change, and the days whose events were erased (spark__sessionization_window);
      - int_visits (by the visit's start day): the start days of every visit, old or new, that has an
        event on a day the shards rebuilt since int_visits' last run;
      - int_conversions (by the visit's start day): the days int_visits rebuilt since its last run and
        the days of the purchases whose transaction has an event on them (spark_days_of_moved_purchases),
        or every day when the goals changed;
      - int_attribution_touches (by the conversion's day): the days int_conversions and int_visits
        rebuilt since its last run, to attribution_lookback_days (and two days for the converting
        visit's length) after them.
    Each run records the range it rebuilds in its log, `<model>__day_rebuilds` (a small table beside
    the model, Spark only), and a "done" row once its rows are written: a model reads the ranges its
    upstream models recorded since its own last "done", so a run that failed is redone whole by the
    next. A log per model, each written only by its model's run: two inserts into one Parquet table
    at the same time (the shards build together) share its `_temporary` folder, and the first to
    commit deletes the other's files (FileNotFoundException: `_temporary/0 does not exist`). Before
    writing, the run drops the range's partitions (pre-hook): a day left without rows (a visit
    merged into the previous day's, a person erased) then keeps none, where a dynamic overwrite
    would leave its old files. A full build records "every day".

    The days are a list of ranges {'first': 'YYYY-MM-DD', 'end': 'YYYY-MM-DD'} (end excluded), empty
    for no day, or `none` for every day. PostgreSQL has none of this: its strategies replace by visit
    and conversion (macros/incremental_strategies.sql). -#}

{#- The log of `model` (this model by default), in its schema (or `schema`). -#}
{% macro day_rebuilds_relation(model=none, schema=none) -%}
    {{ return((schema or this.schema) ~ '.' ~ (model or this.identifier) ~ '__day_rebuilds') }}
{%- endmacro %}

{#- A model creates no log but its own: two models creating one table at the same time (dbt's
    threads) fail in the metastore (TABLE_OR_VIEW_ALREADY_EXISTS, seen on a fresh cluster's first
    build when all shared one). The logs it reads come from prepare_day_rebuilds. -#}
{% macro ensure_day_rebuilds(model=none, schema=none) -%}
    {%- do run_query("create table if not exists " ~ day_rebuilds_relation(model, schema) ~ " (model string, first_day string,"
                     ~ " end_day string, all_days boolean, done boolean, logged_at timestamp) using parquet") -%}
{%- endmacro %}

{#- At the start of every run on Spark (spark__prepare_sources), before any model: the log of every
    day-partitioned model (those whose pre-hook is day_partitions_prepare), so that a model finds its
    upstream models' logs even before their first run. The rows of the one log all models shared
    before (intermediate.day_partition_rebuilds) move to their models' logs, once, so that the ranges
    of a run that failed before the change are still redone. -#}
{% macro prepare_day_rebuilds() -%}
    {%- if not execute -%}{{ return('') }}{%- endif -%}
    {%- set models = [] -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model'
            and 'day_partitions_prepare' in node.config['pre-hook'] | map(attribute='sql') | join(' ') -%}
        {%- do models.append(node) -%}
    {%- endfor -%}
    {%- for schema in models | map(attribute='schema') | unique -%}
        {%- set names = models | selectattr('schema', 'equalto', schema) | map(attribute='alias') | list -%}
        {#- dbt's cache of the relations answers these without a statement. -#}
        {%- set missing = [] -%}
        {%- for name in names if adapter.get_relation(database=none, schema=schema, identifier=name ~ '__day_rebuilds') is none -%}
            {%- do missing.append(name) -%}
        {%- endfor -%}
        {%- if missing -%}{%- do run_query("create schema if not exists " ~ schema) -%}{%- endif -%}
        {%- for name in missing -%}{%- do ensure_day_rebuilds(name, schema) -%}{%- endfor -%}
        {%- set shared = adapter.get_relation(database=none, schema=schema, identifier='day_partition_rebuilds') -%}
        {%- if shared is not none -%}
            {%- for name in names -%}
                {%- do run_query("insert into " ~ day_rebuilds_relation(name, schema) ~ " select * from " ~ shared
                                 ~ " where model = '" ~ name ~ "'") -%}
            {%- endfor -%}
            {%- do run_query("drop table " ~ shared) -%}
        {%- endif -%}
    {%- endfor -%}
{%- endmacro %}

{#- The union of lists of day ranges (none among them: every day), as sorted ranges that neither
    overlap nor touch. -#}
{% macro day_range_union(lists) -%}
    {%- set ranges = [] -%}
    {%- for list in lists -%}
        {%- if list is none -%}{{ return(none) }}{%- endif -%}
        {%- for range in list if range['first'] is not none -%}{%- do ranges.append(range) -%}{%- endfor -%}
    {%- endfor -%}
    {%- set merged = [] -%}
    {%- for range in ranges | sort(attribute='first') -%}
        {%- if merged and range['first'] <= merged[-1]['end'] -%}
            {%- do merged[-1].update({'end': [merged[-1]['end'], range['end']] | max}) -%}
        {%- else -%}
            {%- do merged.append({'first': range['first'], 'end': range['end']}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(merged) }}
{%- endmacro %}

{#- The days the models `upstream` (names) rebuilt since this model's last completed run. -#}
{% macro days_rebuilt_upstream(upstream) -%}
    {%- do ensure_day_rebuilds() -%}
    {%- set logs = [] -%}
    {%- for model in upstream -%}
        {%- do logs.append("select all_days, first_day, end_day, done, logged_at from " ~ day_rebuilds_relation(model)) -%}
    {%- endfor -%}
    {%- set rows = run_query(
        "select all_days, first_day, end_day from (" ~ logs | join(' union all ') ~ ")"
        ~ " where not done and logged_at > (select coalesce(max(logged_at), "
        ~ timestamp_constant('-infinity') ~ ") from " ~ day_rebuilds_relation() ~ " where done)").rows -%}
    {%- set ranges = [] -%}
    {%- for row in rows -%}
        {%- if row[0] -%}{{ return(none) }}{%- endif -%}
        {%- do ranges.append({'first': row[1], 'end': row[2]}) -%}
    {%- endfor -%}
    {{ return(day_range_union([ranges])) }}
{%- endmacro %}

{#- The days this run of a day-partitioned model rebuilds, on Spark (see above); none on a full build. -#}
{% macro rebuilt_days() -%}
    {%- if not (execute and is_incremental()) -%}{{ return(none) }}{%- endif -%}
    {{ return(adapter.dispatch('rebuilt_days')(this.identifier)) }}
{%- endmacro %}

{% macro default__rebuilt_days(model) -%}
    {{ return(none) }}
{%- endmacro %}

{% macro spark__rebuilt_days(model) -%}
    {%- if model.startswith('int_events_sessionized_shard_') -%}
        {{ return(spark__sessionization_window(ref('stg_raw__events'), model.split('_')[-1] | int)['days']) }}
    {%- elif model == 'int_visits' -%}
        {%- set events = days_rebuilt_upstream(sessionization_shards() | map(attribute='model') | list) -%}
        {%- if events is none -%}{{ return(none) }}{%- endif -%}
        {%- set visits = [] -%}
        {#- Every visit with an event on a rebuilt day, as the shards hold it now and as int_visits had
            it. The shards are read directly, as int_visits reads them. -#}
        {%- for range in events -%}
            {%- set first = "to_date('" ~ range['first'] ~ "')" -%}
            {%- set end = "to_date('" ~ range['end'] ~ "')" -%}
            {%- set shard_days = [] -%}
            {%- for shard in sessionized_event_shards() -%}
                {%- do shard_days.append("select to_date(visit_start) as day from " ~ shard
                                         ~ " where event_day >= " ~ first ~ " and event_day < " ~ end) -%}
            {%- endfor -%}
            {%- set row = run_query(
                "select cast(min(day) as string), cast(date_add(max(day), 1) as string) from ("
                ~ shard_days | join(' union all ')
                ~ " union all select to_date(visit_start) from " ~ this
                ~ " where visit_end >= cast(" ~ first ~ " as timestamp) and visit_start < cast(" ~ end ~ " as timestamp))").rows[0] -%}
            {%- do visits.append({'first': row[0], 'end': row[1]}) -%}
        {%- endfor -%}
        {{ return(day_range_union([visits])) }}
    {%- elif model == 'int_conversions' -%}
        {%- if conversions_goals_changed() -%}{{ return(none) }}{%- endif -%}
        {%- set visits = days_rebuilt_upstream(['int_visits']) -%}
        {{ return(day_range_union([visits, spark_days_of_moved_purchases(visits)])) }}
    {%- elif model == 'int_attribution_touches' -%}
        {%- set visits = days_rebuilt_upstream(['int_visits', 'int_conversions']) -%}
        {%- if visits is none -%}{{ return(none) }}{%- endif -%}
        {%- set reach = (var('attribution_lookback_days') | int) + 2 -%}
        {%- set conversions = [] -%}
        {%- for range in visits -%}
            {%- set end = run_query("select cast(date_add(to_date('" ~ range['end'] ~ "'), " ~ reach ~ ") as string)").rows[0][0] -%}
            {%- do conversions.append({'first': range['first'], 'end': end}) -%}
        {%- endfor -%}
        {{ return(day_range_union([conversions])) }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error("no day partitions for " ~ model) }}
{%- endmacro %}

{#- The days of int_conversions' purchases whose transaction has a purchase event in a visit starting
    on `days` (a list of ranges): such an event may now be the transaction's first (a late event,
    earlier than the conversion), and the conversion then moves to that visit's day, so the day it
    leaves is rebuilt too (PostgreSQL's conversion_replace replaces it by conversion_id). A purchase
    without a transaction id is its own event's conversion, on a rebuilt day already. -#}
{% macro spark_days_of_moved_purchases(days) -%}
    {%- if not days -%}{{ return([]) }}{%- endif -%}
    {#- A visit's events are on its start day or later: the shards' partitions before it are skipped. -#}
    {%- set rows = run_query(
        "select distinct cast(kept.visit_day as string), cast(date_add(kept.visit_day, 1) as string) from " ~ this
        ~ " as kept left semi join (select site_id, transaction_id from " ~ ref('int_events_sessionized')
        ~ " where event_day >= to_date('" ~ days[0]['first'] ~ "') and event_name = 'purchase'"
        ~ " and transaction_id is not null and " ~ spark_on_days('visit_start', days) ~ ") as new"
        ~ " on kept.site_id = new.site_id and kept.transaction_id = new.transaction_id"
        ~ " where kept.conversion_kind = 'purchase' and not " ~ spark_on_days('kept.visit_start', days)).rows -%}
    {%- set moved = [] -%}
    {%- for row in rows -%}{%- do moved.append({'first': row[0], 'end': row[1]}) -%}{%- endfor -%}
    {{ return(moved) }}
{%- endmacro %}

{#- Whether `column` (a timestamp) falls on one of the days `days` (none: every day). -#}
{% macro spark_on_days(column, days) -%}
    {%- if days is none -%}
        true
    {%- elif not days -%}
        false
    {%- else -%}
        ({% for range in days %}{{ ' or ' if not loop.first }}({{ column }} >= timestamp'{{ range["first"] }} 00:00:00Z' and {{ column }} < timestamp'{{ range["end"] }} 00:00:00Z'){% endfor %})
    {%- endif -%}
{%- endmacro %}

{#- `where` the rows of `column` (a timestamp) fall in this run's rebuilt days, on Spark's incremental
    runs; nothing otherwise. -#}
{% macro rebuilt_days_filter(column, keyword='where') -%}
    {{ return(adapter.dispatch('rebuilt_days_filter')(column, keyword)) }}
{%- endmacro %}

{% macro default__rebuilt_days_filter(column, keyword) -%}
{%- endmacro %}

{% macro spark__rebuilt_days_filter(column, keyword) -%}
    {%- set days = rebuilt_days() -%}
    {%- if days is not none %}
    {{ keyword }} {{ spark_on_days(column, days) }}
    {%- endif -%}
{%- endmacro %}

{#- dbt's should_full_refresh (which is_incremental and the incremental materialization ask), plus,
    on Spark, a day-partitioned table built before its day partitions: a whole table without the
    partition column, which an insert_overwrite would replace whole with the rebuilt days' rows (the
    schema change adds the column first). Such a table is built again whole, once, by itself. -#}
{% macro should_full_refresh() -%}
    {{ return(dbt.should_full_refresh() or day_partitions_missing()) }}
{%- endmacro %}

{% macro day_partitions_missing() -%}
    {{ return(adapter.dispatch('day_partitions_missing')()) }}
{%- endmacro %}

{% macro default__day_partitions_missing() -%}
    {{ return(false) }}
{%- endmacro %}

{% macro spark__day_partitions_missing() -%}
    {%- set columns = config.get('partition_by') if execute and model is defined else none -%}
    {%- if not columns or config.get('materialized') != 'incremental' -%}{{ return(false) }}{%- endif -%}
    {%- set relation = adapter.get_relation(this.database, this.schema, this.identifier) -%}
    {%- if relation is none or relation.type != 'table' -%}{{ return(false) }}{%- endif -%}
    {{ return(not has_columns(relation, [columns] if columns is string else columns)) }}
{%- endmacro %}

{#- Pre-hook of a day-partitioned model on Spark: records the days this run rebuilds and drops their
    partitions (see above). Renders no SQL. -#}
{% macro day_partitions_prepare(column) -%}
    {{ return(adapter.dispatch('day_partitions_prepare')(column)) }}
{%- endmacro %}

{% macro default__day_partitions_prepare(column) -%}
{%- endmacro %}

{% macro spark__day_partitions_prepare(column) -%}
    {%- if execute -%}
        {%- set rebuilds = day_rebuilds_relation() -%}
        {%- do ensure_day_rebuilds() -%}
        {%- set days = rebuilt_days() -%}
        {%- if days is none and day_partitions_missing() -%}
            {%- do log(this ~ " has no " ~ column ~ " partitions (built before them): built again whole", info=true) -%}
        {%- endif -%}
        {%- set rows = ["('" ~ this.identifier ~ "', null, null, true, false, current_timestamp())"] if days is none else [] -%}
        {%- for range in days or [] -%}
            {%- do rows.append("('" ~ this.identifier ~ "', '" ~ range['first'] ~ "', '" ~ range['end'] ~ "', false, false, current_timestamp())") -%}
        {%- endfor -%}
        {%- if rows -%}
            {%- do run_query("insert into " ~ rebuilds ~ " values " ~ rows | join(', ')) -%}
        {%- endif -%}
        {%- if is_incremental() and rows -%}
            {%- set dropped = [] -%}
            {%- for partition in run_query("show partitions " ~ this).columns[0].values() -%}
                {%- set day = partition.split('=')[1] -%}
                {%- if days is none or days | selectattr('first', 'le', day) | selectattr('end', 'gt', day) | list -%}
                    {%- do dropped.append("partition (" ~ column ~ " = '" ~ day ~ "')") -%}
                {%- endif -%}
            {%- endfor -%}
            {%- if dropped -%}
                {%- do run_query("alter table " ~ this ~ " drop if exists " ~ dropped | join(', ')) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{#- Post-hook: the run's rows are written; the ranges upstream recorded until now are taken. -#}
{% macro day_partitions_done() -%}
    {{ return(adapter.dispatch('day_partitions_done')()) }}
{%- endmacro %}

{% macro default__day_partitions_done() -%}
{%- endmacro %}

{% macro spark__day_partitions_done() -%}
    {%- if execute -%}
        {%- do run_query("insert into " ~ day_rebuilds_relation() ~ " values ('" ~ this.identifier
                         ~ "', null, null, false, true, current_timestamp())") -%}
    {%- endif -%}
{%- endmacro %}

{#- The window of int_visits: on PostgreSQL the bounds of macros/incremental_window.sql (from the
    events received after the table's latest last_received_at), the visits touching them rebuilt
    (visit_replace); on Spark the visits starting on the rebuilt days, every one of them. -#}
{% macro visits_window(events_received) -%}
    {{ return(adapter.dispatch('visits_window')(events_received)) }}
{%- endmacro %}

{% macro default__visits_window(events_received) -%}
    {{ return({'start': window_start(events_received, 'last_received_at'), 'end': window_end()}) }}
{%- endmacro %}

{% macro spark__visits_window(events_received) -%}
    {{- check_window_supported() -}}
    {{ return({'days': rebuilt_days()}) }}
{%- endmacro %}

{% macro visits_in_window(events, window) -%}
    {{ return(adapter.dispatch('visits_in_window')(events, window)) }}
{%- endmacro %}

{% macro default__visits_in_window(events, window) -%}
    {{ events }}.visit_end >= {{ window['start'] }} - {{ session_timeout() }}
      and {{ events }}.visit_start < {{ window['end'] }}
{%- endmacro %}

{% macro spark__visits_in_window(events, window) -%}
    {{ spark_on_days(events ~ '.visit_start', window['days']) }}
{%- endmacro %}

{#- `relation`'s events of the visits starting on the rebuilt days (Spark's incremental runs), or
    `relation` itself. -#}
{% macro events_of_rebuilt_days(relation) -%}
    {{ return(adapter.dispatch('events_of_rebuilt_days')(relation)) }}
{%- endmacro %}

{% macro default__events_of_rebuilt_days(relation) -%}
    {{ return(relation) }}
{%- endmacro %}

{% macro spark__events_of_rebuilt_days(relation) -%}
    {%- set condition = rebuilt_days_filter('visit_start') | trim -%}
    {{ return('(select * from ' ~ relation ~ ' ' ~ condition ~ ')' if condition else relation) }}
{%- endmacro %}

{#- Whether an incremental model reads its own rows to decide what it replaces (PostgreSQL's
    strategies); on Spark it rebuilds whole days instead (above). -#}
{% macro reads_own_rows() -%}
    {{ return(adapter.dispatch('reads_own_rows')()) }}
{%- endmacro %}

{% macro default__reads_own_rows() -%}
    {{ return(is_incremental()) }}
{%- endmacro %}

{% macro spark__reads_own_rows() -%}
    {{ return(false) }}
{%- endmacro %}
