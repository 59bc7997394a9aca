with source as (

    select * from {{ source('collect', 'zones') }}

),

final as (

    select
        site_id,
        name as zone_name,
        selector as zone_selector,
        label as zone_label
    from source

)

select * from final
