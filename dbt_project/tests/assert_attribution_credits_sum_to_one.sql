-- For each conversion and attribution model, the credits of its touches sum to 1 and the
-- revenue credited sums to the conversion value.
--
-- An asset check of int_conversions in Dagster: a singular test over two models names the one it
-- checks, else Dagster logs it as an observation with a warning at every build. int_conversions,
-- not the fct_attribution view, since the 15-minute build refreshes int_conversions (and the
-- attribution it feeds) without selecting the view, and a check runs with the asset it is on.
{{ config(meta={'dagster': {'ref': {'name': 'int_conversions'}}}) }}
with attribution as (

    select * from {{ ref('fct_attribution') }}

),

conversions as (

    select * from {{ ref('int_conversions') }}

),

totals as (

    select
        conversion_id,
        attribution_model,
        sum(credit) as total_credit,
        sum(revenue_credit) as total_revenue_credit
    from attribution
    group by conversion_id, attribution_model

),

final as (

    select totals.*, conversions.conversion_value
    from totals
    join conversions using (conversion_id)
    where abs(totals.total_credit - 1) > 0.000001
       or abs(coalesce(totals.total_revenue_credit, 0) - coalesce(conversions.conversion_value, 0)) > 0.01

)

select * from final
