{#- A campaign parameter value as analysts expect it: percent-decoded, `+` as a space, trimmed,
    inner whitespace collapsed, lower case; empty and placeholder values become null. -#}
{% macro normalise_campaign_value(column) -%}
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

{#- A host name without its `www.` prefix, lower case. -#}
{% macro registrable_host(column) -%}
    nullif(regexp_replace(lower(btrim({{ column }})), '^www\.', ''), '')
{%- endmacro %}

{#- A goal path pattern (`*` matches any characters) as a LIKE pattern. -#}
{% macro path_pattern_to_like(column) -%}
    replace(replace(replace(replace({{ column }}, '\', '\\'), '%', '\%'), '_', '\_'), '*', '%')
{%- endmacro %}
