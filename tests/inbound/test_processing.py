"""Processing: deduplication, per-conversation and per-row order, transfers, pings, and the fake
senders' behaviour (batches, retries on the receiver's answers, duplicates) end to end."""
from __future__ import annotations

import datetime as dt
import json
import threading
import uuid

import psycopg
import requests

from pipelines.inbound import signatures
from pipelines.inbound.processing import process_pending
from tests.inbound.fakes.chat_service import FakeChatWebhookSender, conversation, message
from tests.inbound.fakes.database_service import FakeDatabaseService

T0 = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.timezone.utc)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def send(client, source, secret, events, kind="chat"):
    body = json.dumps({"events": events}, separators=(",", ":")).encode()
    name = "X-Msg-Signature" if kind == "chat" else "X-Db-Signature"
    response = client.post(f"/ingest/{kind}/{source['id']}", data=body,
                           headers={name: signatures.signature_header(secret, body), "X-Msg-Delivery-Id": str(uuid.uuid4())})
    assert response.status_code == 202, response.get_data()
    return response


def chat_event(event_type, conv, msg=None, *, seconds=0.0, event_id=None):
    event = {"id": event_id or str(uuid.uuid4()), "type": event_type, "occurredAt": at(seconds).isoformat(),
             "conversation": conv}
    if msg is not None:
        event["message"] = msg
    return event


def conversation_state(db, conversation_id):
    return db.execute("""select inbox_id, status, assignee_id, state_event_type from raw.chat_conversations
                          where conversation_id = %s""", (conversation_id,)).fetchone()


def test_answer_first_process_afterwards(client, chat_source, chat_secret, db, process):
    conv = conversation()
    send(client, chat_source, chat_secret, [chat_event("conversation.created", conv)])
    assert db.execute("select count(*) from raw.chat_events").fetchone()[0] == 0
    report = process()
    assert report.deliveries == 1 and report.inserted == 1
    processed, body = db.execute("select processed_at, body from raw.inbound_inbox").fetchone()
    assert processed is not None and body is None  # the raw body (with personal texts) is not kept


def test_personal_texts_are_not_kept(client, chat_source, chat_secret, db, process):
    conv = conversation()
    send(client, chat_source, chat_secret, [chat_event("message.created", conv, message(body="my card is 4111 1111 1111 1111"))])
    process()
    stored = db.execute("select conversation::text, message::text, message_length, attachment_count from raw.chat_events").fetchone()
    # With its spaces the card number cannot turn up by chance in an id or a timestamp.
    for secret_text in ("Ada Lovelace", "ada@example.org", "4111 1111", "Hello, my order", "sig="):
        assert secret_text not in stored[0] + stored[1]
    assert stored[2] == len("my card is 4111 1111 1111 1111") and stored[3] == 1


def test_duplicates_across_deliveries_and_inside_one_batch(client, chat_source, chat_secret, db, process):
    conv = conversation()
    first = chat_event("message.created", conv, message(), seconds=1)
    second = chat_event("message.created", conv, message(kind="agent"), seconds=2)
    send(client, chat_source, chat_secret, [first, first, second])
    send(client, chat_source, chat_secret, [second, first])
    report = process()
    assert report.inserted == 2 and report.duplicates == 3
    assert db.execute("select count(*) from raw.chat_events").fetchone()[0] == 2


def test_late_duplicate_and_out_of_order_never_roll_back(client, chat_source, chat_secret, db, process):
    conv = conversation(status="open")
    created = chat_event("conversation.created", conv, seconds=0)
    resolved = chat_event("conversation.resolved", {**conv, "status": "resolved"}, seconds=10)
    send(client, chat_source, chat_secret, [resolved])
    process()
    # Out of order: an older event arrives after a newer one.
    send(client, chat_source, chat_secret, [created])
    process()
    assert conversation_state(db, conv["id"])[1:] == ("resolved", None, "conversation.resolved")
    # A late duplicate of the older one, and of the newest: nothing moves.
    send(client, chat_source, chat_secret, [created, resolved])
    process()
    assert conversation_state(db, conv["id"])[3] == "conversation.resolved"
    first_seen = db.execute("select first_seen_at from raw.chat_conversations").fetchone()[0]
    assert first_seen == at(0)


def test_transfer_moves_the_conversation_to_its_new_inbox(client, chat_source, chat_secret, db, process):
    inbox_a, inbox_b = str(uuid.uuid4()), str(uuid.uuid4())
    conv = conversation(inbox_id=inbox_a)
    send(client, chat_source, chat_secret, [chat_event("conversation.created", conv, seconds=0),
                                             chat_event("message.created", conv, message(), seconds=1)])
    moved = {**conv, "inboxId": inbox_b}
    transfer = chat_event("conversation.transferred", moved, seconds=5)
    send(client, chat_source, chat_secret, [transfer])
    # A delayed message event still naming the old inbox must not move it back.
    send(client, chat_source, chat_secret, [chat_event("message.created", conv, message(), seconds=3)])
    process()
    assert conversation_state(db, conv["id"])[0] == inbox_b


