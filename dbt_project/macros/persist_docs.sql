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

{#- On Spark, every description reaches the metastore inside the statement that creates the
    relation, not in statements after it: dbt-spark writes a table's and a view's own description
    (its `comment` clause) and a view's columns (its column list), and the columns of our Parquet
    tables come from `spark__create_table_as` below. dbt-spark's persist_docs would then describe
    each table again and write its column comments one `alter table` per column (for Delta, Hudi and
    Iceberg only: Parquet tables got none): each statement a round trip through the Thrift server, so
    nothing is left for it to do. A changed description reaches a table when the table is created
    again (every table of a full build; an incremental one with --full-refresh). -#}
{% macro spark__persist_docs(relation, model, for_relation, for_columns) -%}
{%- endmacro %}

{#- A table's columns carry their descriptions from the start: the model's query becomes a
    temporary view whose column list has the comments (as dbt-spark writes a view's), and the table
    is created from that view; Spark keeps a column's comment through `create table ... as select`.
    Two statements (the query's columns, the view) in place of one per column. -#}
{% macro spark__create_table_as(temporary, relation, compiled_code, language='sql') -%}
    {%- if not temporary and language == 'sql' and config.persist_column_docs() and model.columns -%}
        {%- set described = relation.identifier ~ '__described' -%}
        {%- set columns = [] -%}
        {%- for column in get_columns_in_query(compiled_code) -%}
            {%- set description = (model.columns.get(column) or {}).get('description') -%}
            {%- if description -%}
                {%- do columns.append(adapter.quote(column) ~ " comment '" ~ description | replace('\\', '\\\\') | replace("'", "\\'") ~ "'") -%}
            {%- else -%}
                {%- do columns.append(adapter.quote(column)) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do run_query("create or replace temporary view " ~ described ~ " (" ~ columns | join(', ') ~ ") as\n" ~ compiled_code) -%}
        {{ return(dbt.spark__create_table_as(temporary, relation, 'select * from ' ~ described, language)) }}
    {%- endif -%}
    {{ return(dbt.spark__create_table_as(temporary, relation, compiled_code, language)) }}
{%- endmacro %}
