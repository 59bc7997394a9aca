{#- An index for one reader of a table that dbt's `indexes` config cannot say: partial (only the
    rows that reader scans, so it costs the build little) or on an expression. Created when the
    table lacks it, under a name with the creation time: a full refresh builds the new table beside
    the old one, whose index keeps its name until the old table is dropped after the commit.
    Only PostgreSQL has them; other engines read the models without (an empty hook is skipped). -#}
{% macro reader_index(label, expression, where) -%}
    {{ return(adapter.dispatch('reader_index')(label, expression, where)) }}
{%- endmacro %}

{% macro default__reader_index(label, expression, where) -%}
{%- endmacro %}

{% macro postgres__reader_index(label, expression, where) -%}
    do $reader_index$
    begin
        if not exists (select 1 from pg_indexes
                        where schemaname = '{{ this.schema }}' and tablename = '{{ this.identifier }}'
                          and indexname like '{{ this.identifier }}\_{{ label }}\_%') then
            execute 'create index '
                || quote_ident('{{ this.identifier }}_{{ label }}_' || to_char(clock_timestamp(), 'YYYYMMDDHH24MISSUS'))
                || ' on {{ this }} ({{ expression | replace("'", "''") }}) where {{ where | replace("'", "''") }}';
        end if;
    end
    $reader_index$
{%- endmacro %}

{#- The sessionized events' indexes for the marts that the lake refreshes a few days at a time
    (pipelines/lake/tables.py): without them PostgreSQL computes these views over all history.
      scroll: scroll_depth's pages by id (the refresh names the pages scrolled on its days);
      funnel: ecommerce_funnel's visit day (pushed below its aggregates);
      purchase: the earlier purchase of the same transaction (orders and order_items keep the first). -#}
{% macro sessionized_event_reader_indexes() -%}
    {%- set statements = [
        reader_index('scroll', 'page_id', "event_name = 'scroll_depth'"),
        reader_index('funnel', "((visit_start at time zone 'UTC')::date)",
                     "event_name in ('view_item', 'add_to_cart', 'begin_checkout', 'add_payment_info', 'purchase')"),
        reader_index('purchase', 'site_id, transaction_id', "event_name = 'purchase'"),
    ] -%}
    {{ statements | map('trim') | reject('equalto', '') | join(';\n') }}
{%- endmacro %}
