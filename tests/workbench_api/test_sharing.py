"""Sharing dashboards: public links (off by default, under their creator's rights, with chosen
filters, revocable at once, audited, rate limited) and signed embeds (HS256 tokens checked on every
call, attributes feeding the secret's group's row filters, frame-ancestors from the secret)."""
from __future__ import annotations

import base64
import json
import time

import jwt
import pytest

from tests.workbench_api.conftest import Api, create_user_with_token, ok

REGION_QUESTION = "SELECT region, count(*) AS n FROM page_views WHERE true [[AND country = {{country}}]] " \
                  "[[AND view_id >= {{since}}]] GROUP BY 1 ORDER BY 1"


def _dashboard(api: Api, folder_id: int | None = None) -> dict:
    question = ok(api.post("/questions", {"name": "Views by region", "sql": REGION_QUESTION,
                                          "variables": {"country": "text", "since": "number"},
                                          **({"folder_id": folder_id} if folder_id else {})}), 201)
    return ok(api.post("/dashboards", {
        "name": "Regions", **({"folder_id": folder_id} if folder_id else {}),
        "cards": [{"key": "r", "question_id": question["question_id"]}],
        "filters": [{"name": "Country", "type": "text", "links": [{"card": "r", "variable": "country"}]},
                    {"name": "Since", "type": "number", "links": [{"card": "r", "variable": "since"}]}]}), 201)


def _public(app) -> Api:
    return Api(app.test_client())


# --- public links ----------------------------------------------------------------------------------

def test_public_links_are_off_until_an_administrator_turns_them_on(admin):
    dashboard = _dashboard(admin)
    assert ok(admin.get("/settings"))["public_sharing"] is False
    refused = admin.post(f"/dashboards/{dashboard['dashboard_id']}/public-links", {"allowed_filters": []})
    assert refused.status_code == 403 and "Public sharing is off" in refused.get_json()["error"]["message"]
    assert ok(admin.patch("/settings", {"public_sharing": True}))["public_sharing"] is True
    ok(admin.post(f"/dashboards/{dashboard['dashboard_id']}/public-links", {"allowed_filters": []}), 201)


def test_a_public_link_runs_under_its_creator_s_rights_with_only_the_chosen_filters(app, admin, analyst):
    ok(admin.patch("/settings", {"public_sharing": True}))
    analyst_api = Api(admin.client, analyst[1])
    dashboard = _dashboard(analyst_api)  # in the analyst's personal folder: they may share it
    created = ok(analyst_api.post(f"/dashboards/{dashboard['dashboard_id']}/public-links",
                                  {"allowed_filters": ["Since"]}), 201)
    assert created["path"] == f"/public/{created['secret']}" and created["link"]["allowed_filters"] == ["Since"]
    visitor = _public(app)  # no token, no session
    shown = ok(visitor.get(f"/public/{created['secret']}"))
    assert shown["name"] == "Regions" and [f["settable"] for f in shown["filters"]] == [False, True]
    card = f"/public/{created['secret']}/cards/{dashboard['cards'][0]['card_id']}/run"
    # The analyst reads EU rows only: so does everyone with their link, never more.
    assert ok(visitor.post(card, {}))["rows"] == [["EU", 3]]
    assert ok(visitor.post(card, {"filters": {"Since": 2}}))["rows"] == [["EU", 2]]
    not_opened = visitor.post(card, {"filters": {"Country": "US"}})
    assert not_opened.status_code == 400
    assert not_opened.get_json()["error"]["details"] == {"field": "filters.Country"}
    wrong_type = visitor.post(card, {"filters": {"Since": "soon"}})
    assert wrong_type.status_code == 400
    assert wrong_type.get_json()["error"]["details"] == {"field": "filters.Since"}
    csv = visitor.post(card.replace("/run", "/csv"), {"filters": {"Since": 2}})
    assert csv.status_code == 200 and csv.get_data(as_text=True) == "region,n\r\nEU,2\r\n"
    # Someone who may only view the dashboard may not share it.
    other_id, other_token = create_user_with_token(admin, "viewer@example.org")
    refused = Api(admin.client, other_token).post(f"/dashboards/{dashboard['dashboard_id']}/public-links", {})
    assert refused.status_code == 404


