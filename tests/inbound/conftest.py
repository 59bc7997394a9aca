"""Fixtures of the inbound tests: the collector app, a live HTTP server of it, configured sources."""
from __future__ import annotations

import threading
import uuid

import psycopg
import pytest
from werkzeug.serving import make_server

from collector_app.app import create_app
from collector_app.database import close_pool
from collector_app.inbound_api import worker
from pipelines.admin import admin_tokens
from pipelines.inbound import sources
from pipelines.inbound.processing import process_pending
from tests.inbound.fakes.chat_service import new_secret


@pytest.fixture
def app(settings):
    application = create_app(settings)
    # Tests process the inbox themselves, when they choose; one test runs the worker.
    application.config["INBOUND_PROCESS_IN_BACKGROUND"] = False
    yield application
    worker.stop(application)
    close_pool(application)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def live_url(app):
    """The collector served over real HTTP on 127.0.0.1 (threaded), for the fake senders."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture
def key(settings) -> bytes:
    return sources.sealing_key(settings)


@pytest.fixture
def admin_secret(database_url) -> str:
    with psycopg.connect(database_url) as conn:
        _, secret = admin_tokens.create_token(conn, name="tests")
    return secret


@pytest.fixture
def admin_headers(admin_secret) -> dict[str, str]:
    return {"Authorization": f"Bearer {admin_secret}"}


def make_source(database_url: str, key: bytes, body: dict) -> dict:
    with psycopg.connect(database_url) as conn:
        return sources.create_source(conn, key, body, actor="tests")


@pytest.fixture
def chat_secret() -> str:
    return new_secret()


@pytest.fixture
def chat_source(database_url, key, chat_secret) -> dict:
    return make_source(database_url, key, {"kind": "chat_webhook", "name": "chat", "secrets": [chat_secret]})


@pytest.fixture
def db_secret() -> str:
    return "dbwh_" + uuid.uuid4().hex


@pytest.fixture
def db_source(database_url, key, db_secret) -> dict:
    return make_source(database_url, key, {"kind": "db_webhook", "name": "crm", "secret": db_secret})


@pytest.fixture
def process(database_url):
    """Process the inbox now, as the worker would; returns the report."""
    def run():
        with psycopg.connect(database_url) as conn:
            return process_pending(conn)
    return run
