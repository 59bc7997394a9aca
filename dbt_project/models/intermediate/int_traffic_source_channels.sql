{#- The channel of every traffic source seen in visits, by the site's channel rules (first
    matching rule by position). Rebuilt on every run from the rules, which are data: an edit
    reaches every past visit, which joins this table on (site, source, medium, campaign). -#}

with visits as (

    select * from {{ ref('int_visits') }}

),

rules as (

    select * from {{ ref('stg_collect__channel_rules') }}

),

source_categories as (

    select * from {{ ref('stg_collect__source_categories') }}

),

traffic_sources as (

    select distinct
        site_id,
        visit_source as source,
        visit_medium as medium,
        visit_campaign as campaign
    from visits

),

categorised as (

    -- A source is looked up as given (google.com), then by its name (google).
    select
        traffic_sources.*,
        coalesce(exact.source_category, by_name.source_category) as source_category
    from traffic_sources
    left join source_categories as exact
        on exact.source_name = traffic_sources.source
    left join source_categories as by_name
        on by_name.source_name = substring(traffic_sources.source from '([^.]+)\.[^.]+$')

),

matched as (

    select distinct on (categorised.site_id, categorised.source, categorised.medium, categorised.campaign)
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
       and staging.rule_matches(categorised.source, rules.source_pattern)
       and staging.rule_matches(categorised.medium, rules.medium_pattern)
       and staging.rule_matches(categorised.campaign, rules.campaign_pattern)
       and (rules.source_category is null or rules.source_category = categorised.source_category)
    order by categorised.site_id, categorised.source, categorised.medium, categorised.campaign,
             rules.rule_position nulls last

),

final as (

    select
        site_id,
        source,
        medium,
        campaign,
        source_category,
        coalesce(channel, 'Unassigned') as channel,
        rule_position as matched_rule_position
    from matched

)

select * from final