def test_a_revoked_link_is_gone_at_once_and_both_acts_are_audited(app, admin):
    ok(admin.patch("/settings", {"public_sharing": True}))
    dashboard = _dashboard(admin)
    links = f"/dashboards/{dashboard['dashboard_id']}/public-links"
    created = ok(admin.post(links, {"allowed_filters": ["Country"]}), 201)
    visitor = _public(app)
    ok(visitor.get(f"/public/{created['secret']}"))
    assert ok(admin.get(links))["links"][0]["revoked_at"] is None
    assert admin.delete(f"{links}/{created['link']['link_id']}").status_code == 204
    gone = visitor.get(f"/public/{created['secret']}")
    assert gone.status_code == 404 and gone.get_json()["error"]["code"] == "not_found"
    run = visitor.post(f"/public/{created['secret']}/cards/{dashboard['cards'][0]['card_id']}/run", {})
    assert run.status_code == 404
    actions = [entry["action"] for entry in ok(admin.get("/audit?action=share"))["entries"]]
    assert actions[:2] == ["share.public_link_revoked", "share.public_link_created"]
    # Turning public sharing off stops every link too.
    second = ok(admin.post(links, {}), 201)
    ok(admin.patch("/settings", {"public_sharing": False}))
    assert visitor.get(f"/public/{second['secret']}").status_code == 404
    assert visitor.get("/public/not-a-link").status_code == 404


def test_a_public_link_is_rate_limited_with_a_clear_429(app, admin):
    ok(admin.patch("/settings", {"public_sharing": True, "public_link_requests_per_minute": 2}))
    dashboard = _dashboard(admin)
    created = ok(admin.post(f"/dashboards/{dashboard['dashboard_id']}/public-links", {}), 201)
    visitor = _public(app)
    ok(visitor.get(f"/public/{created['secret']}"))
    ok(visitor.get(f"/public/{created['secret']}"))
    limited = app.test_client().get(f"/api/v1/public/{created['secret']}", headers={"Accept-Language": "fr"})
    assert limited.status_code == 429 and 1 <= int(limited.headers["Retry-After"]) <= 60
    assert limited.get_json()["error"]["code"] == "rate_limited"
    assert limited.get_json()["error"]["message"].startswith("Ce tableau de bord partagé est trop sollicité")


# --- signed embeds ---------------------------------------------------------------------------------

HOST = "http://host.example:8123"


@pytest.fixture
def embedding(admin, eu_analysts):
    """A dashboard in a shared folder the EU analysts group views, and a secret bound to that group."""
    folder = ok(admin.post("/folders", {"name": "Customers"}), 201)
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{eu_analysts}", {"level": "view"}))
    dashboard = _dashboard(admin, folder["folder_id"])
    created = ok(admin.post("/embedding-secrets", {"name": "Acme portal", "group_id": eu_analysts,
                                                   "allowed_origins": [HOST + "/"]}), 201)
    return dashboard, created["embedding_secret"], created["secret"]


def _token(kid: str, secret: str, dashboard_id: int, attributes: dict, lifetime: int = 600, **changes) -> str:
    claims = {"resource": {"dashboard": dashboard_id}, "user": {"id": "customer-7", "attributes": attributes},
              "exp": int(time.time()) + lifetime, **changes}
    return jwt.encode(claims, secret, algorithm="HS256", headers={"kid": kid})


def _embed_run(app, token: str, card_id: int, body=None, kind: str = "run"):
    return app.test_client().post(f"/api/v1/embed/cards/{card_id}/{kind}", json=body or {},
                                  headers={"X-Embed-Token": token})


