"""The dbt models of inbound data, built on events that went through the receivers: conversation
milestones, first response time, AI share, undelivered messages by reason, record history and
current state, exposed in `analytics` with comments and readable by analytics_reader."""
from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import uuid

import psycopg
import pytest

from pipelines.dbt_environment import DBT_PROJECT_DIR, dbt_environment, dbt_executable
from pipelines.inbound import signatures
from pipelines.key_derivation import reader_password
from pipelines.database.connection import with_user
from tests.inbound.fakes.chat_service import conversation, message
from tests.inbound.fakes.database_service import FakeDatabaseService

INBOUND_MODELS = ("path:models/staging/chat path:models/staging/database_service path:models/intermediate/inbound "
                  "path:models/marts/inbound path:models/analytics/inbound")
T0 = dt.datetime(2026, 11, 20, 9, 0, tzinfo=dt.timezone.utc)


def at(seconds: float) -> str:
    return (T0 + dt.timedelta(seconds=seconds)).isoformat()


def run_dbt(database_url: str, tmp_path, *args: str) -> None:
    env = {**os.environ, **dbt_environment(database_url)}
    result = subprocess.run([dbt_executable(), *args, "--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir",
                             str(DBT_PROJECT_DIR), "--target-path", str(tmp_path / "target"),
                             "--log-path", str(tmp_path / "logs")],
                            env=env, capture_output=True, text=True, cwd=DBT_PROJECT_DIR, timeout=600)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]


def deliver(client, source, secret, events, kind="chat"):
    body = json.dumps({"events": events}).encode()
    name = "X-Msg-Signature" if kind == "chat" else "X-Db-Signature"
    response = client.post(f"/ingest/{kind}/{source['id']}", data=body,
                           headers={name: signatures.signature_header(secret, body)})
    assert response.status_code == 202


def event(event_type, conv, msg=None, seconds=0):
    found = {"id": str(uuid.uuid4()), "type": event_type, "occurredAt": at(seconds), "conversation": conv}
    if msg is not None:
        found["message"] = msg
    return found


@pytest.mark.slow
def test_inbound_models(client, chat_source, chat_secret, db_source, db_secret, process, database_url, db, tmp_path):
    inbox_a, inbox_b = str(uuid.uuid4()), str(uuid.uuid4())
    conv = conversation(inbox_id=inbox_a)
    advisor = str(uuid.uuid4())
    undelivered = message(kind="agent", at=T0 + dt.timedelta(seconds=200), error="smtp:550")
    deliver(client, chat_source, chat_secret, [
        event("conversation.created", conv, seconds=0),
        event("message.created", conv, message(kind="visitor", at=T0 + dt.timedelta(seconds=1)), seconds=1),
        event("message.created", conv, message(kind="ai", at=T0 + dt.timedelta(seconds=31)), seconds=31),
        event("conversation.handed_off", {**conv, "handedOff": True}, message(kind="handoff"), seconds=40),
        event("conversation.assigned", {**conv, "handedOff": True, "assigneeId": advisor}, seconds=50),
        event("message.created", conv, message(kind="agent", at=T0 + dt.timedelta(seconds=100)), seconds=100),
        event("message.created", conv, message(kind="ai", at=T0 + dt.timedelta(seconds=110)), seconds=110),
        event("message.created", conv, message(kind="ai", at=T0 + dt.timedelta(seconds=120)), seconds=120),
        event("message.created", conv, undelivered, seconds=200),
        event("message.undelivered", conv, undelivered, seconds=260),
    ])
    moved = {**conv, "inboxId": inbox_b, "assigneeId": advisor, "handedOff": True}
    deliver(client, chat_source, chat_secret, [
        event("conversation.transferred", moved, seconds=300),
        event("conversation.resolved", {**moved, "status": "resolved"}, seconds=400),
        event("conversation.reopened", moved, seconds=500),
        event("conversation.resolved", {**moved, "status": "resolved"}, seconds=600),
    ])
    service = FakeDatabaseService(webhook_secret=db_secret)
    service.write("deals", "d1", at=T0, amount=10, stage="new")
    service.write("deals", "d1", at=T0 + dt.timedelta(seconds=5), amount=25)
    service.write("deals", "d2", at=T0 + dt.timedelta(seconds=6), amount=1)
    service.delete("deals", "d2")
    deliver(client, db_source, db_secret, service.events, kind="db")
    process()

    run_dbt(database_url, tmp_path, "build", "--select", *INBOUND_MODELS.split())

    with db.cursor(row_factory=psycopg.rows.dict_row) as cur:
        row = cur.execute("select * from analytics.chat_conversations").fetchone()
        assert row["inbox_id"] == inbox_b and row["transfer_count"] == 1
        assert row["created_at"] == T0 + dt.timedelta(seconds=0)
        assert row["handed_off_at"] == T0 + dt.timedelta(seconds=40)
        assert row["first_assigned_at"] == T0 + dt.timedelta(seconds=50)
        assert row["first_response_seconds"] == 30 and row["first_advisor_response_seconds"] == 99
        assert (row["resolution_count"], row["reopen_count"], row["is_resolved"]) == (2, 1, True)
        assert row["ai_message_count"] == 3 and row["agent_message_count"] == 2
        assert float(row["ai_share"]) == 0.6
        assert row["undelivered_message_count"] == 1
        reasons = cur.execute("select provider, reason_code, undelivered_messages from analytics.chat_undelivered_messages").fetchall()
        assert reasons == [{"provider": "smtp", "reason_code": "550", "undelivered_messages": 1}]
        assert cur.execute("select count(*) as n from analytics.chat_messages").fetchone()["n"] == 7
        history = cur.execute("""select record_id, change_type, changed_fields, row_before->>'amount' as before,
                                        row_after->>'amount' as after, version_number
                                   from analytics.database_record_history order by record_id, version_number""").fetchall()
        assert [(h["record_id"], h["change_type"], h["before"], h["after"]) for h in history] == [
            ("d1", "record.created", None, "10"), ("d1", "record.updated", "10", "25"),
            ("d2", "record.created", None, "1"), ("d2", "record.deleted", "1", None)]
        assert history[1]["changed_fields"] == ["amount"]
        current = cur.execute("select record_id, row_data->>'amount' as amount from analytics.database_records_current").fetchall()
        assert current == [{"record_id": "d1", "amount": "25"}]

    comments = dict(db.execute("""select c.relname, obj_description(c.oid) from pg_class c
                                   join pg_namespace n on n.oid = c.relnamespace
                                  where n.nspname = 'analytics' and c.relname in
                                        ('chat_conversations', 'chat_messages', 'chat_undelivered_messages',
                                         'database_record_history', 'database_records_current')""").fetchall())
    assert len(comments) == 5 and all(comments.values())
    column_comment = db.execute("""select col_description('analytics.chat_conversations'::regclass, a.attnum)
                                    from pg_attribute a where a.attrelid = 'analytics.chat_conversations'::regclass
                                     and a.attname = 'ai_share'""").fetchone()[0]
    assert "AI" in column_comment

    reader_url = with_user(database_url, "analytics_reader", reader_password(_settings_like(database_url)))
    with psycopg.connect(reader_url) as reader:
        assert reader.execute("select count(*) from analytics.chat_conversations").fetchone()[0] == 1
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            reader.execute("select count(*) from raw.chat_events")


def _settings_like(database_url):
    from pathlib import Path
    from pipelines.settings import Settings
    from tests.conftest import TEST_SECRET
    return Settings(home=Path("/nonexistent"), database_url=database_url, server_secret_value=TEST_SECRET)
