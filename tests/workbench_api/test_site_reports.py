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


@pytest.mark.parametrize("language", ["fr", "es"])
def test_every_report_text_is_in_the_catalogues(language, monkeypatch):
    used: list[str] = []
    monkeypatch.setattr(report_templates, "texts", lambda locale: lambda text: used.append(text) or text)
    for mode in ("cookie", "cookieless"):
        report_templates.reports(mode)
    used += [report_templates.PERIOD_FILTER, report_templates.SEGMENT_FILTER,
             report_templates.SAVED_SEGMENT_FILTER, report_templates.SITE_FILTER]
    catalogue = report_templates._catalogue(language)
    assert [text for text in used if not catalogue.get(text)] == []
    assert sorted(catalogue) == sorted(set(used))  # and no text the reports no longer use


def test_a_set_is_written_in_the_workbench_s_default_language_and_stays_so(admin, sites_view):
    ok(admin.patch("/settings", {"default_locale": "fr"}))
    create_site(sites_view, "Boutique", tracking_mode="cookieless")
    folder = site_folder(admin, "Boutique")
    french = report_templates.reports("cookieless", "fr")
    listed = reports_in(admin, folder["folder_id"])
    assert sorted(listed) == sorted(report["name"] for report in french) and "Vue d'ensemble" in listed
    assert listed["Vue d'ensemble"]["description"].startswith("Visiteurs, visites, pages vues")
    overview = ok(admin.get(f"/dashboards/{listed[french[0]['name']]['dashboard_id']}"))
    assert [f["name"] for f in overview["filters"]] == ["Période", "Canal", "Segment", "Site"]
    assert "Visiteurs" in [card["question_name"] for card in overview["cards"]]
    first = ok(admin.get(f"/questions/{overview['cards'][0]['question_id']}"))
    assert first["description"] == "Visiteurs distincts de la période."
    audience = ok(admin.get(f"/dashboards/{listed['Audience']['dashboard_id']}"))
    assert "Ce site mesure sans cookies" in next(c["text"] for c in audience["cards"] if c["kind"] == "text")
    returning = next(c for c in audience["cards"] if c["question_name"] == "Nouveaux visiteurs et visiteurs de retour")
    assert "'De retour'" in ok(admin.get(f"/questions/{returning['question_id']}"))["sql"]

    # A person's edit stays theirs; the default language changing later rewrites nothing.
    ok(admin.put(f"/dashboards/{listed['Contenu']['dashboard_id']}", {"name": "Nos pages"}))
    ok(admin.patch("/settings", {"default_locale": "es"}))
    site_reports.forget_check()
    again = reports_in(admin, site_folder(admin, "Boutique")["folder_id"])
    assert "Nos pages" in again and "Vue d'ensemble" in again and "Resumen" not in again
    create_site(sites_view, "Tienda")
    site_reports.forget_check()
    assert "Resumen" in reports_in(admin, site_folder(admin, "Tienda")["folder_id"])


def _without_segment(sql: str) -> str:
    return sql.replace("\n    [[AND visit_id IN {{segment}}]]", "")


def test_sets_made_before_the_segment_filter_get_it_once(admin, sites_view, workbench_db):
    create_site(sites_view, "Old shop")
    listed = reports_in(admin, site_folder(admin, "Old shop")["folder_id"])
    overview_id, content_id = listed["Overview"]["dashboard_id"], listed["Content"]["dashboard_id"]
    overview = ok(admin.get(f"/dashboards/{overview_id}"))
    edited = overview["cards"][0]
    # As an earlier version made it: no Segment filter, statements without the segment's clause
    # (the Content report keeps its filter, as a person might have added one).
    workbench_db.execute("""delete from dashboard_filters where type = 'segment' and dashboard_id in
                            (select dashboard_id from dashboards d join folders f using (folder_id)
                             where f.name = 'Old shop' and d.dashboard_id <> %s)""", (content_id,))
    # Real time was made with the filter, and a person then removed it: it is not added back.
    real_time_id = listed["Real time"]["dashboard_id"]
    for question_id, sql in workbench_db.execute(
            """select q.question_id, q.sql_text from questions q join folders f using (folder_id)
               where f.name = 'Old shop' and q.question_id not in
                 (select question_id from dashboard_cards where dashboard_id = %s and question_id is not null)""",
            (real_time_id,)).fetchall():
        workbench_db.execute("update questions set sql_text = %s, variables = variables - 'segment' "
                             "where question_id = %s", (_without_segment(sql), question_id))
    # A person rewrote one card's statement: it is theirs, never replaced.
    mine = "SELECT 1 AS visitors, 2 AS previous_period"
    ok(admin.patch(f"/questions/{edited['question_id']}", {"sql": mine, "variables": {}}))
    workbench_db.execute("delete from seeded_content where name = %s", (site_reports.SEGMENT_UPGRADE_MARKER,))

    site_reports.forget_check()
    site_folder(admin, "Old shop")  # the next look brings the sets up to date
    overview = ok(admin.get(f"/dashboards/{overview_id}"))
    segment_filters = [f for f in overview["filters"] if f["type"] == "segment"]
    assert [f["name"] for f in segment_filters] == ["Segment"]
    linked = {link["card_id"] for link in segment_filters[0]["links"]}
    questions = {card["card_id"]: card for card in overview["cards"] if card["kind"] == "question"}
    assert linked == set(questions) - {edited["card_id"]}
    assert ok(admin.get(f"/questions/{edited['question_id']}"))["sql"] == mine
    visits = next(card for card in questions.values() if card["question_name"] == "Visits")
    assert "{{segment}}" in ok(admin.get(f"/questions/{visits['question_id']}"))["sql"]
    real_time = ok(admin.get(f"/dashboards/{real_time_id}"))
    assert not [f for f in real_time["filters"] if f["type"] == "segment"]
    content = ok(admin.get(f"/dashboards/{content_id}"))
    assert len([f for f in content["filters"] if f["type"] == "segment"]) == 1
    acquisition = ok(admin.get(f"/dashboards/{listed['Acquisition']['dashboard_id']}"))
    attribution = next(c for c in acquisition["cards"] if c["question_name"] == "Attribution by model")
    linked = {link["card_id"] for f in acquisition["filters"] if f["type"] == "segment" for link in f["links"]}
    assert linked and attribution["card_id"] not in linked

    # Once: a person who then removes the filter does not see it come back.
    workbench_db.execute("delete from dashboard_filters where dashboard_id = %s and type = 'segment'", (overview_id,))
    site_reports.forget_check()
    site_folder(admin, "Old shop")
    assert not [f for f in ok(admin.get(f"/dashboards/{overview_id}"))["filters"] if f["type"] == "segment"]
