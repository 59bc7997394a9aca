{#- Incremental strategy `visit_replace` for tables keyed by visit (one row per event or per visit,
    with site_id, visitor_key and visit_start).

    A rebuilt window may merge, extend or move visits (a late event can join two visits), so the
    rows it replaces cannot be found by key. For each visitor present in the new rows, every old
    row whose visit starts between the first rebuilt visit's start and the last one's end is
    replaced: those visits were all re-sessionized from the same events. -#}
{% macro get_incremental_visit_replace_sql(arg_dict) %}
    {%- set target = arg_dict["target_relation"] -%}
    {%- set source = arg_dict["temp_relation"] -%}
    {%- set columns = get_quoted_csv(arg_dict["dest_columns"] | map(attribute="name")) -%}
    delete from {{ target }} as old
     using (select site_id, visitor_key, min(visit_start) as first_start, max(visit_end) as last_end
              from {{ source }}
             group by site_id, visitor_key) as rebuilt
     where old.site_id = rebuilt.site_id
       and old.visitor_key = rebuilt.visitor_key
       and old.visit_start between rebuilt.first_start and rebuilt.last_end;

    insert into {{ target }} ({{ columns }})
    select {{ columns }} from {{ source }};
{% endmacro %}

{#- Incremental strategy `replace_all` for small tables rebuilt in full on every run (channels:
    their rows are all decided again; classification attributes). The rows are replaced inside the
    existing table instead of swapping in a new one, so the views reading it stay in place (a
    swapped table would take its dependent views with it) and readers never see the table
    missing. -#}
{% macro get_incremental_replace_all_sql(arg_dict) %}
    {%- set columns = get_quoted_csv(arg_dict["dest_columns"] | map(attribute="name")) -%}
    delete from {{ arg_dict["target_relation"] }};

    insert into {{ arg_dict["target_relation"] }} ({{ columns }})
    select {{ columns }} from {{ arg_dict["temp_relation"] }};
{% endmacro %}

{#- Incremental strategy `conversion_replace` of int_conversions. Its rows all carry the goals
    fingerprint they were computed with: when the new rows' fingerprint differs from the table's,
    the goals changed and the model recomputed every conversion, so every old row goes. Otherwise the
    conversions of the visits in scope (built since the table's latest row) are replaced, with any
    out-of-scope conversion of a transaction that a new row takes over. Without new rows the
    fingerprint is read again. -#}
{% macro get_incremental_conversion_replace_sql(arg_dict) %}
    {%- set target = arg_dict["target_relation"] -%}
    {%- set source = arg_dict["temp_relation"] -%}
    {%- set columns = get_quoted_csv(arg_dict["dest_columns"] | map(attribute="name")) -%}
    delete from {{ target }}
     where coalesce((select goals_fingerprint from {{ source }} limit 1),
                    (select goals_fingerprint from {{ goals_fingerprint() }}))
           is distinct from (select goals_fingerprint from {{ target }} limit 1);

    -- Two statements, not one with "or": each is a join through an index, not a test per row.
    delete from {{ target }} as old
     using {{ conversion_visits_in_scope(target) }} as rebuilt
     where old.site_id = rebuilt.site_id
       and old.visitor_key = rebuilt.visitor_key
       and old.visit_start between rebuilt.visit_start and rebuilt.visit_end;

    delete from {{ target }}
     where conversion_id in (select conversion_id from {{ source }});

    insert into {{ target }} ({{ columns }})
    select {{ columns }} from {{ source }};
{% endmacro %}

{#- Incremental strategy `touch_replace` of int_attribution_touches: the new rows are every touch of
    the conversions in scope, which replace their old ones; touches of conversions no longer in
    int_conversions (merged visits, changed goals) go too. -#}
{% macro get_incremental_touch_replace_sql(arg_dict) %}
    {%- set target = arg_dict["target_relation"] -%}
    {%- set source = arg_dict["temp_relation"] -%}
    {%- set columns = get_quoted_csv(arg_dict["dest_columns"] | map(attribute="name")) -%}
    delete from {{ target }}
     where conversion_id in (select conversion_id from {{ source }});

    delete from {{ target }} as old
     where not exists (select 1 from {{ ref('int_conversions') }} as conversions
                        where conversions.conversion_id = old.conversion_id);

    insert into {{ target }} ({{ columns }})
    select {{ columns }} from {{ source }};
{% endmacro %}
