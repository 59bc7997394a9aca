{#- persist_docs (dbt_project.yml) writes the models' descriptions as SQL comments. dbt-postgres
    runs `comment on` after every build of every model, even when the comment is already there, and
    `comment on` waits for autovacuum: both take the table's SHARE UPDATE EXCLUSIVE lock, so the
    15-minute run of a table that autovacuum is processing (after the run before it, or a full
    build) waited deadlock_timeout (1 s) per table before autovacuum was cancelled. These overrides
    of dbt-postgres's macros comment only what differs from the catalog; a description that changes
    is still written on the next run. -#}

{% macro postgres__alter_relation_comment(relation, comment) %}
    {%- set relation_type = 'materialized view' if relation.type == 'materialized_view' else relation.type -%}
    {%- set escaped_comment = postgres_escape_comment(comment) -%}
    do $persist_docs$
    begin
        if obj_description('{{ relation.include(database=false) }}'::regclass, 'pg_class')
           is distinct from nullif({{ escaped_comment }}, '') then
            comment on {{ relation_type }} {{ relation }} is {{ escaped_comment }};
        end if;
    end
    $persist_docs$;
{% endmacro %}

{% macro postgres__alter_column_comment(relation, column_dict) %}
    {%- set existing_columns = adapter.get_columns_in_relation(relation) | map(attribute="name") | list -%}
    do $persist_docs$
    declare
        described constant regclass := '{{ relation.include(database=false) }}';
    begin
    {%- for column_name in column_dict if (column_name in existing_columns) %}
        {%- set escaped_comment = postgres_escape_comment(column_dict[column_name]['description']) %}
        if col_description(described, (select attnum from pg_attribute
                                         where attrelid = described and attname = '{{ column_name }}'))
           is distinct from nullif({{ escaped_comment }}, '') then
            comment on column {{ relation }}.{{ adapter.quote(column_name) if column_dict[column_name]['quote'] else column_name }} is {{ escaped_comment }};
        end if;
    {%- endfor %}
        null;
    end
    $persist_docs$;
{% endmacro %}

{#- On Spark, dbt-spark writes column descriptions into the metastore for views (in their
    definition) and for Delta, Hudi and Iceberg tables only: our Parquet tables get theirs here
    (Spark changes a column's comment in place), so that the workbench and the assistant read them
    there too. -#}
{% macro spark__alter_column_comment(relation, column_dict) %}
    {#- The columns the table has (dbt-spark's persist_docs leaves out the others). -#}
    {%- if relation.is_table -%}
        {%- for column_name in column_dict %}
            {%- set escaped_comment = column_dict[column_name]['description'] | replace('\\', '\\\\') | replace("'", "\\'") -%}
            {%- do run_query("alter table " ~ relation ~ " alter column " ~ adapter.quote(column_name)
                             ~ " comment '" ~ escaped_comment ~ "'") -%}
        {%- endfor %}
    {%- endif -%}
{% endmacro %}
