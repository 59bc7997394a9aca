{#- The channel of every traffic source seen in visits, by the site's channel rules (first
    matching rule by position). The rules are data: every run decides the channel of every row
    again, so an edit reaches every past visit, which joins this table on (site, source, medium,
    campaign). The table is small (one row per distinct source, not per visit): a run reads only
    the visits int_visits built since this table's last run (built_at: new events, late ones, or a
    month rebuilt by a backfill) for sources not seen before, and checks through an index of
    int_visits that each known source still has a visit (erasure and retention remove visits). -#}

with rules as (

    select * from {{ ref('stg_collect__channel_rules') }}

),

source_categories as (

    select * from {{ ref('stg_collect__source_categories') }}

),

{#- A table built before built_at existed is rebuilt whole once (sync_all_columns adds it). -#}
{% set new_visits_only = is_incremental() and has_columns(this, ['built_at']) %}

traffic_sources as (

    select
        site_id,
        visit_source as source,
        visit_medium as medium,
        visit_campaign as campaign
    -- int_visits is read twice, each time through an index: not through a CTE, which would be
    -- materialized (a copy of every visit).
    from {{ ref('int_visits') }} as visits
    {% if new_visits_only %}
    where built_at > {{ latest_in(this, 'built_at') }}
    {% endif %}
    group by site_id, visit_source, visit_medium, visit_campaign

    {% if new_visits_only %}
    union all

    select
        known.site_id,
        known.source,
        known.medium,
        known.campaign
    from {{ this }} as known
    where exists (
        select 1
        from {{ ref('int_visits') }} as visits
        where visits.site_id = known.site_id
          and visits.visit_source = known.source
          and visits.visit_medium = known.medium
          and visits.visit_campaign is not distinct from known.campaign
    )
    {% endif %}

),

distinct_sources as (

    select
        site_id,
        source,
        medium,
        campaign
    from traffic_sources
    group by site_id, source, medium, campaign

),

categorised as (

    -- A source is looked up as given (google.com), then by its name (google).
    select
        distinct_sources.*,
        coalesce(exact.source_category, by_name.source_category) as source_category
    from distinct_sources
    left join source_categories as exact
        on exact.source_name = distinct_sources.source
    left join source_categories as by_name
        on by_name.source_name = {{ regex_capture('distinct_sources.source', '([^.]+)\.[^.]+$') }}

),

matched as (

    {% set keys = 'categorised.site_id, categorised.source, categorised.medium, categorised.campaign' %}
    {{ distinct_on_start(keys, 'rules.rule_position nulls last') }}
        categorised.site_id,
        categorised.source,
        categorised.medium,
        categorised.campaign,
        categorised.source_category,
        rules.channel,
        rules.rule_position
    from categorised
    left join rules
        on rules.site_id = categorised.site_id
       and {{ rule_matches('categorised.source', 'rules.source_pattern') }}
       and {{ rule_matches('categorised.medium', 'rules.medium_pattern') }}
       and {{ rule_matches('categorised.campaign', 'rules.campaign_pattern') }}
       and (rules.source_category is null or rules.source_category = categorised.source_category)
    {{ distinct_on_end(keys, 'rules.rule_position nulls last') }}

),

final as (

    select
        site_id,
        source,
        medium,
        campaign,
        source_category,
        coalesce(channel, 'Unassigned') as channel,
        rule_position as matched_rule_position,
        -- Every row is written on every run: the next one reads the visits built after this.
        now() as built_at
    from matched

)

select * from final
