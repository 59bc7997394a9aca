"""A one-of filter on a shared page loads its values through the link or the token, under the
shared view's rights, checked on every call: a public link lists the values of the filters it opens
only, a revoked link is a 404, an expired token a 401."""
from __future__ import annotations

import pytest

from tests.workbench_api.conftest import Api, ok
from tests.workbench_api.test_sharing import _token




@pytest.fixture
def pages(admin, eu_analysts) -> dict:
    """A dashboard in a folder the EU analysts view, with two one-of filters over page_views."""
    folder = ok(admin.post("/folders", {"name": "Shared pages"}), 201)
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{eu_analysts}", {"level": "edit"}))  # the analyst may share it
    question = ok(admin.post("/questions", {"name": "Views by page", "folder_id": folder["folder_id"],
                                            "sql": "SELECT page, count(*) AS n FROM page_views GROUP BY 1"}), 201)
    return ok(admin.post("/dashboards", {
        "name": "Pages", "folder_id": folder["folder_id"],
        "cards": [{"key": "b", "question_id": question["question_id"]}],
        "filters": [{"name": "Page", "type": "one_of", "links": [{"card": "b", "column": "page"}],
                     "values": {"table": "warehouse.analytics.page_views", "column": "page"}},
                    {"name": "Country", "type": "one_of", "links": [],
                     "values": {"table": "warehouse.analytics.page_views", "column": "country"}}]}), 201)


def test_a_public_link_lists_the_values_of_the_filters_it_opens(app, admin, analyst, pages):
    ok(admin.patch("/settings", {"public_sharing": True}))
    analyst_api = Api(admin.client, analyst[1])  # reads EU rows only
    links = f"/dashboards/{pages['dashboard_id']}/public-links"
    created = ok(analyst_api.post(links, {"allowed_filters": ["Page"]}), 201)
    page, country = pages["filters"]
    visitor = Api(app.test_client())
    values = f"/public/{created['secret']}/filters/{page['filter_id']}/values"
    # The link's creator's rights: the EU's pages, never the US's /blog.
    assert ok(visitor.get(values)) == {"values": ["/home", "/pricing"], "truncated": False}
    assert ok(visitor.get(values + "?search=PRI"))["values"] == ["/pricing"]
    closed = visitor.get(f"/public/{created['secret']}/filters/{country['filter_id']}/values")
    assert closed.status_code == 400 and closed.get_json()["error"]["details"] == {"field": "filters.Country"}
    assert visitor.get(f"/public/{created['secret']}/filters/999999/values").status_code == 400
    assert visitor.get(values + "?search=" + "x" * 201).status_code == 400
    # Checked on every call: revoked, the next one is a 404.
    assert analyst_api.delete(f"{links}/{created['link']['link_id']}").status_code == 204
    gone = visitor.get(values)
    assert gone.status_code == 404 and "values" not in gone.get_json()


def test_an_embed_lists_values_under_its_token_s_attributes(app, admin, pages):
    group = ok(admin.get("/groups"))["groups"][0]["group_id"]  # EU analysts: region = {{user.region}}
    created = ok(admin.post("/embedding-secrets", {"name": "Pages portal", "group_id": group}), 201)
    kid, secret = created["embedding_secret"]["kid"], created["secret"]
    page = pages["filters"][0]
    client = app.test_client()
    path = f"/api/v1/embed/filters/{page['filter_id']}/values"

    def listed(token):
        return client.get(path, headers={"X-Embed-Token": token})

    us = _token(kid, secret, pages["dashboard_id"], {"region": "US"})
    assert ok(listed(us))["values"] == ["/blog", "/home"]
    assert ok(listed(_token(kid, secret, pages["dashboard_id"], {"region": "EU"})))["values"] == ["/home", "/pricing"]
    expired = listed(_token(kid, secret, pages["dashboard_id"], {"region": "US"}, lifetime=-5))
    assert expired.status_code == 401 and expired.get_json()["error"]["code"] == "embed_token_expired"
    assert "values" not in expired.get_json()
    other = ok(admin.post("/dashboards", {"name": "Other"}), 201)
    elsewhere = listed(_token(kid, secret, other["dashboard_id"], {"region": "US"}))
    assert elsewhere.status_code == 404
