"""Defects a schemathesis run found in the collector's API, each reproduced here first."""
from __future__ import annotations

import pytest

from tests.collector_admin.conftest import assert_error


def _base(site) -> str:
    return f"/api/v1/sites/{site['id']}"


@pytest.mark.parametrize("data", [None, b"", b"[]", b"1", b'"x"', b"null"])
def test_a_write_without_an_object_body_is_a_422_that_changes_nothing(client, auth, site, data):
    before = client.get(f"{_base(site)}/channel-rules", headers=auth).get_json()
    for method, path in [("post", "/api/v1/sites"), ("patch", _base(site)), ("put", f"{_base(site)}/channel-rules"),
                         ("post", f"{_base(site)}/server-keys"), ("post", f"{_base(site)}/goals"),
                         ("post", f"{_base(site)}/privacy-requests"), ("post", "/api/v1/inbound-sources")]:
        response = getattr(client, method)(path, data=data, headers={**auth, "Content-Type": "application/json"})
        assert_error(response, 422, "validation_failed")
    assert client.get(f"{_base(site)}/channel-rules", headers=auth).get_json() == before
    assert client.get(f"{_base(site)}/server-keys", headers=auth).get_json()["server_keys"] == []
    assert len(client.get("/api/v1/sites", headers=auth).get_json()["sites"]) == 1


@pytest.mark.parametrize("path, body, field", [
    ("/api/v1/sites", {"name": "S", "timezone": None}, "timezone"),
    ("/api/v1/sites", {"name": "S", "retention_months": None}, "retention_months"),
    ("/api/v1/sites", {"name": "S", "tracking_mode": None}, "tracking_mode"),
    ("{site}/server-keys", {"rate_limit_per_minute": None}, "rate_limit_per_minute"),
    ("{site}/server-keys", {"name": None}, "name"),
    ("{site}/goals", {"name": "g", "path_pattern": None, "event_name": "e"}, "path_pattern"),
    ("{site}/events", {"name": "signup", "label": "S", "description": None}, "description"),
])
def test_null_is_refused_where_the_schema_does_not_allow_it(client, auth, site, path, body, field):
    error = assert_error(client.post(path.format(site=_base(site)), json=body, headers=auth), 422, "validation_failed")
    assert error["details"]["field"] == field


def test_whole_numbers_written_with_a_decimal_point_are_whole_numbers(client, auth, site):
    response = client.post(f"{_base(site)}/server-keys", json={"rate_limit_per_minute": 110.0}, headers=auth)
    assert response.status_code == 201 and response.get_json()["rate_limit_per_minute"] == 110
    assert_error(client.post(f"{_base(site)}/server-keys", json={"rate_limit_per_minute": 110.5}, headers=auth), 422)


@pytest.mark.parametrize("query", ["since=", "to=", "from="])
def test_an_empty_query_parameter_is_refused(client, auth, site, query):
    path = "/api/v1/audit" if query == "since=" else f"{_base(site)}/annotations"
    assert_error(client.get(f"{path}?{query}", headers=auth), 400, "invalid_parameter")


def test_a_405_names_the_allowed_methods(client, auth, site):
    response = client.put("/api/v1/sites", json={}, headers=auth)
    assert_error(response, 405, "method_not_allowed")
    assert set(response.headers["Allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "POST", "OPTIONS"}


def test_options_of_the_collect_path_lists_post(client):
    response = client.options("/collect")
    assert "POST" in response.headers["Allow"].split(", ")
    refused = client.put("/collect", data="x")
    assert refused.status_code == 405 and "POST" in refused.headers["Allow"]


def test_the_document_lists_the_refusals_made_before_any_route(client):
    document = client.get("/api/v1/openapi.json").get_json()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                assert {"414", "431", "503"} <= set(operation["responses"]), (method, path)


def test_a_repeated_query_parameter_is_refused(client, auth):
    assert_error(client.get("/api/v1/audit?limit=1&limit=2", headers=auth), 400, "invalid_parameter")


def test_a_text_limit_counts_the_text_as_sent(client, auth, site):
    """Fuzzing found a 201-character label accepted because its leading space was stripped first."""
    body = {"name": "hero", "selector": "#hero", "label": " " + "x" * 200}
    error = assert_error(client.post(f"{_base(site)}/zones", json=body, headers=auth), 422)
    assert error["details"]["field"] == "label"
