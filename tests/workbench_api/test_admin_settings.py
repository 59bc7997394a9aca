"""The workbench's settings: the language of new accounts (audited), the sign-in methods."""
from __future__ import annotations

from tests.workbench_api.conftest import ok


def test_the_default_language_applies_to_accounts_created_without_one(admin):
    assert ok(admin.get("/settings")) == {"default_locale": "en", "sign_in_methods": {"password": True, "oidc": False},
                                          "public_sharing": False, "embed_max_lifetime_seconds": 3600,
                                          "public_link_requests_per_minute": 120, "external_recipients": False}
    assert ok(admin.patch("/settings", {"default_locale": "es"}))["default_locale"] == "es"
    assert ok(admin.post("/users", {"email": "nueva@example.org"}), 201)["locale"] == "es"
    assert ok(admin.post("/users", {"email": "new@example.org", "locale": "en"}), 201)["locale"] == "en"
    entries = ok(admin.get("/audit", query_string={"action": "settings"}))["entries"]
    assert entries[0]["details"] == {"default_locale": "es"}


def test_a_bad_language_is_refused(admin):
    refused = admin.patch("/settings", {"default_locale": "de"})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "default_locale"
    assert ok(admin.get("/settings"))["default_locale"] == "en"
