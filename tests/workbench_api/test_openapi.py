"""The OpenAPI 3.1 document: valid, complete, and fuzzed with schemathesis (never a 5xx)."""
from __future__ import annotations

import copy
import re
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from openapi_spec_validator import validate

from tests.api_fuzzing import fuzz_every_phase
from tests.workbench_api.conftest import Api, ok

FUZZ_EXAMPLES = 12
# Revoking tokens would revoke the fuzzer's own token and leave the rest of the run at 401.
NOT_FUZZED = {("DELETE", "/tokens/{token_id}"),
              # A generated provider address would make the assistant connect to a host the fuzzer
              # invented; tests/workbench_api/test_assistant.py checks this endpoint's refusals.
              ("PUT", "/assistant/provider"),
              # The same for the single sign-on provider's issuer (tests/workbench_api/test_single_sign_on.py).
              ("PATCH", "/settings/sso"),
              # Each call starts a headless Chromium for seconds; tests/workbench_ui/test_dashboard_pdf.py
              # and tests/workbench_api/test_dashboard_pdf_refusals.py check this endpoint.
              ("GET", "/dashboards/{dashboard_id}/pdf")}



def test_openapi_document_is_valid_and_describes_every_route(app):
    document = ok(Api(app.test_client()).get("/openapi.json"))
    validate(document)
    assert document["openapi"] == "3.1.0"
    described = {(method.upper(), "/api/v1" + path) for path, item in document["paths"].items() for method in item}
    routed = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1"):
            continue
        path = rule.rule.replace("<path:name>", "{name}").replace("<int:source_id>", "<source_id>")
        for part in ("user_id", "token_id", "group_id", "rule_id", "source_id", "folder_id", "question_id", "model_id",
                     "metric_id", "dashboard_id", "card_id", "filter_id", "conversation_id", "theme_id",
                     "link_id", "secret_id", "link_token", "subscription_id", "alert_id", "segment_id"):
            path = path.replace(f"<{part}>", "{" + part + "}")
        routed |= {(method, path) for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert routed == described


def test_the_document_says_security_none_exactly_where_no_sign_in_is_asked(app):
    """The public mark (workbench_app/api/public_views.py) is read by the authentication and by the
    document alike: an operation without `security: []` answers 401 to a caller without a credential,
    and one with it lets that caller through to the view (which may refuse for reasons of its own)."""
    document = ok(Api(app.test_client()).get("/openapi.json"))
    client = app.test_client()
    public = set()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            address = "/api/v1" + re.sub(r"\{[a-z_]+\}", "1", path)
            response = client.open(address, method=method.upper(), json={})
            refused = response.status_code == 401 and response.get_json()["error"]["code"] == "unauthorized"
            assert refused == (operation.get("security") != []), (method, path, response.status_code)
            if operation.get("security") == []:
                public.add((method, path))
    assert ("post", "/auth/token") in public and ("get", "/public/{link_token}") in public
    assert ("get", "/me") not in public


def _body_fields(document: dict, path: str) -> dict:
    """The properties of an operation's request body (a model's component, through its reference)."""
    schema = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]["properties"]


def test_the_document_states_the_bounds_the_routes_check(app, admin):
    """A bound is written once (the request model, statements/shapes.py) and read by both: one
    character past what the document allows is what the route refuses, naming the field."""
    document = ok(admin.get("/openapi.json"))
    for path, field, extra in (("/sql", "sql", {}), ("/sql/native", "sql", {"catalog": "warehouse"}),
                               ("/sql/native", "catalog", {"sql": "SELECT 1"}), ("/sql/format", "sql", {})):
        bound = _body_fields(document, path)[field]["maxLength"]
        refused = admin.post(path, {**extra, field: "x" * (bound + 1)})
        assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == field, (path, field)
    run = _body_fields(document, "/sql")
    too_many = admin.post("/sql", {"sql": "SELECT 1", "row_limit": run["row_limit"]["maximum"] + 1})
    assert too_many.status_code == 400 and too_many.get_json()["error"]["details"]["field"] == "row_limit"


def fuzz(app, token: str, examples: int = FUZZ_EXAMPLES) -> Counter:
    """Call every operation with generated requests; returns the status codes seen (fails on a 5xx)."""
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    headers = {"Authorization": f"Bearer {token}"}
    failures = []
    statuses: Counter = Counter()
    checked = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        if (operation.method.upper(), operation.path) in NOT_FUZZED:
            continue

        @given(case=operation.as_strategy())
        @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def call(case):
            response = case.call(headers=headers)
            statuses[response.status_code] += 1
            if response.status_code >= 500:
                failures.append((operation.method, operation.path, case.body, response.status_code,
                                 response.text[:300]))

        call()
        checked += 1
    assert checked >= 50
    assert failures == []
    return statuses


def _some_content(admin):
    folder = ok(admin.post("/folders", {"name": "Fuzz"}), 201)
    ok(admin.post("/questions", {"name": "q", "folder_id": folder["folder_id"], "sql": "SELECT 1 AS one"}), 201)
    ok(admin.post("/dashboards", {"name": "d", "folder_id": folder["folder_id"], "cards": [{"kind": "text", "text": "t"}]}), 201)


