"""The Dagster asset that processes the inbound inbox, materialized in process on the test database."""
from __future__ import annotations

import json
import uuid

from dagster import materialize

from orchestration.defs.inbound.assets import inbound_inbox_processing
from orchestration.defs.resources import Warehouse
from pipelines.inbound import signatures
from tests.inbound.fakes.chat_service import conversation


def test_asset_processes_waiting_deliveries(client, chat_source, chat_secret, settings, db):
    events = [{"id": str(uuid.uuid4()), "type": "conversation.created", "occurredAt": "2026-11-21T10:00:00Z",
               "conversation": conversation()} for _ in range(3)]
    body = json.dumps({"events": events + events[:1]}).encode()
    assert client.post(f"/ingest/chat/{chat_source['id']}", data=body,
                       headers={"X-Msg-Signature": signatures.signature_header(chat_secret, body)}).status_code == 202
    result = materialize([inbound_inbox_processing],
                         resources={"warehouse": Warehouse(home=str(settings.home), database_url=settings.database_url)})
    assert result.success
    assert db.execute("select count(*) from raw.chat_events").fetchone()[0] == 3
    metadata = result.asset_materializations_for_node("inbound_inbox_processing")[0].metadata
    assert metadata["new_events"].value == 3 and metadata["duplicates"].value == 1
