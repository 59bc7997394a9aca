"""The OpenAPI document: valid OpenAPI 3.1, complete, and true to the administration API, which
schemathesis fuzzes (valid and invalid inputs) without a single 5xx."""
from __future__ import annotations

import copy

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck
from openapi_spec_validator import validate
from schemathesis import GenerationMode

from collector_app.openapi import openapi_document
from tests.api_fuzzing import fuzz_every_phase

# Examples per operation and generation mode: enough to walk every validation branch in CI time.
FUZZ_EXAMPLES = 12


def test_document_is_valid_openapi_31(client):
    response = client.get("/api/v1/openapi.json")  # public: no token needed
    assert response.status_code == 200 and response.mimetype == "application/json"
    document = response.get_json()
    assert document["openapi"].startswith("3.1")
    validate(copy.deepcopy(document))


def _served_routes(app) -> set[tuple[str, str]]:
    routes = set()
    for rule in app.url_map.iter_rules():
        # The administration pages (/admin) are HTML for people, not part of the API.
        if rule.endpoint == "static" or rule.endpoint.startswith("admin_ui."):
            continue
        # <source_id> and <path:x> become {source_id} and {x}, as OpenAPI writes them.
        path = "/".join("{" + part[1:-1].split(":")[-1] + "}" if part.startswith("<") else part
                        for part in rule.rule.split("/"))
        routes.update((path, method.lower()) for method in rule.methods - {"HEAD", "OPTIONS"})
    return routes


def test_document_describes_every_route_of_the_collector(app):
    document = openapi_document()
    documented = {(path, method) for path, item in document["paths"].items()
                  for method in item if method in ("get", "post", "put", "patch", "delete")}
    missing = _served_routes(app) - documented
    assert not missing, (f"routes served but not in the OpenAPI document: {sorted(missing)}; describe them in "
                         "collector_app/openapi/ (see its __init__.py)")
    # The collection endpoints are described even before their code is registered.
    for route in [("/collect/server", "post"), ("/collect/server/erase", "post"), ("/a.js", "get"),
                  ("/collect", "post"), ("/collect", "get"), ("/healthz", "get"), ("/api/v1/openapi.json", "get")]:
        assert route in documented
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method == "parameters" or not path.startswith("/api/v1/sites") and path != "/api/v1/audit":
                continue
            assert operation["security"] == [{"adminToken": []}], (path, method)
            assert "401" in operation["responses"], (path, method)


@pytest.fixture
def existing_records(client, auth, site):
    """Records the fuzzer's item operations can reach, besides random (unknown) ids."""
    base = f"/api/v1/sites/{site['id']}"
    ids = {
        "key_id": client.post(f"{base}/server-keys", headers=auth, json={}).get_json()["id"],
        "goal_id": client.post(f"{base}/goals", headers=auth, json={"name": "g", "event_name": "e"}).get_json()["id"],
        "annotation_id": client.post(f"{base}/annotations", headers=auth,
                                     json={"date": "2026-01-01", "text": "t"}).get_json()["id"],
        "request_id": client.post(f"{base}/privacy-requests", headers=auth,
                                  json={"kind": "export", "user_id": "u"}).get_json()["id"],
    }
    client.post(f"{base}/events", headers=auth, json={"name": "signup", "label": "Signup"})
    client.post(f"{base}/zones", headers=auth, json={"name": "signup", "selector": "#s", "label": "S"})
    return {"site_id": site["id"], "name": "signup", **ids}