@pytest.fixture
def no_network_document(monkeypatch):
    """The API document the fuzzer reads, without the source kinds that connect to a host."""
    from workbench_app.api import openapi

    real_document = openapi.document

    def fuzzed_document(app):
        # A copy: the real document is built once per process, and later tests read it as it is.
        document = copy.deepcopy(real_document(app))
        _no_network_sources(document)
        return document

    monkeypatch.setattr(openapi, "document", fuzzed_document)


def test_fuzzing_the_api_as_an_administrator_never_gives_a_server_error(app, admin, analyst, no_network_document):
    _some_content(admin)
    statuses = fuzz(app, admin.token)
    # The requests did reach the endpoints as an authenticated administrator.
    assert statuses[200] > 50 and statuses[201] > 0 and statuses[400] > 0, statuses
    assert admin.get("/me").status_code == 200  # the fuzzer's token was never revoked


def test_fuzzing_the_api_as_a_restricted_user_never_gives_a_server_error(app, admin, analyst, no_network_document):
    _some_content(admin)
    statuses = fuzz(app, analyst[1], examples=6)
    assert statuses[403] > 0 and statuses[200] > 0, statuses


# Checks of `--checks all` that stay excepted for the whole API, with the reason.
EXCEPTED_CHECKS = {
    # The fuzzer's token is an administrator's: the per-user checks are the restricted-user run above.
    "ignored_auth": "the token is required everywhere; tests/workbench_api/test_accounts_and_tokens.py checks 401s",
}


_VALID_DATA = "positive_data_acceptance"
_SQL = "statements must parse, name tables that exist and pass the permission check; JSON Schema cannot state it"
EXCEPTED_PER_OPERATION = {
    ("POST", "^/sql"): {_VALID_DATA: _SQL},
    ("POST", "^/(questions|models|metrics)$"): {_VALID_DATA: _SQL + " (and folder ids must exist)"},
    ("PATCH", "^/(questions|models)/"): {_VALID_DATA: _SQL},
    ("POST", "/(run|query)$"): {_VALID_DATA: "runs the saved statement with these values: " + _SQL},
    ("POST|PUT", "^/dashboards"): {_VALID_DATA: "cards, tabs and filters refer to each other and to questions "
                                   "by id, which JSON Schema cannot state"},
    ("PUT|PATCH", "^/(dashboards|questions|models)/"): {
        "ensure_resource_availability": "a 404 there can name the folder_id of the body (a folder that does not "
                                        "exist), not the record just created"},
    ("POST", "^/groups/[^/]+/rules$"): {_VALID_DATA: "the catalog, schema and table must exist; the row filter "
                                        "must parse"},
    ("POST|PATCH", "^/sources"): {_VALID_DATA: "options depend on the kind, and a file source's path must "
                                  "exist on the server"},
    ("POST|PATCH", "^/folders"): {_VALID_DATA: "a parent folder must exist and be writable, names unique "
                                  "among siblings"},
    ("PUT", "^/groups/[^/]+/catalogs$"): {_VALID_DATA: "the catalogs must be sources that exist"},
    ("POST", "^/builder/"): {_VALID_DATA: "a builder definition names tables and columns that must exist"},
    ("GET", "^/setup$"): {_VALID_DATA: "the setup link's token is a secret: a well-formed but wrong one is refused "
                          "(403), and once an administrator exists every one is (410)"},
    ("POST", "^/setup$"): {
        _VALID_DATA: "the setup link's token is a secret (403 when wrong, 410 once an administrator exists)",
        "negative_data_rejection": "once an administrator exists, the setup answers 410 (documented) before it "
                                   "reads the body"},
    ("POST", "^/password-link"): {_VALID_DATA: "the link's token is a secret: a well-formed but wrong one is "
                                  "refused (403)"},
    ("DELETE", "^/folders/"): {_VALID_DATA: "a folder that still holds content is not deleted (409 is "
                               "documented; schemathesis still expects 2xx for valid data)"},
}


def _no_network_sources(document: dict) -> None:
    """A source created or tested by the fuzzer must never make a worker connect to a host it
    invented: the kinds that connect (PostgreSQL, MySQL, CouchDB, Snowflake) are left out of the
    document the fuzzer reads."""
    for shape in ("NewSource", "SourceProbe"):  # the bodies of POST /sources and POST /sources/test
        document["components"]["schemas"][shape]["properties"]["kind"] = {"enum": ["sqlite", "duckdb", "files"]}


# Every operation through every phase: about six minutes on a loaded 2-CPU machine.
@pytest.mark.timeout(900)
def test_every_phase_and_every_check_on_throwaway_data(app, admin, no_network_document):
    _some_content(admin)
    report = fuzz_every_phase(app, "/api/v1/openapi.json", headers={"Authorization": f"Bearer {admin.token}"},
                              excepted_checks=EXCEPTED_CHECKS, examples=FUZZ_EXAMPLES, stateful_steps=20,
                              exclude=tuple(NOT_FUZZED), excepted_per_operation=EXCEPTED_PER_OPERATION)
    assert report.phases >= {"coverage", "fuzzing", "stateful"}, report.phases
    assert not report.errors, "\n".join(report.errors[:10])
    assert not report.failures, f"{len(report.failures)} failures:\n" + "\n".join(sorted(set(report.failures))[:60])
