-- Statements run for a subscription or an alert at sending time appear in the query history with
-- their own origin (under the recipient's account, as they ran).
alter table query_history drop constraint query_history_origin_check;
alter table query_history add constraint query_history_origin_check
    check (origin in ('ui', 'api', 'tool_server', 'embed', 'assistant', 'subscription'));
