{#- Conversions: the first event of a visit reaching each goal (a page view whose path matches
    the goal's pattern, or a named event, optionally with one property equal to a value), and
    every purchase (once per transaction id). Rebuilt on every run, so a goal edit reaches the past. -#}

with pageviews as (

    select * from {{ ref('int_events_sessionized') }}
    where event_type = 'pageview'

),

named_events as (

    select * from {{ ref('int_events_sessionized') }}
    where event_type = 'event'

),

purchase_events as (

    select * from {{ ref('int_events_sessionized') }}
    where event_name = 'purchase'

),

goals as (

    select * from {{ ref('stg_collect__goals') }}

),

sites as (

    select * from {{ ref('stg_collect__sites') }}

),

pageview_goal_hits as (

    select
        goals.goal_id,
        goals.goal_name,
        goals.goal_value,
        events.*
    from pageviews as events
    join goals
        on goals.site_id = events.site_id
       and goals.goal_kind = 'pageview'
       and events.path like goals.path_like

),

event_goal_hits as (

    select
        goals.goal_id,
        goals.goal_name,
        goals.goal_value,
        events.*
    from named_events as events
    join goals
        on goals.site_id = events.site_id
       and goals.goal_kind = 'event'
       and goals.event_name = events.event_name
    where (goals.property_name is null or events.props ->> goals.property_name = goals.property_value)

),

goal_conversions as (

    select distinct on (goal_id, visit_id)
        md5('goal/' || goal_id::text || '/' || visit_id) as conversion_id,
        site_id,
        visitor_key,
        visit_id,
        visit_start,
        occurred_at as converted_at,
        'goal' as conversion_kind,
        goal_id,
        goal_name,
        event_id,
        event_name,
        null::text as transaction_id,
        goal_value as conversion_value,
        case when goal_value is not null then sites.default_currency end as currency
    from (select * from pageview_goal_hits union all select * from event_goal_hits) as hits
    join sites using (site_id)
    order by goal_id, visit_id, occurred_at, event_id

),

purchases as (

    select distinct on (events.site_id, coalesce(events.transaction_id, events.event_id::text))
        md5('purchase/' || events.site_id::text || '/' || coalesce(events.transaction_id, events.event_id::text)) as conversion_id,
        events.site_id,
        events.visitor_key,
        events.visit_id,
        events.visit_start,
        events.occurred_at as converted_at,
        'purchase' as conversion_kind,
        null::uuid as goal_id,
        'purchase' as goal_name,
        events.event_id,
        events.event_name,
        events.transaction_id,
        events.revenue as conversion_value,
        coalesce(events.currency, sites.default_currency) as currency
    from purchase_events as events
    join sites using (site_id)
    order by events.site_id, coalesce(events.transaction_id, events.event_id::text), events.occurred_at, events.event_id

),

final as (

    select * from goal_conversions
    union all
    select * from purchases

)

select * from final
