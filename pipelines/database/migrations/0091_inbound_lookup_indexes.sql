-- Look-ups of the inbound models: a message's events (analytics.chat_messages filtered on one
-- message) and a conversation's state by source.
create index chat_events_message on raw.chat_events (message_id) where message_id is not null;
create index chat_conversations_source on raw.chat_conversations (source_id);
