{#- A campaign parameter value as analysts expect it: percent-decoded, `+` as a space, trimmed,
    inner whitespace collapsed, lower case; empty and placeholder values become null. -#}
{% macro normalise_campaign_value(column) -%}
    {{ return(adapter.dispatch('normalise_campaign_value')(column)) }}
{%- endmacro %}

{% macro postgres__normalise_campaign_value(column) -%}
    nullif(
        nullif(nullif(nullif(nullif(
            lower(regexp_replace(btrim(
                -- Decoding is a PL/pgSQL call: made only for the rare values that need it.
                case when strpos({{ column }}, '%') > 0 then staging.url_decode(replace({{ column }}, '+', ' '))
                     else replace({{ column }}, '+', ' ') end,
                E' \t\r\n'), '\s+', ' ', 'g')),
        ''), '(not set)'), 'undefined'), 'null'),
    '(none)')
{%- endmacro %}

{#- The same on Spark, with staging.url_decode (a PostgreSQL function, migration 0052) in Spark SQL:
    runs of %-escapes that spell valid UTF-8 (without NUL) are decoded, anything else is kept as it is.
    The trimmed characters are a space, tab, carriage return and line feed, as E' \t\r\n' says. -#}
{% macro spark__normalise_campaign_value(column) -%}
    nullif(
        nullif(nullif(nullif(nullif(
            lower(regexp_replace(btrim(
                case when instr({{ column }}, '%') > 0 then {{ spark_url_decode("replace(" ~ column ~ ", '+', ' ')") }}
                     else replace({{ column }}, '+', ' ') end,
                concat(' ', chr(9), chr(13), chr(10))), r'\s+', ' ')),
        ''), '(not set)'), 'undefined'), 'null'),
    '(none)')
{%- endmacro %}

{% macro spark_url_decode(expression) -%}
    array_join(transform(
        regexp_extract_all({{ expression }}, '(?:%[0-9A-Fa-f]{2})+|[^%]+|%', 0),
        part -> case
            when part rlike '^(%[0-9A-Fa-f]{2})+$' and lower(replace(part, '%', '')) rlike (
                '^(0[1-9a-f]|[1-7][0-9a-f]'
                || '|(c[2-9a-f]|d[0-9a-f])[89ab][0-9a-f]'
                || '|e0[ab][0-9a-f][89ab][0-9a-f]|(e[1-9a-ce-f][89ab][0-9a-f]|ed[89][0-9a-f])[89ab][0-9a-f]'
                || '|(f0[9ab][0-9a-f]|f[1-3][89ab][0-9a-f]|f48[0-9a-f])[89ab][0-9a-f][89ab][0-9a-f])+$')
                then decode(unhex(replace(part, '%', '')), 'UTF-8')
            else part
        end), '')
{%- endmacro %}

{#- A host name without its `www.` prefix, lower case. -#}
{% macro registrable_host(column) -%}
    {{ return(adapter.dispatch('registrable_host')(column)) }}
{%- endmacro %}

{% macro spark__registrable_host(column) -%}
    nullif(regexp_replace(lower(btrim({{ column }})), r'^www\.', ''), '')
{%- endmacro %}

{% macro postgres__registrable_host(column) -%}
    nullif(regexp_replace(lower(btrim({{ column }})), '^www\.', ''), '')
{%- endmacro %}
