"""With the database unreachable, the administration API answers a structured 503."""
from __future__ import annotations

from collector_app import database
from collector_app.app import create_app
from collector_app.database import close_pool
from pipelines.settings import Settings
from tests.collector_admin.conftest import assert_error
from tests.conftest import TEST_SECRET, free_port


def test_unreachable_database_is_a_503(tmp_path, monkeypatch):
    monkeypatch.setattr(database, "POOL_TIMEOUT_SECONDS", 0.5)
    settings = Settings(home=tmp_path, server_secret_value=TEST_SECRET,
                        database_url=f"postgresql://nobody@127.0.0.1:{free_port()}/analytics?connect_timeout=1")
    app = create_app(settings)
    try:
        client = app.test_client()
        assert_error(client.get("/api/v1/sites", headers={"Authorization": "Bearer at_whatever"}), 503,
                     "database_unavailable")
        # The public OpenAPI document needs no database.
        assert client.get("/api/v1/openapi.json").status_code == 200
    finally:
        close_pool(app)
