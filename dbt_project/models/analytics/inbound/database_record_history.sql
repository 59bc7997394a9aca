with changes as (

    select * from {{ ref('fct_db_record_changes') }}

),

final as (

    select * from changes

)

select * from final