def test_fuzz_admin_api_never_answers_5xx(app, auth, existing_records):
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    problems = []
    successes: dict[str, int] = {}
    operations = [result.ok() for result in schema.get_all_operations()]
    # The administration of sites and the audit log (other areas fuzz their own endpoints).
    admin = [op for op in operations if op.path.startswith(("/api/v1/sites", "/api/v1/audit"))]
    assert len(admin) >= 40
    # Deleting the site would leave nothing to explore: that operation gets random ids only.
    admin.sort(key=lambda op: (op.method.lower() == "delete", op.path))
    for operation in admin:
        documented = set(operation.definition.raw["responses"])
        pinned = {name: value for name, value in existing_records.items() if "{" + name + "}" in operation.path}
        if operation.method.lower() == "delete" and operation.path == "/api/v1/sites/{site_id}":
            pinned = {}
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            for path_parameters in ({}, pinned) if pinned else ({},):
                strategy = operation.as_strategy(generation_mode=mode, path_parameters=path_parameters or None)

                @hypothesis.given(case=strategy)
                @hypothesis.settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, derandomize=True,
                                     suppress_health_check=list(HealthCheck))
                def run(case):
                    response = case.call(headers=auth)
                    status = response.status_code
                    if status < 300 and mode == GenerationMode.POSITIVE:
                        successes[operation.label] = successes.get(operation.label, 0) + 1
                    if status >= 500:
                        problems.append((operation.label, mode.value, status, response.text[:300]))
                    elif status >= 400:
                        try:
                            error = response.json().get("error")
                        except (ValueError, AttributeError):
                            error = None
                        if not (isinstance(error, dict) and {"code", "message", "details"} <= set(error)):
                            problems.append((operation.label, mode.value, status, "unstructured: " + response.text[:200]))
                        elif str(status) not in documented:
                            problems.append((operation.label, mode.value, status, "undocumented: " + response.text[:200]))

                run()
    assert not problems, "\n".join(map(str, problems[:30]))
    # Valid input must get through too, or the fuzzer only ever explores refusals.
    for label in ("POST /api/v1/sites", "PATCH /api/v1/sites/{site_id}", "POST /api/v1/sites/{site_id}/zones",
                  "POST /api/v1/sites/{site_id}/annotations", "PUT /api/v1/sites/{site_id}/channel-rules",
                  "POST /api/v1/sites/{site_id}/server-keys", "GET /api/v1/audit"):
        assert successes.get(label, 0) > 0, (label, successes)


# Checks of `--checks all` that stay excepted, with the reason (none for the whole API).
EXCEPTED_CHECKS: dict[str, str] = {}
_VALID_DATA = "positive_data_acceptance"
EXCEPTED_PER_OPERATION = {
    ("POST", "^/api/v1/sites$"): {_VALID_DATA: "domains: a host name is also checked by IDNA rules (label "
                                  "lengths after punycode, no all-digit top-level label) that JSON Schema cannot state"},
    ("PATCH", "^/api/v1/sites/[^/]+$"): {_VALID_DATA: "domains: as for POST /api/v1/sites"},
    ("POST", "/classifications/import$"): {_VALID_DATA: "the CSV's lines are checked one by one (all or nothing); "
                                           "a string schema cannot state them"},
    ("DELETE", "/classifications$"): {"use_after_free": "deletes by filter: the list with that filter is empty "
                                      "afterwards, but the list itself is not a deleted resource"},
    ("PUT", "/channel-rules$"): {_VALID_DATA: "patterns must compile as regular expressions in both Python and "
                                 "PostgreSQL, which JSON Schema cannot state"},
    ("POST", "/events$"): {_VALID_DATA: "property names must be unique within an event (uniqueItems compares whole "
                           "items, not one field)"},
    ("PUT", "/events/[^/]+$"): {_VALID_DATA: "unique property names, and a body name must equal the path's"},
    ("PUT", "/zones/[^/]+$"): {_VALID_DATA: "a body name must equal the path's"},
}


@pytest.mark.timeout(900)  # every phase, stateful included: minutes, more on a loaded machine
def test_every_phase_and_every_check_on_throwaway_data(app, auth, existing_records):
    report = fuzz_every_phase(app, "/api/v1/openapi.json", headers=auth, excepted_checks=EXCEPTED_CHECKS,
                              examples=FUZZ_EXAMPLES, stateful_steps=20,
                              include_path_regex=r"^/api/v1/(sites|audit)",
                              excepted_per_operation=EXCEPTED_PER_OPERATION)
    # The examples phase is on too; it has nothing to run, the document giving no examples.
    assert report.phases >= {"coverage", "fuzzing", "stateful"}, report.phases
    assert report.statuses[201] > 0 and report.statuses[200] > 0 and report.statuses[422] > 0, report.statuses
    assert not report.errors, "\n".join(report.errors[:10])
    assert not report.failures, f"{len(report.failures)} failures:\n" + "\n".join(sorted(set(report.failures))[:60])
