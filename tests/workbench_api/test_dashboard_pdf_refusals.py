"""The PDF endpoint's refusals and its print ticket: rights before any browser starts, bad filters
named, a clear 503 without Chromium, a full queue refused at once, and a ticket that opens only
the reads of its own dashboard."""
from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from tests.workbench_api.conftest import create_user_with_token, ok
from workbench_app.accounts.identity import Identity
from workbench_app.app import create_app
from workbench_app.errors import WorkbenchError
from workbench_app.printing import tickets
from workbench_app.printing.browser_slots import BrowserSlots
from workbench_app.themes.resolution import effective_theme


@pytest.fixture
def dashboard(admin):
    question = ok(admin.post("/questions", {"name": "Views", "variables": {"since": "number"},
                                            "sql": "SELECT count(*) AS n FROM page_views WHERE view_id >= {{since}}"}), 201)
    return ok(admin.post("/dashboards", {
        "name": "Views", "cards": [{"key": "v", "question_id": question["question_id"]}],
        "filters": [{"name": "Since", "type": "number", "links": [{"card": "v", "variable": "since"}]}]}), 201)


def test_rights_and_filters_are_checked_before_any_browser(admin, dashboard):
    path = f"/dashboards/{dashboard['dashboard_id']}/pdf"
    _, token = create_user_with_token(admin, "stranger@example.org")
    assert admin.get(path, token=token).status_code == 404
    wrong = admin.get(f"{path}?f.{dashboard['filters'][0]['filter_id']}=soon")
    assert wrong.status_code == 400
    assert wrong.get_json()["error"]["details"]["field"] == "filters.Since"
    assert admin.get(f"{path}?orientation=sideways").status_code == 400
    assert admin.get("/dashboards/999999/pdf").status_code == 404


def test_without_chromium_the_answer_is_a_clear_503(workbench_settings, warehouse, admin_token, dashboard):
    app = create_app(replace(workbench_settings, chromium_path="/nonexistent/chromium"))
    try:
        answer = app.test_client().get(f"/api/v1/dashboards/{dashboard['dashboard_id']}/pdf",
                                       headers={"Authorization": f"Bearer {admin_token}"})
        assert answer.status_code == 503
        assert answer.get_json()["error"]["code"] == "pdf_unavailable"
        assert "Chromium" in answer.get_json()["error"]["message"]
    finally:
        app.extensions["workbench"].close()


def test_a_print_ticket_opens_only_its_dashboard_s_reads(app, admin, dashboard, workbench_db):
    other = ok(admin.post("/dashboards", {"name": "Other"}), 201)
    user_id = ok(admin.get("/me"))["user_id"]
    who = Identity(user_id, "admin@example.org", True)
    secret = tickets.issue(who, dashboard["dashboard_id"], effective_theme(workbench_db, dashboard_id=dashboard["dashboard_id"]))
    client = app.test_client()
    header = {"Authorization": f"{tickets.SCHEME} {secret}"}
    try:
        assert client.get(f"/api/v1/dashboards/{dashboard['dashboard_id']}", headers=header).status_code == 200
        assert client.get(f"/api/v1/dashboards/{dashboard['dashboard_id']}/theme", headers=header).status_code == 200
        for path in (f"/api/v1/dashboards/{other['dashboard_id']}", "/api/v1/themes", "/api/v1/me", "/api/v1/folders"):
            assert client.get(path, headers=header).status_code == 403, path
        assert client.delete(f"/api/v1/dashboards/{dashboard['dashboard_id']}", headers=header).status_code == 403
    finally:
        tickets.revoke(secret)
    # Revoked at the end of its print: nothing opens any more.
    assert client.get(f"/api/v1/dashboards/{dashboard['dashboard_id']}", headers=header).status_code == 401
    assert client.get(f"/api/v1/dashboards/{dashboard['dashboard_id']}",
                      headers={"Authorization": f"{tickets.SCHEME} forged"}).status_code == 401


def test_prints_wait_in_a_bounded_line_and_the_rest_are_refused_at_once():
    slots = BrowserSlots(at_once=1, waiting=1, wait_seconds=0.2)
    printing, release = threading.Event(), threading.Event()

    def long_print():
        with slots.slot():
            printing.set()
            release.wait(5)

    first = threading.Thread(target=long_print)
    first.start()
    printing.wait(5)
    # One may wait: it gives up with a 503 when no browser frees up in time.
    with pytest.raises(WorkbenchError) as busy:
        with slots.slot():
            pass
    assert busy.value.status == 503
    release.set()
    first.join()
    # With no room to wait, the next print is refused at once.
    slots_full = BrowserSlots(at_once=1, waiting=0, wait_seconds=0.2)
    with slots_full.slot():
        with pytest.raises(WorkbenchError) as full:
            with slots_full.slot():
                pass
    assert full.value.status == 429 and full.value.code == "print_queue_full"
    with slots.slot():  # the slot freed by the first print is free again
        pass


def test_a_dashboard_prints_through_the_in_process_page(admin, dashboard):
    from io import BytesIO

    from pypdf import PdfReader

    answer = admin.get(f"/dashboards/{dashboard['dashboard_id']}/pdf?f.{dashboard['filters'][0]['filter_id']}=2")
    assert answer.status_code == 200, answer.get_data(as_text=True)[:500]
    assert answer.mimetype == "application/pdf"
    reader = PdfReader(BytesIO(answer.data))
    text = "\n".join(page.extract_text() for page in reader.pages)
    assert "Views" in text and "Filters: Since: 2" in text and "Page 1 of" in text
