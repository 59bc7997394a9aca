"""Defects a schemathesis run found in the workbench API, each reproduced here first."""
from __future__ import annotations

import pytest

from tests.workbench_api.conftest import ok


def _error(response, status: int) -> dict:
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:300])
    body = response.get_json()
    assert set(body["error"]) == {"code", "message", "details"}, body
    return body["error"]


def _raw(api, method: str, path: str, data):
    return api.client.open(f"/api/v1{path}", method=method, data=data,
                           headers={"Authorization": f"Bearer {api.token}", "Content-Type": "application/json"})


@pytest.mark.parametrize("data", [None, b"", b"null", b"[]", b"3"])
def test_a_write_without_an_object_body_is_a_422_that_changes_nothing(admin, data):
    user = ok(admin.post("/users", {"email": "u@example.org", "password": "a long enough password"}), 201)
    ok(admin.put(f"/users/{user['user_id']}/attributes", {"attributes": {"region": "EU"}}))
    group = ok(admin.post("/groups", {"name": "G"}), 201)
    ok(admin.put(f"/groups/{group['group_id']}/catalogs", {"catalogs": ["warehouse"]}))

    assert _error(_raw(admin, "PUT", f"/users/{user['user_id']}/attributes", data), 422)["code"] == "invalid_body"
    assert _error(_raw(admin, "PUT", f"/groups/{group['group_id']}/catalogs", data), 422)["code"] == "invalid_body"
    for method, path in [("POST", "/tokens"), ("POST", "/dashboards"), ("POST", "/folders"), ("POST", "/groups")]:
        _error(_raw(admin, method, path, data), 422)

    assert ok(admin.get(f"/users/{user['user_id']}"))["attributes"] == {"region": "EU"}
    assert ok(admin.get(f"/groups/{group['group_id']}/permissions"))["catalogs"] == ["warehouse"]
    assert len(ok(admin.get("/tokens"))["tokens"]) == 1


@pytest.mark.parametrize("path, body, field", [
    ("/tokens", {"name": None}, "name"),
    ("/dashboards", {"name": None}, "name"),
    ("/sql/autocomplete", {"sql": "SELECT ", "cursor": None}, "cursor"),
    ("/groups", {"name": "g", "description": None}, "description"),
])
def test_null_is_refused_where_the_schema_does_not_allow_it(admin, path, body, field):
    assert _error(admin.post(path, body), 400)["details"]["field"] == field


def test_null_is_still_accepted_where_the_schema_documents_it(admin):
    dashboard = ok(admin.post("/dashboards", {"name": "d", "auto_refresh_seconds": None}), 201)
    assert dashboard["auto_refresh_seconds"] is None


def test_whole_numbers_written_with_a_decimal_point_are_whole_numbers(admin):
    response = ok(admin.post("/sql", {"sql": "SELECT 1 AS one", "row_limit": 110.0}))
    assert response["rows"] == [[1]]


@pytest.mark.parametrize("query", ["/audit?action=" + "a" * 201, "/schema?search=" + "s" * 201,
                                   "/questions?search=" + "s" * 201, "/history?origin=null"])
def test_query_parameters_outside_their_schema_are_refused(admin, query):
    assert _error(admin.get(query), 400)["code"] == "invalid_input"


def test_a_405_names_the_allowed_methods(admin):
    response = admin.call("PUT", "/tokens", {})
    assert _error(response, 405)["code"] == "method_not_allowed"
    assert set(response.headers["Allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "POST", "OPTIONS"}


def test_get_of_sources_refresh_is_a_405_not_an_unknown_source(admin):
    response = admin.get("/sources/refresh")
    assert _error(response, 405)["code"] == "method_not_allowed"
    assert "POST" in response.headers["Allow"]


def test_the_document_lists_the_414_and_the_422_of_a_body(admin):
    document = ok(admin.get("/openapi.json"))
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert "414" in operation["responses"], (method, path)
            if "requestBody" in operation:
                # Runs of saved things (question, card, metric), a shared card's CSV and the test
                # of a saved source change nothing: no body is {}.
                runs = ((path.endswith(("/run", "/query")) and "{" in path) or path.endswith("/cards/{card_id}/csv")
                        or path == "/sources/{source_id}/test")
                assert operation["requestBody"]["required"] is not runs, (method, path)
                if "application/json" in operation["requestBody"]["content"]:  # not a logo's image
                    assert "422" in operation["responses"], (method, path)


@pytest.mark.parametrize("query", ["/audit?limit=1&limit=2", "/audit?action=a&action=b", "/history?origin=api&origin=ui"])
def test_a_repeated_query_parameter_is_refused(admin, query):
    assert _error(admin.get(query), 400)["code"] == "invalid_input"


def test_a_refusal_quoting_a_nul_from_the_request_keeps_to_the_error_schema(admin):
    refused = admin.post("/sources", {"name": "quoted", "kind": "sqlite", "options": {"pa\u0000th": "/x.db"}})
    assert refused.status_code == 400
    message = refused.get_json()["error"]["message"]
    assert "\x00" not in message and "pa\ufffdth" in message


@pytest.mark.parametrize("path, body, field", [
    ("/folders", '{"name": "a\\ud800b"}', "name"),
    ("/sql", '{"sql": "SELECT \'\\udc00\' AS x"}', "sql"),
    ("/dashboards", '{"name": "d", "cards": [{"kind": "text", "text": "\\ud800"}]}', "cards.0.text"),
    ("/dashboards", '{"name": "d", "\\ud800": 1}', "\\ud800"),
])
def test_an_unpaired_surrogate_anywhere_in_a_body_is_a_400_naming_where(admin, path, body, field):
    """JSON can carry `\\ud800`, which no UTF-8 text holds: it used to reach the database and answer a 500."""
    error = _error(_raw(admin, "POST", path, body), 400)
    assert error["code"] == "invalid_input" and error["details"]["field"] == field.encode().decode("unicode_escape")
    assert "unpaired surrogate" in error["message"]
