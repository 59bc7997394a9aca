{#- Dialect differences of the marts past sessionization (channels, orders, funnel, conversions,
    attribution, classifications), as in dialect.sql: one dispatched macro per difference, each
    postgres__ implementation the SQL the models had before the Spark target, so PostgreSQL runs
    the same statements (docs/data-engineer/spark.md). On Spark the events' JSON (props, items) and
    the classifications' attributes are JSON text. -#}

{#- `select distinct on (keys) ...  order by keys, order`: the first row of each key. Spark has no
    DISTINCT ON: the rows are numbered in a subquery (distinct_on_start opens it, distinct_on_end
    closes it and keeps the first), and the number is a column of that subquery only (its caller
    selects its columns by name or through a later CTE that names them). -#}
{% macro distinct_on_start(keys, order) -%}
    {{ return(adapter.dispatch('distinct_on_start')(keys, order)) }}
{%- endmacro %}

{% macro postgres__distinct_on_start(keys, order) -%}
    select distinct on ({{ keys }})
{%- endmacro %}

{% macro spark__distinct_on_start(keys, order) -%}
    select * except (distinct_on_row) from (select row_number() over (partition by {{ keys }} order by {{ order }}) as distinct_on_row,
{%- endmacro %}

{% macro distinct_on_end(keys, order) -%}
    {{ return(adapter.dispatch('distinct_on_end')(keys, order)) }}
{%- endmacro %}

{% macro postgres__distinct_on_end(keys, order) -%}
    order by {{ keys }}, {{ order }}
{%- endmacro %}

{% macro spark__distinct_on_end(keys, order) -%}
    ) as numbered where distinct_on_row = 1
{%- endmacro %}

{#- A channel rule's pattern against a value: case-insensitive, a null pattern matches every value
    (staging.rule_matches, migration 0050, on PostgreSQL; there an invalid pattern matches none, on
    Spark it fails the run). -#}
{% macro rule_matches(value, pattern) -%}
    {{ return(adapter.dispatch('rule_matches')(value, pattern)) }}
{%- endmacro %}

{% macro postgres__rule_matches(value, pattern) -%}
    staging.rule_matches({{ value }}, {{ pattern }})
{%- endmacro %}

{% macro spark__rule_matches(value, pattern) -%}
    ({{ pattern }} is null or coalesce({{ value }}, '') rlike concat('(?i)', {{ pattern }}))
{%- endmacro %}

{#- A typed null (`null::text`, `null::uuid`: identifiers are text on Spark). -#}
{% macro null_of(kind) -%}
    {{ return(adapter.dispatch('null_of')(kind)) }}
{%- endmacro %}

{% macro postgres__null_of(kind) -%}
    null::{{ kind }}
{%- endmacro %}

{% macro spark__null_of(kind) -%}
    cast(null as {{ {'text': 'string', 'uuid': 'string'}.get(kind, kind) }})
{%- endmacro %}

{#- The UTC date of a timestamp. -#}
{% macro utc_date(expression) -%}
    {{ return(adapter.dispatch('utc_date')(expression)) }}
{%- endmacro %}

{% macro postgres__utc_date(expression) -%}
    ({{ expression }} at time zone 'UTC')::date
{%- endmacro %}

{#- The Thrift server's session works in UTC. -#}
{% macro spark__utc_date(expression) -%}
    to_date({{ expression }})
{%- endmacro %}

{#- `(a, b) < (c, d)`: row comparison, as structs on Spark. -#}
{% macro row_before(left, right) -%}
    {{ return(adapter.dispatch('row_before')(left, right)) }}
{%- endmacro %}

{% macro postgres__row_before(left, right) -%}
    ({{ left | join(', ') }}) < ({{ right | join(', ') }})
{%- endmacro %}

{% macro spark__row_before(left, right) -%}
    {%- set conditions = [] -%}
    {%- for i in range(left | length) -%}
        {%- set equal = [] -%}
        {%- for j in range(i) -%}{%- do equal.append(left[j] ~ ' = ' ~ right[j]) -%}{%- endfor -%}
        {%- do conditions.append('(' ~ (equal + [left[i] ~ ' < ' ~ right[i]]) | join(' and ') ~ ')') -%}
    {%- endfor -%}
    ({{ conditions | join(' or ') }})
{%- endmacro %}

{#- Whether a JSON column holds an array (jsonb_typeof = 'array'). -#}
{% macro json_is_array(column) -%}
    {{ return(adapter.dispatch('json_is_array')(column)) }}
{%- endmacro %}

{% macro postgres__json_is_array(column) -%}
    jsonb_typeof({{ column }}) = 'array'
{%- endmacro %}

{% macro spark__json_is_array(column) -%}
    coalesce(json_array_length({{ column }}) is not null, false)
{%- endmacro %}

{#- An order's item count and quantity from its items (a JSON array; 0 and null without one). -#}
{% macro order_item_count(items) -%}
    {{ return(adapter.dispatch('order_item_count')(items)) }}
{%- endmacro %}

{% macro postgres__order_item_count(items) -%}
    coalesce(jsonb_array_length(case when jsonb_typeof({{ items }}) = 'array' then {{ items }} end), 0)
{%- endmacro %}

{% macro spark__order_item_count(items) -%}
    coalesce(json_array_length({{ items }}), 0)
{%- endmacro %}

{% macro order_quantity(items) -%}
    {{ return(adapter.dispatch('order_quantity')(items)) }}
{%- endmacro %}

{% macro postgres__order_quantity(items) -%}
    (select sum(case when jsonb_typeof(item -> 'quantity') = 'number' then (item ->> 'quantity')::numeric else 1 end)
           from jsonb_array_elements(case when jsonb_typeof({{ items }}) = 'array' then {{ items }} else '[]'::jsonb end) as item)
{%- endmacro %}

{#- A sum over no item is null, as PostgreSQL's. -#}
{% macro spark__order_quantity(items) -%}
    case when json_array_length({{ items }}) > 0 then aggregate(
        from_json({{ items }}, 'array<string>'), cast(0 as decimal(38, 18)),
        (total, item) -> cast(total + case when {{ json_is_number('item', 'quantity') }}
                                           then {{ json_number_value('item', 'quantity') }} else 1 end as decimal(38, 18))) end
{%- endmacro %}

{#- Each element of a JSON array column as a row (`alias`.value, the element, and `alias`.position,
    from 1), joined to the rows of the FROM clause before it. -#}
{% macro join_json_array_elements(array, alias) -%}
    {{ return(adapter.dispatch('join_json_array_elements')(array, alias)) }}
{%- endmacro %}

{% macro postgres__join_json_array_elements(array, alias) -%}
    cross join lateral jsonb_array_elements({{ array }}) with ordinality as {{ alias }}(value, position)
{%- endmacro %}

{% macro spark__join_json_array_elements(array, alias) -%}
    lateral view posexplode(from_json({{ array }}, 'array<string>')) {{ alias }} as position, value
{%- endmacro %}

{#- An element's position as join_json_array_elements numbers it (Spark's posexplode counts from 0). -#}
{% macro element_position(column) -%}
    {{ return(adapter.dispatch('element_position')(column)) }}
{%- endmacro %}

{% macro postgres__element_position(column) -%}
    {{ column }}
{%- endmacro %}

{% macro spark__element_position(column) -%}
    ({{ column }} + 1)
{%- endmacro %}

{#- A JSON object's key named by a text column, as text. -#}
{% macro json_text_by_key_column(column, key_column) -%}
    {{ return(adapter.dispatch('json_text_by_key_column')(column, key_column)) }}
{%- endmacro %}

{% macro postgres__json_text_by_key_column(column, key_column) -%}
    {{ column }} ->> {{ key_column }}
{%- endmacro %}

{% macro spark__json_text_by_key_column(column, key_column) -%}
    get_json_object({{ column }}, concat('$.', {{ key_column }}))
{%- endmacro %}

{#- Sorted array of the values of a group (`array_agg(x order by x)`), whether an array holds a
    value (`x = any (array)`), and whether it holds every number from 1 to n. -#}
{% macro sorted_array_agg(column) -%}
    {{ return(adapter.dispatch('sorted_array_agg')(column)) }}
{%- endmacro %}

{% macro postgres__sorted_array_agg(column) -%}
    array_agg({{ column }} order by {{ column }})
{%- endmacro %}

{% macro spark__sorted_array_agg(column) -%}
    array_sort(collect_list({{ column }}))
{%- endmacro %}

{% macro array_has(array, value) -%}
    {{ return(adapter.dispatch('array_has')(array, value)) }}
{%- endmacro %}

{% macro postgres__array_has(array, value) -%}
    {{ value }} = any ({{ array }})
{%- endmacro %}

{% macro spark__array_has(array, value) -%}
    array_contains({{ array }}, {{ value }})
{%- endmacro %}

{% macro array_has_one_to(array, n) -%}
    {{ return(adapter.dispatch('array_has_one_to')(array, n)) }}
{%- endmacro %}

{% macro postgres__array_has_one_to(array, n) -%}
    (select array_agg(n) from generate_series(1, {{ n }}) as n) <@ {{ array }}
{%- endmacro %}

{% macro spark__array_has_one_to(array, n) -%}
    forall(sequence(1, {{ n }}), step -> array_contains({{ array }}, step))
{%- endmacro %}

{#- A whole number of days as an interval. -#}
{% macro days_interval(days) -%}
    {{ return(adapter.dispatch('days_interval')(days)) }}
{%- endmacro %}

{% macro postgres__days_interval(days) -%}
    make_interval(days => {{ days }})
{%- endmacro %}

{% macro spark__days_interval(days) -%}
    interval {{ days }} days
{%- endmacro %}

{#- Days (fractional) from one timestamp to another. -#}
{% macro days_between(start, end) -%}
    {{ return(adapter.dispatch('days_between')(start, end)) }}
{%- endmacro %}

{% macro postgres__days_between(start, end) -%}
    extract(epoch from {{ end }} - {{ start }}) / 86400.0
{%- endmacro %}

{% macro spark__days_between(start, end) -%}
    (unix_micros({{ end }}) - unix_micros({{ start }})) / 86400000000.0
{%- endmacro %}

{#- The largest value of a column over a window's rows that a condition keeps. -#}
{% macro max_over_where(column, where, over) -%}
    {{ return(adapter.dispatch('max_over_where')(column, where, over)) }}
{%- endmacro %}

{% macro postgres__max_over_where(column, where, over) -%}
    max({{ column }}) filter (where {{ where }}) over ({{ over }})
{%- endmacro %}

{#- Spark takes no FILTER in a window. -#}
{% macro spark__max_over_where(column, where, over) -%}
    max(case when {{ where }} then {{ column }} end) over ({{ over }})
{%- endmacro %}

{#- 0.5 to the power of (days / half-life): a time-decay weight. -#}
{% macro half_life_weight(days, half_life_days) -%}
    {{ return(adapter.dispatch('half_life_weight')(days, half_life_days)) }}
{%- endmacro %}

{% macro postgres__half_life_weight(days, half_life_days) -%}
    power(0.5, {{ days }} / {{ half_life_days }}::numeric)
{%- endmacro %}

{% macro spark__half_life_weight(days, half_life_days) -%}
    power(0.5, cast({{ days }} as double) / {{ half_life_days }})
{%- endmacro %}

{#- A number rounded to some decimal places, as a double. -#}
{% macro rounded_double(expression, places) -%}
    {{ return(adapter.dispatch('rounded_double')(expression, places)) }}
{%- endmacro %}

{% macro postgres__rounded_double(expression, places) -%}
    round({{ expression }}::numeric, {{ places }})::double precision
{%- endmacro %}

{% macro spark__rounded_double(expression, places) -%}
    cast(round(cast({{ expression }} as double), {{ places }}) as double)
{%- endmacro %}

{#- Classifications' attributes: one JSON object per classified value (attribute -> value, by
    attribute), an empty object, and objects merged (the later ones win on a shared key). -#}
{% macro attributes_object_agg(key, value) -%}
    {{ return(adapter.dispatch('attributes_object_agg')(key, value)) }}
{%- endmacro %}

{% macro postgres__attributes_object_agg(key, value) -%}
    jsonb_object_agg({{ key }}, {{ value }} order by {{ key }})
{%- endmacro %}

{% macro spark__attributes_object_agg(key, value) -%}
    to_json(map_from_entries(array_sort(collect_list(struct({{ key }}, {{ value }})))))
{%- endmacro %}

{% macro empty_json_object() -%}
    {{ return(adapter.dispatch('empty_json_object')()) }}
{%- endmacro %}

{% macro postgres__empty_json_object() -%}
    '{}'::jsonb
{%- endmacro %}

{% macro spark__empty_json_object() -%}
    '{}'
{%- endmacro %}

{% macro merged_attributes(objects) -%}
    {{ return(adapter.dispatch('merged_attributes')(objects)) }}
{%- endmacro %}

{% macro postgres__merged_attributes(objects) -%}
    {%- for object in objects %}
            {% if not loop.first %}|| {% endif %}coalesce({{ object }}, '{}'::jsonb)
    {%- endfor %}
{%- endmacro %}

{% macro spark__merged_attributes(objects) -%}
    {%- set merged = namespace(sql="cast(map() as map<string, string>)") -%}
    {%- for object in objects -%}
        {%- set merged.sql = "map_zip_with(" ~ merged.sql ~ ", coalesce(from_json(" ~ object
                             ~ ", 'map<string, string>'), cast(map() as map<string, string>)), (key, earlier, later) -> coalesce(later, earlier))" -%}
    {%- endfor -%}
    to_json({{ merged.sql }})
{%- endmacro %}

{#- One fingerprint of every site's goals (int_conversions: a goal edit recomputes every conversion). -#}
{% macro goals_fingerprint_of(goals) -%}
    {{ return(adapter.dispatch('goals_fingerprint_of')(goals)) }}
{%- endmacro %}

{% macro postgres__goals_fingerprint_of(goals) -%}
    md5(coalesce(string_agg(goals::text, '|' order by goals.goal_id), ''))
{%- endmacro %}

{% macro spark__goals_fingerprint_of(goals) -%}
    md5(coalesce(array_join(transform(array_sort(collect_list(struct(goals.goal_id, to_json(struct(goals.*))))), goal -> goal.col2), '|'), ''))
{%- endmacro %}

{#- A goal's path pattern (`*` matches any characters) as a LIKE pattern (raw literals on Spark,
    whose literals take backslash escapes). -#}
{% macro path_pattern_to_like(column) -%}
    {{ return(adapter.dispatch('path_pattern_to_like')(column)) }}
{%- endmacro %}

{% macro postgres__path_pattern_to_like(column) -%}
    replace(replace(replace(replace({{ column }}, '\', '\\'), '%', '\%'), '_', '\_'), '*', '%')
{%- endmacro %}

{% macro spark__path_pattern_to_like(column) -%}
    replace(replace(replace(replace({{ column }}, r'\', r'\\'), '%', r'\%'), '_', r'\_'), '*', '%')
{%- endmacro %}

{#- Spark (without Unity Catalog or Ranger) has no grants: the workbench reads the lake with its own
    permission rewrite. -#}
{% macro spark__apply_grants(relation, grant_config, should_revoke=True) -%}
{%- endmacro %}

{#- Inbound services (chat, database): the smallest text of a group of identifiers, back as the
    identifier (`min(x::text)::uuid`: Spark's identifiers are text already); an empty text array;
    seconds (with their fraction) from one timestamp to another; a share rounded to places. -#}
{% macro min_identifier(column) -%}
    {{ return(adapter.dispatch('min_identifier')(column)) }}
{%- endmacro %}

{% macro postgres__min_identifier(column) -%}
    min({{ column }}::text)::uuid
{%- endmacro %}

{% macro spark__min_identifier(column) -%}
    min({{ column }})
{%- endmacro %}

{% macro empty_text_array() -%}
    {{ return(adapter.dispatch('empty_text_array')()) }}
{%- endmacro %}

{% macro postgres__empty_text_array() -%}
    array[]::text[]
{%- endmacro %}

{% macro spark__empty_text_array() -%}
    cast(array() as array<string>)
{%- endmacro %}

{% macro epoch_between(start, end) -%}
    {{ return(adapter.dispatch('epoch_between')(start, end)) }}
{%- endmacro %}

{% macro postgres__epoch_between(start, end) -%}
    extract(epoch from {{ end }} - {{ start }})
{%- endmacro %}

{% macro spark__epoch_between(start, end) -%}
    (unix_micros({{ end }}) - unix_micros({{ start }})) / 1000000.0
{%- endmacro %}

{% macro share_rounded(part, whole, places) -%}
    {{ return(adapter.dispatch('share_rounded')(part, whole, places)) }}
{%- endmacro %}

{% macro postgres__share_rounded(part, whole, places) -%}
    round({{ part }}::numeric
                        / {{ whole }}, {{ places }})
{%- endmacro %}

{% macro spark__share_rounded(part, whole, places) -%}
    round(cast({{ part }} as decimal(20, 0)) / {{ whole }}, {{ places }})
{%- endmacro %}

{#- The value of the first row by one column among those `where` keeps (null without one). -#}
{% macro first_ordered(column, order, where) -%}
    {{ return(adapter.dispatch('first_ordered')(column, order, where)) }}
{%- endmacro %}

{% macro postgres__first_ordered(column, order, where) -%}
    (array_agg({{ column }} order by {{ order }}) filter (
            where {{ where }}))[1]
{%- endmacro %}

{% macro spark__first_ordered(column, order, where) -%}
    try_element_at(array_sort(collect_list(named_struct('at', {{ order }}, 'value', {{ column }})) filter (where {{ where }})), 1).value
{%- endmacro %}

{#- The UTC day of a timestamp, as chat_undelivered_messages writes it. -#}
{% macro utc_day(expression) -%}
    {{ return(adapter.dispatch('utc_day')(expression)) }}
{%- endmacro %}

{% macro postgres__utc_day(expression) -%}
    date_trunc('day', {{ expression }} at time zone 'UTC')::date
{%- endmacro %}

{% macro spark__utc_day(expression) -%}
    to_date({{ expression }})
{%- endmacro %}
