{{ config(materialized='view') }}

{#- Per conversation: when each milestone happened, and its message figures. The first response
    is the first advisor or AI message after the first visitor message. -#}

with events as (

    select * from {{ ref('stg_chat__events') }}
    where conversation_id is not null

),

messages as (

    select * from {{ ref('int_chat_messages') }}
    where not is_deleted

),

milestones as (

    select
        conversation_id,
        min(occurred_at) as first_event_at,
        min(occurred_at) filter (where event_type = 'conversation.created') as created_at,
        min(occurred_at) filter (where event_type = 'conversation.handed_off') as handed_off_at,
        min(occurred_at) filter (where event_type = 'conversation.assigned' and assignee_id is not null) as first_assigned_at,
        count(*) filter (where event_type = 'conversation.assigned') as assignment_count,
        min(occurred_at) filter (where event_type = 'conversation.transferred') as first_transferred_at,
        max(occurred_at) filter (where event_type = 'conversation.transferred') as last_transferred_at,
        count(*) filter (where event_type = 'conversation.transferred') as transfer_count,
        min(occurred_at) filter (where event_type = 'conversation.resolved') as first_resolved_at,
        max(occurred_at) filter (where event_type = 'conversation.resolved') as last_resolved_at,
        count(*) filter (where event_type = 'conversation.resolved') as resolution_count,
        max(occurred_at) filter (where event_type = 'conversation.reopened') as last_reopened_at,
        count(*) filter (where event_type = 'conversation.reopened') as reopen_count
    from events
    group by conversation_id

),

first_visitor as (

    select conversation_id, min(written_at) as first_visitor_message_at
    from messages
    where message_kind = 'visitor'
    group by conversation_id

),

message_figures as (

    select
        m.conversation_id,
        count(*) filter (where m.message_kind = 'visitor') as visitor_message_count,
        count(*) filter (where m.message_kind = 'agent') as agent_message_count,
        count(*) filter (where m.message_kind = 'ai') as ai_message_count,
        count(*) filter (where m.message_kind = 'note') as note_count,
        count(*) filter (where m.is_undelivered) as undelivered_message_count,
        min(m.written_at) filter (where m.message_kind in ('agent', 'ai')
                                   and m.written_at >= f.first_visitor_message_at) as first_response_at,
        min(m.written_at) filter (where m.message_kind = 'agent'
                                   and m.written_at >= f.first_visitor_message_at) as first_advisor_response_at
    from messages as m
    left join first_visitor as f on f.conversation_id = m.conversation_id
    group by m.conversation_id

),

final as (

    select
        milestones.*,
        first_visitor.first_visitor_message_at,
        coalesce(message_figures.visitor_message_count, 0) as visitor_message_count,
        coalesce(message_figures.agent_message_count, 0) as agent_message_count,
        coalesce(message_figures.ai_message_count, 0) as ai_message_count,
        coalesce(message_figures.note_count, 0) as note_count,
        coalesce(message_figures.undelivered_message_count, 0) as undelivered_message_count,
        message_figures.first_response_at,
        message_figures.first_advisor_response_at
    from milestones
    left join first_visitor on first_visitor.conversation_id = milestones.conversation_id
    left join message_figures on message_figures.conversation_id = milestones.conversation_id

)

select * from final
