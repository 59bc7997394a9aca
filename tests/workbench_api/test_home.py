"""The home page's API: recent items of the person, pins for everyone, an administrator's next steps."""
from __future__ import annotations

import sqlite3

import pytest

from tests.workbench_api.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, Api, create_user_with_token, ok
from workbench_app.home import next_steps
from workbench_app.home.shapes import Home


def session(app, email=ADMIN_EMAIL, password=ADMIN_PASSWORD):
    """A browser of the web application: session cookie and CSRF header."""
    client = app.test_client()
    csrf = ok(client.post("/api/v1/session", json={"email": email, "password": password}), 201)["csrf_token"]
    return client, {"X-CSRF-Token": csrf}


@pytest.fixture(autouse=True)
def fresh_sites_check():
    next_steps.forget_sites_seen()
    yield
    next_steps.forget_sites_seen()


def test_what_the_person_opened_or_changed_comes_first(app, admin):
    first = ok(admin.post("/questions", {"name": "First", "sql": "SELECT 1"}), 201)["question_id"]
    second = ok(admin.post("/questions", {"name": "Second", "sql": "SELECT 2"}), 201)["question_id"]
    board = ok(admin.post("/dashboards", {"name": "Board"}), 201)["dashboard_id"]
    browser, csrf = session(app)
    assert ok(browser.get("/api/v1/home"))["recent"] == []
    for path in (f"/api/v1/questions/{first}", f"/api/v1/dashboards/{board}", f"/api/v1/questions/{second}"):
        ok(browser.get(path))
    ok(browser.patch(f"/api/v1/questions/{first}", json={"name": "First, renamed"}, headers=csrf))
    recent = Home.model_validate(ok(browser.get("/api/v1/home"))).model_dump()["recent"]  # exactly its model
    assert [(item["kind"], item["name"]) for item in recent] == [
        ("question", "First, renamed"), ("question", "Second"), ("dashboard", "Board")]
    # A program's token opening something is not the person's home; a deleted item leaves it.
    ok(admin.get(f"/dashboards/{board}"))
    assert ok(admin.delete(f"/questions/{second}"), 204) is None
    assert [item["name"] for item in ok(browser.get("/api/v1/home"))["recent"]] == ["First, renamed", "Board"]


def test_pins_are_for_everyone_who_may_read_them_and_only_administrators_pin(app, admin):
    mine = ok(admin.post("/questions", {"name": "Admin's own", "sql": "SELECT 1"}), 201)["question_id"]
    shared = ok(admin.post("/folders", {"name": "Shared"}), 201)["folder_id"]
    everyone = ok(admin.post("/groups", {"name": "Readers"}), 201)["group_id"]
    ok(admin.put(f"/folders/{shared}/access/{everyone}", {"level": "view"}))
    board = ok(admin.post("/dashboards", {"name": "Traffic", "folder_id": shared}), 201)["dashboard_id"]
    ok(admin.put(f"/home/pins/dashboards/{board}"), 204)
    ok(admin.put(f"/home/pins/questions/{mine}"), 204)
    ok(admin.put(f"/home/pins/dashboards/{board}"), 204)  # twice: still one pin
    _, token = create_user_with_token(admin, "reader@example.org", groups=(everyone,))
    reader = Api(admin.client, token)
    answer = ok(reader.get("/home"))
    Home.model_validate(answer)
    assert [(item["kind"], item["name"]) for item in answer["pinned"]] == [("dashboard", "Traffic")]
    assert answer["can_pin"] is False and answer["next_steps"] is None
    assert reader.put(f"/home/pins/dashboards/{board}").status_code == 403
    assert admin.put("/home/pins/dashboards/999999").status_code == 404
    ok(admin.delete(f"/home/pins/dashboards/{board}"), 204)
    assert ok(reader.get("/home"))["pinned"] == []
    audited = [entry["action"] for entry in ok(admin.get("/audit?action=home."))["entries"]]
    assert audited[:2] == ["home.unpinned", "home.pinned"]


def test_next_steps_are_ticked_off_as_they_are_done(app, admin, warehouse, tmp_path):
    crm = tmp_path / "crm.sqlite"
    with sqlite3.connect(crm) as conn:
        conn.execute("create table customers (id integer)")
    steps = lambda: {s.step: s.done for s in Home.model_validate(ok(admin.get("/home"))).next_steps}  # noqa: E731
    assert steps() == {"add_source": False, "invite_people": False, "single_sign_on": False, "collector_site": False}
    create_user_with_token(admin, "colleague@example.org")
    ok(admin.patch("/settings/sso", {"issuer": "https://login.example.org", "client_id": "workbench"}))
    ok(admin.post("/sources", {"name": "crm", "kind": "sqlite", "options": {"path": str(crm)}}), 201)
    # A site of the collector counts once its events reach the warehouse's analytics views.
    warehouse.execute("create view analytics.events as select 'site-1'::text as site_id")
    next_steps.forget_sites_seen()
    assert steps() == {"add_source": True, "invite_people": True, "single_sign_on": True, "collector_site": True}
    assert ok(admin.get("/home"))["collector_url"].startswith("http://")
