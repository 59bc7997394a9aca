"""Fixtures of the administration API tests: the collector app over the test database, an admin
token, and a helper that creates a site through the API."""
from __future__ import annotations

import pytest

from collector_app.app import create_app
from collector_app.database import close_pool
from pipelines.admin import admin_tokens
from pipelines.ingest.writer import stop_writer


@pytest.fixture
def app(settings):
    app = create_app(settings)
    app.config["TESTING"] = True
    yield app
    stop_writer(settings)  # started only if a test sent events through the collection endpoints
    close_pool(app)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def admin_token(db) -> str:
    _, secret = admin_tokens.create_token(db, name="tests", actor="tests")
    return secret


@pytest.fixture
def auth(admin_token) -> dict[str, str]:
    return {"Authorization": f"Bearer {admin_token}"}


@pytest.fixture
def make_site(client, auth):
    def make(**fields) -> dict:
        body = {"name": "Shop", "domains": ["shop.example.com"], **fields}
        response = client.post("/api/v1/sites", json=body, headers=auth)
        assert response.status_code == 201, response.get_json()
        return response.get_json()
    return make


@pytest.fixture
def site(make_site) -> dict:
    return make_site()


def assert_error(response, status: int, code: str | None = None) -> dict:
    """The response is the structured error with this status (and code)."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:500])
    body = response.get_json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, body
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]