def test_ping_is_recorded_only(client, chat_source, chat_secret, db, process):
    ping = {"id": str(uuid.uuid4()), "type": "webhook.ping", "occurredAt": at(0).isoformat(),
            "webhook": {"id": str(uuid.uuid4()), "label": "Analytics"}}
    send(client, chat_source, chat_secret, [ping])
    process()
    assert db.execute("select event_type, webhook_id is not null from raw.chat_events").fetchall() == [("webhook.ping", True)]
    assert db.execute("select count(*) from raw.chat_conversations").fetchone()[0] == 0


def test_concurrent_duplicates_are_ingested_once(live_url, chat_source, chat_secret, database_url, db):
    conv = conversation()
    events = [chat_event("message.created", conv, message(), seconds=i) for i in range(50)]
    body = json.dumps({"events": events}).encode()

    def deliver():
        for _ in range(3):
            response = requests.post(f"{live_url}/ingest/chat/{chat_source['id']}", data=body,
                                     headers={"X-Msg-Signature": signatures.signature_header(chat_secret, body)},
                                     timeout=10)
            assert response.status_code == 202

    threads = [threading.Thread(target=deliver) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Four processors at once, as gunicorn workers and Dagster would be.
    def work():
        with psycopg.connect(database_url) as conn:
            process_pending(conn, batch=1)
    processors = [threading.Thread(target=work) for _ in range(4)]
    for thread in processors:
        thread.start()
    for thread in processors:
        thread.join()
    assert db.execute("select count(*), count(distinct event_id) from raw.chat_events").fetchone() == (50, 50)
    assert db.execute("select count(*) from raw.inbound_inbox where processed_at is null").fetchone()[0] == 0
    assert conversation_state(db, conv["id"]) is not None
    assert db.execute("select state_at from raw.chat_conversations").fetchone()[0] == at(49)


def test_fake_sender_batches_retries_and_keeps_conversation_order(live_url, chat_source, chat_secret, db, process,
                                                                   database_url):
    sender = FakeChatWebhookSender(f"{live_url}/ingest/chat/{chat_source['id']}", chat_secret, duplicate_every=2,
                                   max_batch=50)
    convs = [conversation() for _ in range(3)]
    for step in range(40):
        conv = convs[step % 3]
        sender.emit("message.created", conv, message(kind="visitor" if step % 2 else "agent"), occurred_at=at(step))
    sender.run_until_idle()
    assert sender.states() == {"delivered": 40}
    for call in sender.calls:
        events = json.loads(call.body)["events"]
        assert 1 <= len(events) <= 50
        assert call.headers["User-Agent"] == "msg-webhook/1"
    process()
    assert db.execute("select count(*) from raw.chat_events").fetchone()[0] == 40


def test_fake_sender_retries_on_503_then_delivers_in_order(app, chat_source, chat_secret, db, process):
    """Storage down: the receiver answers 503 with Retry-After; the sender retries on its schedule
    (honouring the longer Retry-After), keeps the conversation's order, and nothing is lost."""
    client = app.test_client()
    down = {"calls": 2}

    def post(body, headers):
        if down["calls"] > 0:
            down["calls"] -= 1
            return 503, {"Retry-After": "30"}
        response = client.post(f"/ingest/chat/{chat_source['id']}", data=body, headers=headers)
        return response.status_code, dict(response.headers)

    sender = FakeChatWebhookSender("unused", chat_secret, post=post, max_batch=2)
    conv = conversation()
    other = conversation()
    for i in range(4):
        sender.emit("message.created", conv, message(), occurred_at=at(i))
    sender.emit("conversation.created", other, occurred_at=at(10))
    sender.run_until_idle()
    assert sender.states() == {"delivered": 5}
    assert [c.status for c in sender.calls][:2] == [503, 503]
    # The first retry waited at least the Retry-After (30 s > 10 s +- 20 %).
    assert sender.now >= 30
    order = [eid for call in sender.calls if call.status == 202 for eid in call.event_ids]
    conv_ids = [d.event["id"] for d in sender.deliveries if d.conversation_id == conv["id"]]
    assert [e for e in order if e in conv_ids] == conv_ids
    process()
    assert db.execute("select count(*) from raw.chat_events").fetchone()[0] == 5


def test_fake_sender_gives_up_on_4xx_without_retry(chat_source, chat_secret):
    sender = FakeChatWebhookSender("unused", "whsec_wrong_secret_here", post=lambda body, headers: (401, {}))
    sender.emit("conversation.created", conversation())
    sender.run_until_idle()
    assert sender.states() == {"failed": 1} and len(sender.calls) == 1


def test_fake_sender_fails_after_the_8th_retry():
    sender = FakeChatWebhookSender("unused", "whsec_x", post=lambda body, headers: (500, {}))
    sender.emit("conversation.created", conversation())
    sender.run_until_idle()
    assert sender.states() == {"failed": 1} and len(sender.calls) == 9
    assert sender.now > 86400  # a little over a day after the first attempt


def test_database_events_dedup_and_row_order(client, db_source, db_secret, db, process):
    service = FakeDatabaseService(webhook_secret=db_secret)
    row = service.write("deals", "r1", amount=10, stage="new", at=at(1))
    service.write("deals", "r1", amount=20, at=at(2))
    service.write("deals", "r1", stage="won", at=at(3))
    events = service.events
    send(client, db_source, db_secret, events[2:], kind="db")  # the newest first
    send(client, db_source, db_secret, events[:2] + events[:1], kind="db")  # late, with a duplicate
    report = process()
    assert report.inserted == 3 and report.duplicates == 1
    data, deleted = db.execute("select row_data, deleted from raw.db_rows where record_id = 'r1'").fetchone()
    assert data["amount"] == 20 and data["stage"] == "won" and not deleted
    service.delete("deals", "r1")
    send(client, db_source, db_secret, service.events[3:], kind="db")
    process()
    assert db.execute("select deleted, row_data from raw.db_rows").fetchone() == (True, None)
    changed = db.execute("select changed from raw.db_events where event_type = 'record.updated' order by occurred_at").fetchall()
    assert changed == [(["amount"],), (["stage"],)]
    assert row["id"] == "r1"


def test_a_broken_delivery_does_not_block_the_others(client, chat_source, chat_secret, db, process, database_url):
    conv = conversation()
    send(client, chat_source, chat_secret, [chat_event("conversation.created", conv)])
    # A delivery that verified but that processing cannot store (NUL in an id reaches no table).
    db.execute("""insert into raw.inbound_inbox (source_id, source_kind, body, event_count)
                  values (%s, 'chat_webhook', %s, 1)""",
               (chat_source["id"], json.dumps({"events": [{"id": "x", "type": "message.created",
                                                         "occurredAt": 5}]}).encode()[:-3]))
    send(client, chat_source, chat_secret, [chat_event("conversation.resolved", conv, seconds=5)])
    report = process()
    assert report.failed == 1 and report.deliveries == 2
    assert db.execute("select count(*) from raw.chat_events").fetchone()[0] == 2
    assert db.execute("select last_error is not null from raw.inbound_inbox where processed_at is null").fetchone() == (True,)


def test_background_worker_processes_after_answering(settings, chat_source, chat_secret, db):
    import time
    from collector_app.app import create_app
    from collector_app.database import close_pool
    from collector_app.inbound_api import worker
    app = create_app(settings)
    try:
        conv = conversation()
        send(app.test_client(), chat_source, chat_secret, [chat_event("conversation.created", conv)])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if db.execute("select count(*) from raw.chat_events").fetchone()[0] == 1:
                break
            time.sleep(0.05)
        assert db.execute("select count(*) from raw.chat_events").fetchone()[0] == 1
    finally:
        worker.stop(app)
        close_pool(app)


def test_nul_characters_are_dropped_not_fatal(client, chat_source, chat_secret, db, process):
    conv = conversation()
    conv["channel"] = "web\u0000chat"
    conv["tags"] = [{"label": "a\u0000b", "color": "#000000", "byAi": False}]
    send(client, chat_source, chat_secret, [chat_event("conversation.created", conv)])
    report = process()
    assert report.failed == 0 and report.inserted == 1
    assert db.execute("select channel, conversation->'tags'->0->>'label' from raw.chat_events").fetchone() == ("webchat", "ab")


def test_storage_failing_at_the_write_is_503_and_the_sender_retries(live_url, chat_source, chat_secret, db, process,
                                                                      monkeypatch):
    """The database fails while the delivery is written: 503 with Retry-After over real HTTP, the
    fake sender retries on its schedule, and every event lands once, in order per conversation."""
    from pipelines.inbound import inbox
    real_store = inbox.store_delivery
    failures = {"left": 2}

    def failing_store(*args, **kwargs):
        if failures["left"] > 0:
            failures["left"] -= 1
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return real_store(*args, **kwargs)

    monkeypatch.setattr(inbox, "store_delivery", failing_store)
    sender = FakeChatWebhookSender(f"{live_url}/ingest/chat/{chat_source['id']}", chat_secret, max_batch=3)
    conv = conversation()
    for i in range(6):
        sender.emit("message.created", conv, message(), occurred_at=at(i))
    sender.run_until_idle()
    assert [c.status for c in sender.calls][:2] == [503, 503]
    assert sender.states() == {"delivered": 6}
    assert sender.now >= 30  # the Retry-After (30 s) outweighed the 10 s step of the schedule
    process()
    stored = [r[0] for r in db.execute("select event_id from raw.chat_events order by occurred_at")]
    assert stored == [d.event["id"] for d in sender.deliveries]
