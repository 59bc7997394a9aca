"""Cancelling a running statement from another request, which may reach another worker process.

Two apps built from the same settings stand for two gunicorn workers: each has its own registry of
running statements and its own listener, and they share only the workbench database, through which
the cancellation travels (NOTIFY). The browser test of the SQL editor's Cancel button runs against
real gunicorn workers (tests/workbench_ui/test_screens.py).
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.workbench_api.conftest import Api, create_user_with_token, ok
from workbench_app.app import create_app

SLOW = "SELECT count(*) FROM range(100000000000) a"


@pytest.fixture
def second_worker(workbench_settings, warehouse, admin_token):
    application = create_app(workbench_settings)
    application.testing = True
    yield application
    application.wsgi_app.close()
    application.extensions["workbench"].close()


def _history(api: Api, limit: int = 5) -> list[dict]:
    return ok(api.get(f"/history?limit={limit}"))["queries"]


def test_a_statement_is_stopped_by_a_cancel_sent_to_another_worker(admin, second_worker, admin_token):
    other = Api(second_worker.test_client(), admin_token)
    with ThreadPoolExecutor(1) as pool:
        started = time.perf_counter()
        running = pool.submit(admin.post, "/sql", {"sql": SLOW, "statement_id": "run-1"})
        time.sleep(0.5)
        answer = ok(other.post("/sql/cancel", {"statement_id": "run-1"}), 202)
        assert answer == {"statement_id": "run-1"}
        stopped = running.result(timeout=20)
        waited = time.perf_counter() - started
    assert stopped.status_code == 409, stopped.get_data(as_text=True)
    error = stopped.get_json()["error"]
    assert error["code"] == "query_cancelled" and error["message"] == "The query was cancelled."
    assert waited < 15  # far below the 30 s timeout: the cancel stopped it, not the clock
    latest = _history(admin)[0]
    assert (latest["status"], latest["error_code"]) == ("cancelled", "query_cancelled")
    # Both workers keep serving, and the id may be used again.
    assert ok(admin.post("/sql", {"sql": "SELECT 1 AS one", "statement_id": "run-1"}))["rows"] == [[1]]
    assert ok(other.post("/sql", {"sql": "SELECT 2 AS two"}))["rows"] == [[2]]


def test_a_cancel_that_arrives_before_its_statement_stops_it_as_it_begins(admin):
    ok(admin.post("/sql/cancel", {"statement_id": "early"}), 202)
    time.sleep(0.3)  # the notice travels through the database to this worker's listener
    stopped = admin.post("/sql", {"sql": SLOW, "statement_id": "early"})
    assert stopped.status_code == 409 and stopped.get_json()["error"]["code"] == "query_cancelled"


def test_a_builder_run_and_a_csv_download_are_cancellable_too(admin):
    ok(admin.post("/sql/cancel", {"statement_id": "csv-1"}), 202)
    time.sleep(0.3)
    stopped = admin.post("/sql/csv", {"sql": SLOW, "statement_id": "csv-1"})
    assert stopped.status_code == 409 and stopped.get_json()["error"]["code"] == "query_cancelled"


def test_a_person_cannot_cancel_someone_elses_statement(app, admin):
    _, token = create_user_with_token(admin, "other@example.org")
    stranger = Api(app.test_client(), token)
    # The same id from another person: accepted (it says nothing of others' runs) and without effect,
    # also on a run that begins after it (the early cancellation is kept per person).
    ok(stranger.post("/sql/cancel", {"statement_id": "mine"}), 202)
    time.sleep(0.3)
    assert ok(admin.post("/sql", {"sql": "SELECT 1 AS one", "statement_id": "mine"}))["rows"] == [[1]]


@pytest.mark.parametrize("body, field", [
    ({}, "statement_id"),
    ({"statement_id": ""}, "statement_id"),
    ({"statement_id": "x" * 65}, "statement_id"),
    ({"statement_id": "no spaces"}, "statement_id"),
    ({"statement_id": 7}, "statement_id"),
])
def test_a_bad_statement_id_is_refused_naming_the_field(admin, body, field):
    refused = admin.post("/sql/cancel", body)
    assert refused.status_code == 400
    assert refused.get_json()["error"]["details"]["field"] == field
    refused = admin.post("/sql", {"sql": "SELECT 1", **body}) if body else None
    if refused is not None:
        assert refused.status_code == 400


def test_cancelling_needs_a_signed_in_caller(app):
    anonymous = Api(app.test_client())
    assert anonymous.post("/sql/cancel", {"statement_id": "x"}).status_code == 401
