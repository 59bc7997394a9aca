with conversations as (

    select * from {{ ref('fct_chat_conversations') }}

),

final as (

    select * from conversations

)

select * from final
