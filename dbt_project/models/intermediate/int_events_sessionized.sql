{#- Every event with its visit: the shards' rows, read in place (see macros/sessionization.sql).
    A view, not tagged `partitioned`: the 15-minute build leaves views alone, and rebuilding this
    one would drop the views that read it (dbt drops a replaced view with its dependents). -#}
{{ config(materialized='view') }}

{% for shard in sessionized_event_shards() %}
select * from {{ shard }}
{% if not loop.last %}union all{% endif %}
{%- endfor %}
