"""GET /healthz of the collector and the workbench, through their WSGI apps."""
import pytest

from collector_app.app import create_app as create_collector
from pipelines.settings import Settings
from workbench_app.app import create_app as create_workbench


@pytest.mark.parametrize("factory,component", [(create_collector, "collector"), (create_workbench, "workbench")])
def test_healthy_with_database(settings, factory, component):
    response = factory(settings).test_client().get("/healthz")
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "ok" and body["component"] == component
    assert body["database"]["status"] == "ok"


@pytest.mark.parametrize("factory", [create_collector, create_workbench])
def test_503_when_database_unreachable(tmp_path, factory):
    unreachable = Settings(home=tmp_path, database_url=f"postgresql://postgres@/analytics?host={tmp_path}&port=1",
                           server_secret_value="x")
    response = factory(unreachable).test_client().get("/healthz")
    assert response.status_code == 503
    assert response.get_json()["database"]["status"] == "unavailable"


@pytest.mark.parametrize("factory", [create_collector, create_workbench])
def test_503_when_embedded_database_stopped(tmp_path, factory):
    stopped = Settings(home=tmp_path, server_secret_value="x")
    response = factory(stopped).test_client().get("/healthz")
    assert response.status_code == 503
    assert "not running" in response.get_json()["database"]["error"]
