{#- Helpers of the incremental int_conversions (see its model and the strategy conversion_replace). -#}

{#- One fingerprint of every site's goals: a goal added, edited or removed changes it. -#}
{% macro goals_fingerprint() -%}
    (select {{ goals_fingerprint_of('goals') }} as goals_fingerprint
       from {{ ref('stg_collect__goals') }} as goals)
{%- endmacro %}

{#- The visits whose conversions a run recomputes: those int_visits built after the latest row of
    `relation` (every visit when it is empty). A visit merged into another by a late event is gone
    from int_visits; its conversions are replaced through the visit that took its events (same
    visitor, its start within that visit). -#}
{% macro conversion_visits_in_scope(relation=none) -%}
    {{ visits_built_after(latest_in(relation or this, 'built_at')) }}
{%- endmacro %}

{#- Whether this run recomputes every conversion: a full build, a table without the columns of
    incremental runs, an empty table, or goals that changed since the table was built. On Spark,
    always: its incremental runs recompute the conversions of the rebuilt days (macros/day_partitions.sql),
    and read none of the table's own rows. -#}
{% macro conversions_recompute_all() %}
    {{ return(adapter.dispatch('conversions_recompute_all')()) }}
{% endmacro %}

{% macro default__conversions_recompute_all() %}
    {%- if not execute or not is_incremental() -%}
        {{ return(true) }}
    {%- endif -%}
    {%- if not has_columns(this, ['goals_fingerprint', 'built_at']) -%}
        {{ return(true) }}
    {%- endif -%}
    {{ return(conversions_goals_changed()) }}
{% endmacro %}

{% macro spark__conversions_recompute_all() %}
    {{ return(true) }}
{% endmacro %}

{#- Whether the goals changed since the table was built (or it is empty). -#}
{% macro conversions_goals_changed() %}
    {%- set decided = run_query(
        "select coalesce((select goals_fingerprint from " ~ this ~ " limit 1)"
        ~ " is distinct from (select goals_fingerprint from " ~ goals_fingerprint() ~ "), true)") -%}
    {{ return(decided.columns[0].values()[0]) }}
{% endmacro %}
