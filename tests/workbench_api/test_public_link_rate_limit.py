"""A public link's requests a minute are counted in the workbench database, so every worker (here,
two app instances over the same database) shares one count; when the count cannot be kept, the
link still answers (fail open)."""
from __future__ import annotations

import pytest

from tests.workbench_api.conftest import Api, ok
from workbench_app.app import create_app


@pytest.fixture
def second_app(workbench_settings, warehouse):
    """Another worker: its own app, pool and memory, over the same workbench database."""
    application = create_app(workbench_settings)
    yield application
    application.wsgi_app.close()
    application.extensions["workbench"].close()


def _link(admin) -> str:
    ok(admin.patch("/settings", {"public_sharing": True, "public_link_requests_per_minute": 3}))
    dashboard = ok(admin.post("/dashboards", {"name": "Counted"}), 201)
    return ok(admin.post(f"/dashboards/{dashboard['dashboard_id']}/public-links", {}), 201)["secret"]


def test_two_workers_share_a_link_s_count(app, second_app, admin, workbench_db):
    secret = _link(admin)
    first, second = Api(app.test_client()), Api(second_app.test_client())
    ok(first.get(f"/public/{secret}"))
    ok(second.get(f"/public/{secret}"))
    ok(first.get(f"/public/{secret}"))
    # The fourth call of the minute is refused by whichever worker gets it.
    for worker in (second, first):
        limited = worker.get(f"/public/{secret}")
        assert limited.status_code == 429 and limited.get_json()["error"]["code"] == "rate_limited"
        assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert workbench_db.execute("select requests from public_link_usage").fetchone() == (3,)
    # A minute later (the stored window moved back), the link answers again.
    workbench_db.execute("update public_link_usage set window_start = window_start - interval '1 minute'")
    ok(second.get(f"/public/{secret}"))
    assert workbench_db.execute("select requests from public_link_usage").fetchone() == (1,)


def test_the_link_answers_when_its_count_cannot_be_kept(app, admin, workbench_db):
    secret = _link(admin)
    workbench_db.execute("drop table public_link_usage")  # the counting statement fails
    visitor = Api(app.test_client())
    for _ in range(5):  # past the limit of 3: nothing counts, nothing is refused
        assert ok(visitor.get(f"/public/{secret}"))["name"] == "Counted"
