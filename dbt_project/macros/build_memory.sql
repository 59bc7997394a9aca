{#- Memory of the statements that build a table, for its transaction only (`set local`): sorts by
    visitor and by visit, and the index builds after them, spill to disk in far fewer passes at
    millions of events than with the server's defaults (4MB, 64MB). Kept moderate for a small
    server: at most `threads` models build at once, each sort (and parallel worker) may take
    build_work_mem. -#}
{% macro build_memory_settings() -%}
    set local work_mem = '{{ var("build_work_mem") }}';
    set local maintenance_work_mem = '{{ var("build_maintenance_work_mem") }}'
{%- endmacro %}
