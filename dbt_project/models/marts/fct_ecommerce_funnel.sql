{{ config(materialized='view') }}

{#- Visits reaching each step of the e-commerce funnel, per site and day of visit start. -#}

with events as (

    select * from {{ ref('int_events_sessionized') }}
    where event_name in ('view_item', 'add_to_cart', 'begin_checkout', 'add_payment_info', 'purchase')

),

steps as (

    select * from (values
        (1, 'view_item'),
        (2, 'add_to_cart'),
        (3, 'begin_checkout'),
        (4, 'add_payment_info'),
        (5, 'purchase')
    ) as steps (step_number, step_name)

),

visit_steps as (

    select distinct
        events.site_id,
        events.visit_id,
        {{ utc_date('events.visit_start') }} as visit_date,
        steps.step_number
    from events
    join steps on steps.step_name = events.event_name

),

visit_progress as (

    -- The steps each visit reached.
    select
        site_id,
        visit_id,
        visit_date,
        {{ sorted_array_agg('step_number') }} as reached
    from visit_steps
    group by site_id, visit_id, visit_date

),

final as (

    select
        visit_progress.site_id,
        visit_progress.visit_date,
        steps.step_number,
        steps.step_name,
        count(*) filter (where {{ array_has('visit_progress.reached', 'steps.step_number') }}) as visits_reaching_step,
        count(*) filter (
            where {{ array_has_one_to('visit_progress.reached', 'steps.step_number') }}
        ) as visits_with_previous_steps
    from visit_progress
    cross join steps
    group by visit_progress.site_id, visit_progress.visit_date, steps.step_number, steps.step_name

)

select * from final
