"""API tokens as the tokens screen uses them: one's own list, everyone's for administrators."""
from __future__ import annotations

from tests.workbench_api.conftest import Api, ok


def test_administrators_see_and_revoke_everyones_tokens_people_only_their_own(admin, analyst):
    user = Api(admin.client, analyst[1])
    own = ok(user.post("/tokens", {"name": "report script"}), 201)
    assert own["secret"].startswith("wbt_")
    mine = ok(user.get("/tokens"))["tokens"]
    assert {t["name"] for t in mine} == {"sign-in", "report script"} and all("secret" not in t for t in mine)
    assert user.get("/tokens?all=true").status_code == 403
    assert {t["name"] for t in ok(user.get("/tokens?all=false"))["tokens"]} == {"sign-in", "report script"}
    everyone = ok(admin.get("/tokens?all=true"))["tokens"]
    script = next(t for t in everyone if t["name"] == "report script")
    assert script["owner_email"] == "analyst@example.org" and "secret_hash" not in script
    assert ok(admin.delete(f"/tokens/{script['token_id']}"))["state"] == "revoked"
    assert Api(admin.client, own["secret"]).get("/me").status_code == 401
    # A person cannot revoke someone else's token (it does not exist for them).
    admins = next(t for t in everyone if t["user_id"] != analyst[0])
    assert user.delete(f"/tokens/{admins['token_id']}").status_code == 404