def test_embedding_secrets_are_shown_once_bound_to_a_group_and_audited(admin, embedding, analyst):
    _, record, secret = embedding
    assert record["allowed_origins"] == [HOST] and record["kid"].startswith("emb_") and len(secret) >= 40
    listed = ok(admin.get("/embedding-secrets"))["secrets"]
    assert listed[0]["kid"] == record["kid"] and "secret" not in listed[0] and "sealed_secret" not in listed[0]
    assert ok(admin.get("/audit?action=share.embedding_secret"))["entries"][0]["target"] == record["kid"]
    assert Api(admin.client, analyst[1]).get("/embedding-secrets").status_code == 403
    bad = admin.post("/embedding-secrets", {"name": "x", "group_id": record["group_id"],
                                            "allowed_origins": ["https://a.example/page"]})
    assert bad.status_code == 400 and bad.get_json()["error"]["details"] == {"field": "allowed_origins"}


def test_the_token_s_attributes_choose_the_rows_of_the_group_s_rules(app, embedding):
    dashboard, record, secret = embedding
    card_id = dashboard["cards"][0]["card_id"]
    eu = _token(record["kid"], secret, dashboard["dashboard_id"], {"region": "EU"})
    us = _token(record["kid"], secret, dashboard["dashboard_id"], {"region": "US"})
    assert ok(_embed_run(app, eu, card_id))["rows"] == [["EU", 3]]
    assert ok(_embed_run(app, us, card_id))["rows"] == [["US", 2]]
    assert ok(_embed_run(app, us, card_id, {"filters": {"Since": 4}}))["rows"] == [["US", 1]]
    # A missing attribute closes access rather than opening it.
    closed = _embed_run(app, _token(record["kid"], secret, dashboard["dashboard_id"], {}), card_id)
    assert closed.status_code == 404 and "rows" not in closed.get_json()
    shown = ok(app.test_client().get("/api/v1/embed/dashboard", headers={"X-Embed-Token": eu}))
    assert shown["dashboard_id"] == dashboard["dashboard_id"] and shown["share"] == {
        "kind": "embed", "allowed_origins": [HOST], "allow_pdf": False}
    wrong_type = _embed_run(app, eu, card_id, {"filters": {"Since": "x"}})
    assert wrong_type.status_code == 400 and wrong_type.get_json()["error"]["details"] == {"field": "filters.Since"}
    csv = _embed_run(app, us, card_id, kind="csv")
    assert csv.status_code == 200 and csv.get_data(as_text=True) == "region,n\r\nUS,2\r\n"


def test_a_token_for_one_dashboard_runs_no_card_of_another(app, admin, embedding):
    dashboard, record, secret = embedding
    other = _dashboard(admin, dashboard["folder_id"])
    token = _token(record["kid"], secret, dashboard["dashboard_id"], {"region": "EU"})
    answer = _embed_run(app, token, other["cards"][0]["card_id"])
    assert answer.status_code == 404 and "rows" not in answer.get_json()


def _forged(kid: str, secret: str, dashboard_id: int) -> dict[str, tuple[str, str]]:
    good = _token(kid, secret, dashboard_id, {"region": "EU"})
    header, payload, signature = good.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["user"]["attributes"]["region"] = "US"
    tampered = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    unsigned = jwt.encode({"resource": {"dashboard": dashboard_id}, "user": {"id": "x", "attributes": {}},
                           "exp": int(time.time()) + 60}, None, algorithm="none", headers={"kid": kid})
    no_exp = jwt.encode({"resource": {"dashboard": dashboard_id}, "user": {"id": "x", "attributes": {}}},
                        secret, algorithm="HS256", headers={"kid": kid})
    return {
        "expired": (_token(kid, secret, dashboard_id, {"region": "EU"}, lifetime=-5), "has expired"),
        "alg none": (unsigned, "must be signed with HS256"),
        "HS512": (jwt.encode({"exp": int(time.time()) + 60}, secret, algorithm="HS512", headers={"kid": kid}),
                  "must be signed with HS256"),
        "wrong kid": (_token("emb_unknown", secret, dashboard_id, {"region": "EU"}), "names no active"),
        "another secret": (_token(kid, "another secret of at least thirty-two bytes!", dashboard_id, {"region": "EU"}),
                           "signature does not match"),
        "tampered": (f"{header}.{tampered}.{signature}", "signature does not match"),
        "garbage": ("not.a.token", "not a valid signed token"),
        "no exp": (no_exp, "needs an expiry"),
        "too long": (_token(kid, secret, dashboard_id, {"region": "EU"}, lifetime=7200), "at most 3600 seconds"),
        "no dashboard": (_token(kid, secret, dashboard_id, {}, resource={}), "resource.dashboard"),
        "bad user": (_token(kid, secret, dashboard_id, {}, user={"id": 7}), "user.id"),
        "missing": ("", "An embed token is required"),
    }


