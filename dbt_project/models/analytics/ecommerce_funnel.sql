with fct_ecommerce_funnel as (

    select * from {{ ref('fct_ecommerce_funnel') }}

),

final as (

    select
        site_id,
        visit_date,
        step_number,
        step_name,
        visits_reaching_step,
        visits_with_previous_steps
    from fct_ecommerce_funnel

)

select * from final
