"""A page of the web application carries the API answers its screen starts with (first_reads.py):
the same answers as the API gives the browser, only with its session cookie, safe inside HTML."""
from __future__ import annotations

import json
import re

import pytest

from tests.workbench_api.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, ok

ELEMENT = re.compile(r'<script type="application/json" id="first-reads">(.*?)</script>', re.S)


def first_reads(page) -> dict:
    if page.status_code == 503:
        pytest.skip("the web application is not built in this checkout (make frontend)")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    found = ELEMENT.findall(page.get_data(as_text=True))
    assert len(found) == 1
    return json.loads(found[0])


@pytest.fixture
def browser(app, admin_token):
    """A test client signed in with a password, as the web application is."""
    client = app.test_client()
    ok(client.post("/api/v1/session", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}), 201)
    return client


def test_a_dashboard_page_carries_the_session_and_the_dashboard_s_first_reads(admin, browser):
    dashboard = ok(admin.post("/dashboards", {"name": "Traffic", "cards": [
        {"kind": "heading", "text": "Visits", "width": 12, "height": 1}]}), 201)
    path = f"/api/v1/dashboards/{dashboard['dashboard_id']}"
    answers = first_reads(browser.get(f"/dashboards/{dashboard['dashboard_id']}?tab=0"))
    assert list(answers) == ["/api/v1/session", path, f"{path}/theme"]
    for read, answer in answers.items():
        assert answer == {"status": 200, "body": ok(browser.get(read))}
    assert answers["/api/v1/session"]["body"]["user"]["email"] == ADMIN_EMAIL

    # Any other screen: the session only.
    assert list(first_reads(browser.get("/sql"))) == ["/api/v1/session"]


def test_a_refused_read_is_handed_over_as_the_api_answers_it(browser):
    answers = first_reads(browser.get("/dashboards/987654"))
    missing = answers["/api/v1/dashboards/987654"]
    assert missing["status"] == 404 and missing["body"]["error"]["code"]
    assert missing == {"status": 404, "body": browser.get("/api/v1/dashboards/987654").get_json()}


def test_without_a_live_session_the_page_carries_nothing_of_anyone(app, admin, browser):
    dashboard = ok(admin.post("/dashboards", {"name": "Private", "cards": []}), 201)
    page = f"/dashboards/{dashboard['dashboard_id']}"
    assert first_reads(app.test_client().get(page)) == {}  # no cookie: sent to sign-in anyway
    stranger = app.test_client()
    stranger.set_cookie("wb_session", "not-a-session")
    answers = first_reads(stranger.get(page))
    assert list(answers) == ["/api/v1/session"] and answers["/api/v1/session"]["status"] == 401
    csrf = ok(browser.get("/api/v1/session"))["csrf_token"]
    assert browser.delete("/api/v1/session", headers={"X-CSRF-Token": csrf}).status_code == 204
    assert all(answer["status"] == 401 for answer in first_reads(browser.get(page)).values())


def test_names_from_people_cannot_close_the_element(admin, browser):
    name = "</script><script>alert(1)</script><!-- & -->"
    dashboard = ok(admin.post("/dashboards", {"name": name, "cards": []}), 201)
    page = browser.get(f"/dashboards/{dashboard['dashboard_id']}")
    html = page.get_data(as_text=True)
    assert "<script>alert(1)" not in html and "<!-- &" not in html
    answers = first_reads(page)
    assert answers[f"/api/v1/dashboards/{dashboard['dashboard_id']}"]["body"]["name"] == name


def test_a_bearer_token_is_not_used_for_the_page_s_reads(admin, app):
    # The page's reads are the browser's: its cookie, never an Authorization header sent with the page.
    page = app.test_client().get("/sql", headers={"Authorization": f"Bearer {admin.token}"})
    assert first_reads(page) == {}
