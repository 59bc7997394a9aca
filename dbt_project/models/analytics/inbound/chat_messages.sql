with messages as (

    select * from {{ ref('fct_chat_messages') }}

),

final as (

    select * from messages

)

select * from final
