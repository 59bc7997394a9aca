"""The accounts embedding secrets run as are not people: the People list (and so every person
picker, which reads it) leaves them out, and the users API refuses to change them with a clear
403, so their rights change only with their secret."""
from __future__ import annotations

import time

import jwt

from tests.workbench_api.conftest import ok


def test_embedding_accounts_are_not_listed_nor_changed_through_the_users_api(app, admin, eu_analysts):
    other_group = ok(admin.post("/groups", {"name": "Everything"}), 201)["group_id"]
    created = ok(admin.post("/embedding-secrets", {"name": "Acme portal", "group_id": eu_analysts}), 201)
    account = created["embedding_secret"]["account_id"]
    people = ok(admin.get("/users"))["users"]
    assert [person["email"] for person in people] == ["admin@example.org"]
    assert all(person["user_id"] != account for person in people)
    refusals = {
        "rename": admin.patch(f"/users/{account}", {"display_name": "Someone"}),
        "make administrator": admin.patch(f"/users/{account}", {"is_admin": True}),
        "deactivate": admin.patch(f"/users/{account}", {"is_active": False}),
        "attributes": admin.put(f"/users/{account}/attributes", {"attributes": {"region": "US"}}),
        "password link": admin.post(f"/users/{account}/password-link", {}),
        "another group": admin.put(f"/groups/{other_group}/members/{account}"),
        "out of its group": admin.delete(f"/groups/{eu_analysts}/members/{account}"),
    }
    for case, answer in refusals.items():
        assert answer.status_code == 403, case
        error = answer.get_json()["error"]
        assert error["code"] == "embedding_account" and "embedding secret" in error["message"], case
    ok(admin.patch("/me", {"locale": "fr"}))  # messages follow the signed-in person's language
    french = admin.patch(f"/users/{account}", {"is_admin": True})
    assert french.get_json()["error"]["message"].startswith("Ce compte appartient à un secret d'intégration")
    ok(admin.patch("/me", {"locale": "en"}))
    # Nothing changed: still not an administrator, still in its group only, its tokens still work.
    assert ok(admin.get(f"/groups/{other_group}"))["members"] == []
    assert account in ok(admin.get(f"/groups/{eu_analysts}"))["members"]
    token = jwt.encode({"resource": {"dashboard": ok(admin.post("/dashboards", {"name": "D"}), 201)["dashboard_id"]},
                        "user": {"id": "c", "attributes": {}}, "exp": int(time.time()) + 60},
                       created["secret"], algorithm="HS256", headers={"kid": created["embedding_secret"]["kid"]})
    # The dashboard is the admin's own: the account may not see it (404), but its token is valid (no 401).
    assert app.test_client().get("/api/v1/embed/dashboard", headers={"X-Embed-Token": token}).status_code == 404
    # People are changed as before; an unknown account is still a 404.
    assert admin.patch("/users/999999", {"display_name": "x"}).status_code == 404
    assert admin.put(f"/groups/{other_group}/members/999999").status_code == 404
