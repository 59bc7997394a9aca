with records as (

    select * from {{ ref('dim_db_records_current') }}

),

final as (

    select * from records

)

select * from final
