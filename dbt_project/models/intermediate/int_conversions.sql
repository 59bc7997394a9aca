-- depends_on: {{ ref('int_visits') }}
{{
    config(
        materialized=incremental_materialization(by_day=true),
        incremental_strategy=day_partitioned_strategy('conversion_replace'),
        partition_by=day_partition_by('visit_day'),
        pre_hook="{{ day_partitions_prepare('visit_day') }}",
        post_hook="{{ day_partitions_done() }}",
        indexes=[
            {'columns': ['conversion_id'], 'unique': True},
            {'columns': ['site_id', 'visitor_key', 'visit_start']},
            {'columns': ['built_at']},
        ],
    )
}}

{#- Conversions: the first event of a visit reaching each goal (a page view whose path matches
    the goal's pattern, or a named event, optionally with one property equal to a value), and
    every purchase (once per transaction id: its first event).

    Incremental: a run recomputes the conversions of the visits int_visits built since this
    table's latest row (conversion_visits_in_scope), and the strategy conversion_replace
    (macros/incremental_strategies.sql) replaces the old conversions of those visits. When the
    goals changed (goals_fingerprint, the same on every row), or on a full build, every conversion
    is recomputed: a goal edit reaches the past. A purchase whose transaction already has an
    earlier conversion outside the recomputed visits is not counted again. -#}

{% set recompute_all = conversions_recompute_all() %}
{#- Every event is read where it is used, not through a CTE: read three times, a CTE would be
    materialized, a copy of the whole table. The events of the visits in scope are few. -#}
{% set scoped_events = events_of_rebuilt_days(ref('int_events_sessionized')) if recompute_all else 'scoped_events' %}
{#- Purchases are counted once per transaction, at its first event: looked up among every event. -#}
{% set purchase_events = ref('int_events_sessionized') if recompute_all else 'scoped_events' %}

with

{% if not recompute_all %}

scope_visits as (

    select * from {{ conversion_visits_in_scope() }}

),

scoped_events as (

    -- The events of the visits in scope, through the (site_id, visitor_key, visit_start) index.
    select events.*
    from scope_visits
    join {{ ref('int_events_sessionized') }} as events
        on events.site_id = scope_visits.site_id
       and events.visitor_key = scope_visits.visitor_key
       and events.visit_start = scope_visits.visit_start

),

{% endif %}

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
    from {{ scoped_events }} as events
    join goals
        on goals.site_id = events.site_id
       and goals.goal_kind = 'pageview'
       and events.path like goals.path_like
    where events.event_type = 'pageview'

),

event_goal_hits as (

    select
        goals.goal_id,
        goals.goal_name,
        goals.goal_value,
        events.*
    from {{ scoped_events }} as events
    join goals
        on goals.site_id = events.site_id
       and goals.goal_kind = 'event'
       and goals.event_name = events.event_name
    where events.event_type = 'event'
      and (goals.property_name is null or {{ json_text_by_key_column('events.props', 'goals.property_name') }} = goals.property_value)

),

goal_conversions as (

    {{ distinct_on_start('goal_id, visit_id', 'occurred_at, event_id') }}
        md5('goal/' || {{ text_of('goal_id') }} || '/' || visit_id) as conversion_id,
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
        {{ null_of('text') }} as transaction_id,
        goal_value as conversion_value,
        case when goal_value is not null then sites.default_currency end as currency
    from (select * from pageview_goal_hits union all select * from event_goal_hits) as hits
    join sites using (site_id)
    {{ distinct_on_end('goal_id, visit_id', 'occurred_at, event_id') }}

),

purchase_candidates as (

    {% set purchase_key = 'events.site_id, coalesce(events.transaction_id, ' ~ text_of('events.event_id') ~ ')' %}
    {{ distinct_on_start(purchase_key, 'events.occurred_at, events.event_id') }}
        md5('purchase/' || {{ text_of('events.site_id') }} || '/' || coalesce(events.transaction_id, {{ text_of('events.event_id') }})) as conversion_id,
        events.site_id,
        events.visitor_key,
        events.visit_id,
        events.visit_start,
        events.occurred_at as converted_at,
        'purchase' as conversion_kind,
        {{ null_of('uuid') }} as goal_id,
        'purchase' as goal_name,
        events.event_id,
        events.event_name,
        events.transaction_id,
        events.revenue as conversion_value,
        coalesce(events.currency, sites.default_currency) as currency
    from {{ purchase_events }} as events
    join sites using (site_id)
    where events.event_name = 'purchase'
    {{ distinct_on_end(purchase_key, 'events.occurred_at, events.event_id') }}

),

purchases as (

    select purchase_candidates.*
    from purchase_candidates
    {% if not recompute_all %}
    -- The transaction's conversion in a visit out of scope stays when it is the earlier one (the
    -- strategy deletes it when this one replaces it).
    left join {{ this }} as kept
        on kept.conversion_id = purchase_candidates.conversion_id
       and not exists (
           select 1 from scope_visits
           where scope_visits.site_id = kept.site_id
             and scope_visits.visitor_key = kept.visitor_key
             and kept.visit_start between scope_visits.visit_start and scope_visits.visit_end
       )
    where kept.conversion_id is null
       or (purchase_candidates.converted_at, purchase_candidates.event_id) < (kept.converted_at, kept.event_id)
    {% endif %}

),

final as (

    select
        conversions.*,
        (select goals_fingerprint from {{ goals_fingerprint() }}) as goals_fingerprint,
        now() as built_at{{ day_partition_column('conversions.visit_start', 'visit_day') }}
    from (
        select * from goal_conversions
        union all
        select * from purchases
    ) as conversions
    {{- rebuilt_days_filter('conversions.visit_start') }}

)

select * from final
