{#- The time window an incremental model rebuilds.

    With the vars `window_start` / `window_end` (set by Dagster from a month partition or a
    range of them), exactly that window. Without them, on an incremental run: from the earliest
    event received since this table was last built, to the end of time; on a full build:
    everything. Visits crossing the window's edges are rebuilt whole (see session_context_hours). -#}

{% macro window_start(upstream, received_column='received_at') -%}
    {%- if var('window_start', none) -%}
        '{{ var("window_start") }}'::timestamptz
    {%- elif is_incremental() -%}
        coalesce(
            (select min(occurred_at) from {{ upstream }}
              where received_at > (select coalesce(max({{ received_column }}), '-infinity'::timestamptz) from {{ this }})),
            'infinity'::timestamptz)
    {%- else -%}
        '-infinity'::timestamptz
    {%- endif -%}
{%- endmacro %}

{% macro window_end() -%}
    {%- if var('window_end', none) -%}
        '{{ var("window_end") }}'::timestamptz
    {%- else -%}
        'infinity'::timestamptz
    {%- endif -%}
{%- endmacro %}

{% macro session_timeout() -%}
    make_interval(mins => {{ var('session_timeout_minutes') | int }})
{%- endmacro %}

{% macro session_context() -%}
    make_interval(hours => {{ var('session_context_hours') | int }})
{%- endmacro %}
