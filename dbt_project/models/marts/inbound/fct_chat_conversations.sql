{{ config(materialized='view') }}

with conversations as (

    select * from {{ ref('stg_chat__conversations') }}

),

milestones as (

    select * from {{ ref('int_chat_conversation_milestones') }}

),

final as (

    select
        conversations.conversation_id,
        conversations.site_id,
        conversations.source_id,
        conversations.channel,
        conversations.contact_id,
        conversations.inbox_id,
        conversations.team_id,
        conversations.assignee_id,
        conversations.conversation_status,
        conversations.priority,
        conversations.sentiment,
        conversations.handed_off as is_handed_off,
        coalesce(milestones.created_at, conversations.first_seen_at) as created_at,
        milestones.handed_off_at,
        milestones.first_assigned_at,
        milestones.assignment_count,
        milestones.transfer_count,
        milestones.last_transferred_at,
        milestones.first_resolved_at,
        milestones.last_resolved_at,
        milestones.resolution_count,
        milestones.reopen_count,
        milestones.last_reopened_at,
        milestones.last_resolved_at is not null
            and milestones.last_resolved_at >= coalesce(milestones.last_reopened_at, milestones.last_resolved_at)
            as is_resolved,
        milestones.first_visitor_message_at,
        milestones.first_response_at,
        {{ epoch_between('milestones.first_visitor_message_at', 'milestones.first_response_at') }}
            as first_response_seconds,
        milestones.first_advisor_response_at,
        {{ epoch_between('milestones.first_visitor_message_at', 'milestones.first_advisor_response_at') }}
            as first_advisor_response_seconds,
        {{ epoch_between('coalesce(milestones.created_at, conversations.first_seen_at)', 'milestones.first_resolved_at') }}
            as seconds_to_first_resolution,
        milestones.visitor_message_count,
        milestones.agent_message_count,
        milestones.ai_message_count,
        milestones.note_count,
        case when milestones.agent_message_count + milestones.ai_message_count > 0
             then {{ share_rounded('milestones.ai_message_count', '(milestones.agent_message_count + milestones.ai_message_count)', 4) }} end as ai_share,
        milestones.undelivered_message_count,
        conversations.state_changed_at as updated_at
    from conversations
    left join milestones on milestones.conversation_id = conversations.conversation_id

)

select * from final
