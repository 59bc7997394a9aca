"""A report set per site: made once when the workbench first sees a site in `analytics.sites`, never
again over people's edits or after they delete it."""
from __future__ import annotations

import pytest

from pipelines.admin import sites
from tests.workbench_api.conftest import ok
from workbench_app.home import report_templates, site_reports

REPORTS = [report["name"] for report in report_templates.reports()]


@pytest.fixture
def sites_view(warehouse):
    """The dbt model's `analytics.sites` (a view down to collect.sites), as a built warehouse has it."""
    warehouse.execute("""create view analytics.sites as
                         select site_id, name as site_name, tracking_mode, timezone, currency as default_currency,
                                created_at from collect.sites""")
    site_reports.forget_check()
    yield warehouse
    site_reports.forget_check()


def create_site(conn, name: str, tracking_mode: str = "cookie") -> str:
    site = sites.create_site(conn, {"name": name, "tracking_mode": tracking_mode}, actor="test")
    return str(site["id"])


def site_folder(admin, name: str) -> dict | None:
    return next((f for f in ok(admin.get("/folders"))["folders"] if f["name"] == name), None)


def reports_in(admin, folder_id: int) -> dict[str, dict]:
    return {d["name"]: d for d in ok(admin.get("/dashboards"))["dashboards"] if d["folder_id"] == folder_id}


def test_a_new_site_gets_its_report_set_once(admin, sites_view):
    site_id = create_site(sites_view, "Shoe shop")
    folder = site_folder(admin, "Shoe shop")  # listing the folders is when the workbench looks
    assert folder is not None and not folder["personal"]
    listed = reports_in(admin, folder["folder_id"])
    assert sorted(listed) == sorted(REPORTS)

    overview = ok(admin.get(f"/dashboards/{listed['Overview']['dashboard_id']}"))
    period, site = (next(f for f in overview["filters"] if f["name"] == name) for name in ("Period", "Site"))
    assert period["type"] == "date_range" and period["default_value"] == "last-30-days" and period["required"]
    assert site["default_value"] == site_id
    questions = [card for card in overview["cards"] if card["kind"] == "question"]
    # Every card is linked to both filters: the statements are the templates', the site a value.
    assert {link["card_id"] for link in period["links"]} == {card["card_id"] for card in questions}
    assert {link["card_id"] for link in site["links"]} == {card["card_id"] for card in questions}
    # The segment (visits of some channels) feeds every card of the Overview too, optionally.
    segment = next(f for f in overview["filters"] if f["name"] == "Channel")
    assert segment["type"] == "one_of" and segment["default_value"] is None and not segment["required"]
    assert {link["card_id"] for link in segment["links"]} == {card["card_id"] for card in questions}
    kinds = [card["visualization"]["kind"] for card in questions]
    assert kinds.count("change") == 6 and "line" in kinds
    first = ok(admin.get(f"/questions/{questions[0]['question_id']}"))
    assert site_id not in first["sql"] and "{{site}}" in first["sql"]

    real_time = ok(admin.get(f"/dashboards/{listed['Real time']['dashboard_id']}"))
    # No period (the last 30 minutes); the segment's filters narrow it as they do the other reports.
    assert real_time["auto_refresh_seconds"] == 60
    assert [f["name"] for f in real_time["filters"]] == ["Channel", "Segment", "Site"]
    assert real_time["cache_ttl_seconds"] == 30

    # Asked again (another listing, or `analytics up`), nothing is made twice.
    site_reports.forget_check()
    assert len([f for f in ok(admin.get("/folders"))["folders"] if f["name"] == "Shoe shop"]) == 1
    assert len(reports_in(admin, folder["folder_id"])) == len(REPORTS)


def test_people_s_edits_and_deletions_are_never_undone(admin, sites_view, workbench_db):
    create_site(sites_view, "Blog", tracking_mode="cookieless")
    folder = site_folder(admin, "Blog")
    listed = reports_in(admin, folder["folder_id"])
    ok(admin.put(f"/dashboards/{listed['Overview']['dashboard_id']}", {"name": "My overview"}))
    assert admin.delete(f"/dashboards/{listed['Content']['dashboard_id']}").status_code == 204

    site_reports.forget_check()
    again = reports_in(admin, site_folder(admin, "Blog")["folder_id"])
    assert "My overview" in again and "Overview" not in again and "Content" not in again

    assert admin.delete(f"/folders/{folder['folder_id']}").status_code == 204
    site_reports.forget_check()
    assert site_folder(admin, "Blog") is None
    assert site_reports.seed_for_sites(workbench_db, [{"site_id": str(s), "site_name": "Blog", "tracking_mode": m}
                                                     for s, m in sites_view.execute(
                                                         "select site_id, tracking_mode from collect.sites")]) == []
    assert site_folder(admin, "Blog") is None


def test_a_site_created_later_is_seen_at_the_next_look(admin, sites_view):
    create_site(sites_view, "First site")
    assert site_folder(admin, "First site") is not None
    create_site(sites_view, "Second site")
    # Within the minute the workbench does not ask again; the next look after it makes the set.
    assert site_folder(admin, "Second site") is None
    site_reports.forget_check()
    assert ok(admin.get("/home"))["pinned"] == []
    assert site_folder(admin, "Second site") is not None


def test_without_the_view_nothing_is_made_and_nothing_fails(admin, warehouse):
    site_reports.forget_check()
    create_site(warehouse, "Not built yet")
    assert site_folder(admin, "Not built yet") is None
    assert ok(admin.get("/dashboards"))["dashboards"] == []


def test_the_audience_report_says_what_cookieless_sites_cannot_show(admin, sites_view):
    create_site(sites_view, "Cookieless site", tracking_mode="cookieless")
    folder = site_folder(admin, "Cookieless site")
    audience = ok(admin.get(f"/dashboards/{reports_in(admin, folder['folder_id'])['Audience']['dashboard_id']}"))
    text = next(card["text"] for card in audience["cards"] if card["kind"] == "text")
    assert "without cookies" in text and "cannot return" in text


def test_no_report_question_is_named_like_a_demo_question():
    """A person (or a test) picking the Demo folder's "Top pages" by name finds one question."""
    from workbench_app.home.demo_content import QUESTIONS

    names = [card["question"]["name"] for report in report_templates.reports() for card in report["cards"]
             if "question" in card]
    assert len(names) == len(set(names)) and not set(names) & {question["name"] for question in QUESTIONS}