def test_forged_expired_and_malformed_tokens_get_a_clear_401_and_no_data(app, embedding):
    dashboard, record, secret = embedding
    card_id = dashboard["cards"][0]["card_id"]
    for case, (token, says) in _forged(record["kid"], secret, dashboard["dashboard_id"]).items():
        for answer in (_embed_run(app, token, card_id), _embed_run(app, token, card_id, kind="csv"),
                       app.test_client().get("/api/v1/embed/dashboard", headers={"X-Embed-Token": token})):
            assert answer.status_code == 401, case
            error = answer.get_json()["error"]
            assert says in error["message"], (case, error)
            assert error["code"] == ("embed_token_expired" if case == "expired" else "embed_token_invalid"), case
            assert "rows" not in answer.get_json() and "cards" not in answer.get_json()
    expired = _forged(record["kid"], secret, dashboard["dashboard_id"])["expired"][0]
    french = app.test_client().post(f"/api/v1/embed/cards/{card_id}/csv", json={},
                                    headers={"X-Embed-Token": expired, "Accept-Language": "fr"})
    assert french.status_code == 401
    assert french.get_json()["error"]["message"] == (
        "Le jeton d'intégration a expiré : la page hôte doit en fournir un nouveau.")


def test_a_revoked_secret_stops_its_tokens_at_once(app, admin, embedding):
    dashboard, record, secret = embedding
    token = _token(record["kid"], secret, dashboard["dashboard_id"], {"region": "EU"})
    ok(_embed_run(app, token, dashboard["cards"][0]["card_id"]))
    assert admin.delete(f"/embedding-secrets/{record['secret_id']}").status_code == 204
    answer = _embed_run(app, token, dashboard["cards"][0]["card_id"])
    assert answer.status_code == 401 and "names no active" in answer.get_json()["error"]["message"]
    assert ok(admin.get("/embedding-secrets"))["secrets"][0]["revoked_at"] is not None


def test_only_the_embed_page_may_be_framed_and_only_by_the_secret_s_hosts(app, embedding):
    dashboard, record, secret = embedding
    token = _token(record["kid"], secret, dashboard["dashboard_id"], {"region": "EU"})
    # buffered: the page shell streams its body; an unread stream is closed later, outside its context
    page = app.test_client().get(f"/embed?token={token}", buffered=True)
    assert f"frame-ancestors {HOST};" in page.headers["Content-Security-Policy"] + ";"
    assert "X-Frame-Options" not in page.headers and page.headers["Referrer-Policy"] == "no-referrer"
    unknown = app.test_client().get("/embed?token=not.a.token", buffered=True)
    assert "frame-ancestors 'none'" in unknown.headers["Content-Security-Policy"]
    for path in ("/", "/dashboards/1", "/api/v1/openapi.json"):
        other = app.test_client().get(path, buffered=True)
        assert "frame-ancestors 'none'" in other.headers["Content-Security-Policy"], path
        assert other.headers["X-Frame-Options"] == "DENY", path
