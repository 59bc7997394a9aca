{#- Models go to the schema their folder names (staging, intermediate, marts, analytics), not
    to "<target schema>_<custom schema>" as dbt does by default. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}{{ target.schema }}{%- else -%}{{ custom_schema_name | trim }}{%- endif -%}
{%- endmacro %}
