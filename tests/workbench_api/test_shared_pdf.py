"""PDFs of shared dashboards: a public link that offers it (chosen at creation) and an embed whose
token carries `download_pdf` print on A4 under the share's rights, with only the link's filters;
every other case is refused before any browser starts, and the print ticket reaches no further
than the share it was issued for."""
from __future__ import annotations

from io import BytesIO

import pytest
from pypdf import PdfReader

from tests.workbench_api.conftest import Api, ok
from tests.workbench_api.test_sharing import REGION_QUESTION, _forged, _token
from workbench_app.accounts.identity import Identity
from workbench_app.printing import tickets
from workbench_app.sharing.shared_view import SharedView
from workbench_app.themes.resolution import effective_theme


def _dashboard(api: Api, folder_id: int | None = None) -> dict:
    """test_sharing's dashboard, its card drawn as a table (a one-row result would print as a number)."""
    folder = {"folder_id": folder_id} if folder_id else {}
    question = ok(api.post("/questions", {"name": "Views by region", "sql": REGION_QUESTION, **folder,
                                          "variables": {"country": "text", "since": "number"},
                                          "visualization": {"kind": "table", "y": []}}), 201)
    return ok(api.post("/dashboards", {
        "name": "Regions", **folder, "cards": [{"key": "r", "question_id": question["question_id"]}],
        "filters": [{"name": "Country", "type": "text", "links": [{"card": "r", "variable": "country"}]},
                    {"name": "Since", "type": "number", "links": [{"card": "r", "variable": "since"}]}]}), 201)


@pytest.fixture
def embedding(admin, eu_analysts):
    """As in test_sharing: a dashboard the EU analysts group views, and a secret bound to that group."""
    folder = ok(admin.post("/folders", {"name": "Customers"}), 201)
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{eu_analysts}", {"level": "view"}))
    dashboard = _dashboard(admin, folder["folder_id"])
    created = ok(admin.post("/embedding-secrets", {"name": "Acme portal", "group_id": eu_analysts,
                                                   "allowed_origins": ["http://host.example:8123"]}), 201)
    return dashboard, created["embedding_secret"], created["secret"]


def _text(answer) -> str:
    assert answer.status_code == 200, answer.get_data(as_text=True)[:500]
    assert answer.mimetype == "application/pdf" and answer.headers["Cache-Control"] == "no-store"
    reader = PdfReader(BytesIO(answer.data))
    for page in reader.pages:  # A4: 210 x 297 mm = 595 x 842 pt
        assert abs(float(page.mediabox.width) - 595) <= 1 and abs(float(page.mediabox.height) - 842) <= 1
    return "\n".join(page.extract_text() for page in reader.pages)


def _analyst_link(admin, analyst, **choices) -> tuple[dict, dict]:
    ok(admin.patch("/settings", {"public_sharing": True}))
    analyst_api = Api(admin.client, analyst[1])
    dashboard = _dashboard(analyst_api)
    created = ok(analyst_api.post(f"/dashboards/{dashboard['dashboard_id']}/public-links",
                                  {"allowed_filters": ["Since"], **choices}), 201)
    return dashboard, created


def test_a_public_link_that_offers_pdf_prints_under_its_creator_s_rights(app, admin, analyst):
    dashboard, created = _analyst_link(admin, analyst, allow_pdf=True)
    assert created["link"]["allow_pdf"] is True
    visitor = app.test_client()
    assert ok(visitor.get(f"/api/v1/public/{created['secret']}"))["share"]["allow_pdf"] is True
    since = next(f["filter_id"] for f in dashboard["filters"] if f["name"] == "Since")
    text = _text(visitor.get(f"/api/v1/public/{created['secret']}/pdf?f.{since}=2"))
    assert "Regions" in text and "Filters: Since: 2" in text and "Page 1 of" in text
    # The analyst who made the link reads EU rows only: so does its PDF.
    assert "EU" in text and "region" in text and "US" not in text


