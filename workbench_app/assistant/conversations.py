"""Conversations with the assistant, private to their owner.

Every read and change filters on the owner's id: anyone else, administrators included, gets the
same 404 as for a conversation that does not exist. Deleting removes the rows (messages with it).
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from workbench_app.errors import not_found

TITLE_LENGTH = 200
_COLUMNS = "conversation_id, title, created_at, updated_at"


def create(conn: psycopg.Connection, user_id: int, title: str) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(f"insert into assistant_conversations (user_id, title) values (%s, %s) returning {_COLUMNS}",
                           (user_id, title[:TITLE_LENGTH])).fetchone()


def list_own(conn: psycopg.Connection, user_id: int) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(f"select {_COLUMNS} from assistant_conversations where user_id = %s "
                           "order by updated_at desc, conversation_id desc", (user_id,)).fetchall()


def get_own(conn: psycopg.Connection, user_id: int, conversation_id: int, *, lock: bool = False) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        found = cur.execute(f"select {_COLUMNS} from assistant_conversations where conversation_id = %s "
                            f"and user_id = %s{' for update' if lock else ''}", (conversation_id, user_id)).fetchone()
    if found is None:
        raise not_found("Conversation")
    return found


def rename(conn: psycopg.Connection, user_id: int, conversation_id: int, title: str) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        found = cur.execute(f"update assistant_conversations set title = %s, updated_at = now() "
                            f"where conversation_id = %s and user_id = %s returning {_COLUMNS}",
                            (title[:TITLE_LENGTH], conversation_id, user_id)).fetchone()
    if found is None:
        raise not_found("Conversation")
    return found


def delete(conn: psycopg.Connection, user_id: int, conversation_id: int) -> None:
    deleted = conn.execute("delete from assistant_conversations where conversation_id = %s and user_id = %s",
                           (conversation_id, user_id)).rowcount
    if not deleted:
        raise not_found("Conversation")


def add_message(conn: psycopg.Connection, conversation_id: int, role: str, content: str = "", *,
                tool_calls: list | None = None, tool_call_id: str | None = None, artifacts: list | None = None,
                error: dict | None = None) -> dict[str, Any]:
    conn.execute("update assistant_conversations set updated_at = now() where conversation_id = %s",
                 (conversation_id,))
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            """insert into assistant_messages (conversation_id, role, content, tool_calls, tool_call_id, artifacts, error)
               values (%s, %s, %s, %s, %s, %s, %s)
               returning message_id, role, content, artifacts, error, created_at""",
            (conversation_id, role, content, Jsonb(tool_calls) if tool_calls else None, tool_call_id,
             Jsonb(artifacts or []), Jsonb(error) if error else None)).fetchone()


def provider_messages(conn: psycopg.Connection, conversation_id: int) -> list[dict[str, Any]]:
    """The exchange so far in the Chat Completions format (failed turns left out)."""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute("""select role, content, tool_calls, tool_call_id, error from assistant_messages
                              where conversation_id = %s order by message_id""", (conversation_id,)).fetchall()
    messages = []
    for row in rows:
        if row["error"] is not None and row["role"] == "assistant" and not row["content"] and not row["tool_calls"]:
            continue
        message: dict[str, Any] = {"role": row["role"], "content": row["content"]}
        if row["tool_calls"]:
            message["tool_calls"] = row["tool_calls"]
        if row["tool_call_id"]:
            message["tool_call_id"] = row["tool_call_id"]
        messages.append(message)
    return messages


def shown_messages(conn: psycopg.Connection, conversation_id: int) -> list[dict[str, Any]]:
    """What the person sees: their messages and the assistant's answers (tool results left out)."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute("""select message_id, role, content, artifacts, error, created_at from assistant_messages
                              where conversation_id = %s and role <> 'tool'
                                and not (role = 'assistant' and content = '' and error is null
                                         and artifacts = '[]'::jsonb)
                              order by message_id""", (conversation_id,)).fetchall()
