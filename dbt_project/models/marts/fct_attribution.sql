{{ config(materialized='view') }}

{#- Credit of each touch (visit) for each conversion under six attribution models. For each
    conversion and model the credits sum to 1 and the conversion value is split in proportion. -#}

with touches as (

    select * from {{ ref('int_attribution_touches') }}

),

channels as (

    -- Joined here, at read time, not stored with the touches: a rule edit reaches every touch.
    select * from {{ ref('int_traffic_source_channels') }}

),

models as (

    select * from (values
        ('first_touch'),
        ('last_touch'),
        ('last_non_direct'),
        ('linear'),
        ('time_decay'),
        ('position_based')
    ) as models (attribution_model)

),

touch_facts as (

    select
        touches.*,
        channels.channel,
        -- The last touch that is not direct; when every touch is direct, the last touch.
        coalesce(
            {{ max_over_where('touch_number', 'not is_direct', 'partition by conversion_id') }},
            touch_count
        ) as last_non_direct_number,
        {{ half_life_weight('days_before_conversion', var('time_decay_half_life_days')) }} as decay_weight
    from touches
    left join channels
        on channels.site_id = touches.site_id
       and channels.source = touches.source
       and channels.medium = touches.medium
       and coalesce(channels.campaign, '') = coalesce(touches.campaign, '')

),

weighted as (

    select
        touch_facts.*,
        models.attribution_model,
        case models.attribution_model
            when 'first_touch' then case when touch_number = 1 then 1.0 else 0.0 end
            when 'last_touch' then case when touch_number = touch_count then 1.0 else 0.0 end
            when 'last_non_direct' then case when touch_number = last_non_direct_number then 1.0 else 0.0 end
            when 'linear' then 1.0
            when 'time_decay' then decay_weight
            when 'position_based' then
                case
                    when touch_count = 1 then 1.0
                    when touch_count = 2 then 0.5
                    when touch_number = 1 or touch_number = touch_count then 0.4
                    else 0.2 / (touch_count - 2)
                end
        end as weight
    from touch_facts
    cross join models

),

credited as (

    select
        *,
        weight / sum(weight) over (partition by conversion_id, attribution_model) as credit
    from weighted

),

final as (

    select
        conversion_id,
        site_id,
        attribution_model,
        visit_id,
        touch_number,
        touch_count,
        visit_start,
        converted_at,
        source,
        medium,
        campaign,
        coalesce(channel, 'Unassigned') as channel,
        {{ rounded_double('credit', 10) }} as credit,
        {{ rounded_double('(credit * conversion_value)', 6) }} as revenue_credit
    from credited
    where credit > 0

)

select * from final