def test_public_pdf_refusals(app, admin, analyst):
    dashboard, created = _analyst_link(admin, analyst)  # allow_pdf left out: off
    assert created["link"]["allow_pdf"] is False
    visitor = app.test_client()
    path = f"/api/v1/public/{created['secret']}/pdf"
    refused = visitor.get(path, headers={"Accept-Language": "fr"})
    assert refused.status_code == 403 and refused.mimetype == "application/json"
    assert refused.get_json()["error"] == {"code": "pdf_not_allowed", "details": {},
                                           "message": "Ce tableau de bord partagé n'est pas proposé en PDF."}
    second, allowed = _analyst_link(admin, analyst, allow_pdf=True)
    country = next(f["filter_id"] for f in second["filters"] if f["name"] == "Country")
    not_opened = visitor.get(f"/api/v1/public/{allowed['secret']}/pdf?f.{country}=US")
    assert not_opened.status_code == 400 and not_opened.get_json()["error"]["details"] == {"field": "filters.Country"}
    assert visitor.get(f"/api/v1/public/{allowed['secret']}/pdf?orientation=sideways").status_code == 400
    bad_choice = Api(admin.client, analyst[1]).post(f"/dashboards/{dashboard['dashboard_id']}/public-links",
                                                    {"allow_pdf": "yes"})
    assert bad_choice.status_code == 400 and bad_choice.get_json()["error"]["details"] == {"field": "allow_pdf"}
    # Revoked: gone, PDF included.
    assert Api(admin.client, analyst[1]).delete(
        f"/dashboards/{allowed['link']['dashboard_id']}/public-links/{allowed['link']['link_id']}").status_code == 204
    gone = visitor.get(f"/api/v1/public/{allowed['secret']}/pdf")
    assert gone.status_code == 404 and gone.get_json()["error"]["code"] == "not_found"


def _embed_pdf(app, token: str, query: str = ""):
    return app.test_client().get(f"/api/v1/embed/pdf{query}", headers={"X-Embed-Token": token})


def test_an_embed_prints_when_its_token_carries_download_pdf(app, embedding):
    dashboard, record, secret = embedding
    dashboard_id = dashboard["dashboard_id"]
    us = _token(record["kid"], secret, dashboard_id, {"region": "US"}, permissions=["download_pdf"])
    assert ok(app.test_client().get("/api/v1/embed/dashboard",
                                    headers={"X-Embed-Token": us}))["share"]["allow_pdf"] is True
    text = _text(_embed_pdf(app, us))
    # The token's attributes choose the rows, in the PDF as on the page.
    assert "Regions" in text and "US" in text and "EU" not in text
    # Without the permission: viewing only.
    viewer = _token(record["kid"], secret, dashboard_id, {"region": "US"})
    refused = _embed_pdf(app, viewer)
    assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "pdf_not_allowed"
    unknown = _embed_pdf(app, _token(record["kid"], secret, dashboard_id, {"region": "US"},
                                     permissions=["download_everything"]))
    assert unknown.status_code == 401 and "permissions" in unknown.get_json()["error"]["message"]


def test_expired_and_forged_embed_tokens_get_401_and_no_pdf(app, embedding):
    dashboard, record, secret = embedding
    for case, (token, says) in _forged(record["kid"], secret, dashboard["dashboard_id"]).items():
        answer = _embed_pdf(app, token)
        assert answer.status_code == 401 and answer.mimetype == "application/json", case
        assert says in answer.get_json()["error"]["message"], case


def test_a_shared_print_ticket_keeps_the_link_s_filters(app, admin, analyst, workbench_db):
    dashboard, created = _analyst_link(admin, analyst, allow_pdf=True)
    who = Identity(analyst[0], "analyst@example.org", False)
    view = SharedView("public_link", who, dashboard["dashboard_id"], frozenset({"Since"}),
                      link_id=created["link"]["link_id"], allow_pdf=True)
    secret = tickets.issue(who, dashboard["dashboard_id"],
                           effective_theme(workbench_db, dashboard_id=dashboard["dashboard_id"]), view)
    run = f"/api/v1/dashboards/{dashboard['dashboard_id']}/cards/{dashboard['cards'][0]['card_id']}/run"
    header = {"Authorization": f"{tickets.SCHEME} {secret}"}
    try:
        client = app.test_client()
        assert ok(client.post(run, json={"filters": {"Since": 2}}, headers=header))["rows"] == [["EU", 2]]
        # The creator could set Country on their own dashboard; the ticket of their link may not.
        widened = client.post(run, json={"filters": {"Country": "FR"}}, headers=header)
        assert widened.status_code == 400 and widened.get_json()["error"]["details"] == {"field": "filters.Country"}
    finally:
        tickets.revoke(secret)
