{#- What differs between the two targets (PostgreSQL, the default, and Spark: docs/data-engineer/spark.md), one
    macro per difference, dispatched on the adapter as dbt's own cross-database macros are. The
    models are written once; each postgres__ implementation is the SQL the models had before the
    Spark target existed, so PostgreSQL runs exactly the same statements.

    The Spark target's session (the Thrift server that `analytics up` starts) works in UTC and keeps
    ANSI mode on (errors instead of silent nulls, as PostgreSQL). Its string literals take backslash
    escapes (dbt-spark writes descriptions with \' in them): a regular expression with a backslash
    is a raw literal there (r'...'), in the spark__ macros. -#}

{#- A value as text (`x::text`). -#}
{% macro text_of(expression) -%}
    {{ return(adapter.dispatch('text_of')(expression)) }}
{%- endmacro %}

{% macro postgres__text_of(expression) -%}
    {{ expression }}::text
{%- endmacro %}

{% macro spark__text_of(expression) -%}
    cast({{ expression }} as string)
{%- endmacro %}

{#- A timestamp as PostgreSQL writes it in UTC (`2026-01-31 10:00:00.5+00`: fractional seconds only
    when there are some, without trailing zeros). Part of every visit_id, which must be the same on
    both targets. -#}
{% macro timestamp_text(expression) -%}
    {{ return(adapter.dispatch('timestamp_text')(expression)) }}
{%- endmacro %}

{% macro postgres__timestamp_text(expression) -%}
    {{ expression }}::text
{%- endmacro %}

{% macro spark__timestamp_text(expression) -%}
    regexp_replace(date_format({{ expression }}, 'yyyy-MM-dd HH:mm:ss.SSSSSS'), '[.]?0+$', '') || '+00'
{%- endmacro %}

{#- Byte order for a column of hex digests (PostgreSQL's collation "C"; Spark's strings already
    compare by bytes). -#}
{% macro byte_order() -%}
    {{ return(adapter.dispatch('byte_order')()) }}
{%- endmacro %}

{% macro postgres__byte_order() -%}
    collate "C"
{%- endmacro %}

{% macro spark__byte_order() -%}
{%- endmacro %}

{#- The first capture group of a regular expression in a text, null without a match. -#}
{% macro regex_capture(expression, pattern) -%}
    {{ return(adapter.dispatch('regex_capture')(expression, pattern)) }}
{%- endmacro %}

{% macro postgres__regex_capture(expression, pattern) -%}
    substring({{ expression }} from '{{ pattern }}')
{%- endmacro %}

{% macro spark__regex_capture(expression, pattern) -%}
    case when {{ expression }} rlike r'{{ pattern }}' then regexp_extract({{ expression }}, r'{{ pattern }}', 1) end
{%- endmacro %}

{#- A key of a JSON object column as text (`props ->> 'key'`; the events' JSON is text on Spark). -#}
{% macro json_text(column, key) -%}
    {{ return(adapter.dispatch('json_text')(column, key)) }}
{%- endmacro %}

{% macro postgres__json_text(column, key) -%}
    {{ column }} ->> '{{ key }}'
{%- endmacro %}

{% macro spark__json_text(column, key) -%}
    get_json_object({{ column }}, '$.{{ key }}')
{%- endmacro %}

{#- A key of a JSON object column as a number when it is a JSON number, else null: whether it is
    one (json_is_number), and its value read as a number when it is (json_number_value). -#}
{% macro json_number(column, key) -%}
    case when {{ json_is_number(column, key) }} then {{ json_number_value(column, key) }} end
{%- endmacro %}

{% macro json_is_number(column, key) -%}
    {{ return(adapter.dispatch('json_is_number')(column, key)) }}
{%- endmacro %}

{% macro postgres__json_is_number(column, key) -%}
    jsonb_typeof({{ column }} -> '{{ key }}') = 'number'
{%- endmacro %}

{#- Spark's VARIANT says what a JSON value is. -#}
{% macro spark__json_is_number(column, key) -%}
    coalesce(schema_of_variant(variant_get(parse_json({{ column }}), '$.{{ key }}')) rlike '^(BIGINT|DOUBLE|DECIMAL)', false)
{%- endmacro %}

{% macro json_number_value(column, key) -%}
    {{ return(adapter.dispatch('json_number_value')(column, key)) }}
{%- endmacro %}

{% macro postgres__json_number_value(column, key) -%}
    ({{ column }} ->> '{{ key }}')::numeric
{%- endmacro %}

{#- PostgreSQL's unbounded numeric becomes a decimal with 18 decimal places (money, counts and
    percentages fit). -#}
{% macro spark__json_number_value(column, key) -%}
    cast(get_json_object({{ column }}, '$.{{ key }}') as decimal(38, 18))
{%- endmacro %}

{#- Whole seconds between two timestamps (rounded, as PostgreSQL casts a numeric to an integer). -#}
{% macro seconds_between(start, end) -%}
    {{ return(adapter.dispatch('seconds_between')(start, end)) }}
{%- endmacro %}

{% macro postgres__seconds_between(start, end) -%}
    extract(epoch from {{ end }} - {{ start }})::integer
{%- endmacro %}

{% macro spark__seconds_between(start, end) -%}
    cast(round((unix_micros({{ end }}) - unix_micros({{ start }})) / 1000000.0) as int)
{%- endmacro %}

{#- Aggregates over a visit's events in time order (occurred_at, then event_id): the value of the
    first event (among those `where` keeps; null when it is null), and an array whose first and last
    elements (read by first_element and last_element) are the values of the first and the last.
    On PostgreSQL the array holds every value (one ordered array_agg reads the visit's events once);
    on Spark min_by and max_by, which keep one value each and so aggregate before the shuffle: an
    array of every value (collect_list) would carry each event through the shuffle, several times
    over (one copy per aggregate), and sort it again per visit. -#}
{% macro first_in_time(column, where=none) -%}
    {{ return(adapter.dispatch('first_in_time')(column, where)) }}
{%- endmacro %}

{% macro postgres__first_in_time(column, where) -%}
    (array_agg({{ column }} order by occurred_at, event_id){% if where %} filter (where {{ where }}){% endif %})[1]
{%- endmacro %}

{% macro spark__first_in_time(column, where) -%}
    min_by({{ column }}, struct(occurred_at, event_id)){% if where %} filter (where {{ where }}){% endif %}
{%- endmacro %}

{% macro ends_in_time(column, where=none) -%}
    {{ return(adapter.dispatch('ends_in_time')(column, where)) }}
{%- endmacro %}

{% macro postgres__ends_in_time(column, where) -%}
    array_agg({{ column }} order by occurred_at, event_id){% if where %} filter (where {{ where }}){% endif %}
{%- endmacro %}

{% macro spark__ends_in_time(column, where) -%}
    array({{ spark__first_in_time(column, where) }},
          max_by({{ column }}, struct(occurred_at, event_id)){% if where %} filter (where {{ where }}){% endif %})
{%- endmacro %}

{% macro first_element(array) -%}
    {{ return(adapter.dispatch('first_element')(array)) }}
{%- endmacro %}

{% macro postgres__first_element(array) -%}
    {{ array }}[1]
{%- endmacro %}

{% macro spark__first_element(array) -%}
    try_element_at({{ array }}, 1)
{%- endmacro %}

{% macro last_element(array) -%}
    {{ return(adapter.dispatch('last_element')(array)) }}
{%- endmacro %}

{% macro postgres__last_element(array) -%}
    {{ array }}[cardinality({{ array }})]
{%- endmacro %}

{% macro spark__last_element(array) -%}
    try_element_at({{ array }}, -1)
{%- endmacro %}

{#- A whole number of minutes and hours as an interval. -#}
{% macro minutes_interval(minutes) -%}
    {{ return(adapter.dispatch('minutes_interval')(minutes)) }}
{%- endmacro %}

{% macro postgres__minutes_interval(minutes) -%}
    make_interval(mins => {{ minutes }})
{%- endmacro %}

{% macro spark__minutes_interval(minutes) -%}
    interval {{ minutes }} minutes
{%- endmacro %}

{% macro hours_interval(hours) -%}
    {{ return(adapter.dispatch('hours_interval')(hours)) }}
{%- endmacro %}

{% macro postgres__hours_interval(hours) -%}
    make_interval(hours => {{ hours }})
{%- endmacro %}

{% macro spark__hours_interval(hours) -%}
    interval {{ hours }} hours
{%- endmacro %}

{#- A timestamp constant (UTC): `'...'::timestamptz` and its open ends. Spark has no infinite
    timestamps: the ends are years far enough from any event for the bounds' arithmetic. -#}
{% macro timestamp_constant(value) -%}
    {{ return(adapter.dispatch('timestamp_constant')(value)) }}
{%- endmacro %}

{% macro postgres__timestamp_constant(value) -%}
    '{{ value }}'::timestamptz
{%- endmacro %}

{% macro spark__timestamp_constant(value) -%}
    {%- if value == '-infinity' -%}
        timestamp'1000-01-01 00:00:00Z'
    {%- elif value == 'infinity' -%}
        timestamp'9000-01-01 00:00:00Z'
    {%- else -%}
        timestamp'{{ value }}'
    {%- endif -%}
{%- endmacro %}

{#- row_number() in a window whose frame is the whole partition (named `window`): PostgreSQL numbers
    the rows of any frame; Spark requires row_number's own frame, so it gets the window's partition
    and order again (the same sort: Spark computes windows of one partition and order together). -#}
{% macro row_number_over_whole_window(window, partition_by, order_by) -%}
    {{ return(adapter.dispatch('row_number_over_whole_window')(window, partition_by, order_by)) }}
{%- endmacro %}

{% macro postgres__row_number_over_whole_window(window, partition_by, order_by) -%}
    row_number() over {{ window }}
{%- endmacro %}

{% macro spark__row_number_over_whole_window(window, partition_by, order_by) -%}
    row_number() over (partition by {{ partition_by }} order by {{ order_by }})
{%- endmacro %}
