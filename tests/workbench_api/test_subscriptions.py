"""Subscriptions through the API: created on what the owner may read, seen and changed by the owner
and administrators only, recipients checked (accounts; external addresses and webhooks only where
an administrator allows them), schedules refused with the reason, a webhook's signing key shown once."""
from __future__ import annotations

import pytest

from tests.workbench_api.conftest import Api, create_user_with_token, ok
from workbench_app.subscriptions.shapes import DeliveryList, Subscription, SubscriptionList

DAILY = {"every": "day", "hour": 8, "timezone": "Europe/Paris"}


@pytest.fixture
def board(admin) -> int:
    return ok(admin.post("/dashboards", {"name": "Traffic"}), 201)["dashboard_id"]


def test_a_subscription_to_a_dashboard_names_its_next_sending_and_its_recipients(admin, board):
    user_id, _ = create_user_with_token(admin, "ana@example.org")
    made = ok(admin.post("/subscriptions", {
        "target_kind": "dashboard", "target_id": board, "name": "Morning traffic", "schedule": DAILY,
        "filters": {"country": "FR"}, "recipients": [{"user_id": user_id}, {"email": "ANA@example.org"}]}), 201)
    assert (made["target_kind"], made["target_id"], made["channel"], made["paused"]) == ("dashboard", board, "email", False)
    assert made["schedule"] == {**DAILY, "minute": 0, "weekday": None, "day": None}
    # The address of an account is that account: one recipient, under the account's own rights.
    assert [(r["user_id"], r["email"], r["external"]) for r in made["recipients"]] == [(user_id, "ana@example.org", False)]
    assert made["next_due_at"] is not None and "webhook_secret" not in made
    listed = ok(admin.get(f"/subscriptions?target_kind=dashboard&target_id={board}"))["subscriptions"]
    assert [s["subscription_id"] for s in listed] == [made["subscription_id"]]
    assert ok(admin.get(f"/subscriptions/{made['subscription_id']}/deliveries")) == {"deliveries": []}
    # The answers are what the document says (the models forbid a field they do not name).
    Subscription.model_validate(made)
    SubscriptionList.model_validate({"subscriptions": listed})
    DeliveryList.model_validate({"deliveries": []})
    audit = ok(admin.get("/audit?action=subscription."))["entries"]
    assert [entry["action"] for entry in audit] == ["subscription.created"]


def test_pause_rename_replace_recipients_and_delete(admin, board):
    first, _ = create_user_with_token(admin, "bo@example.org")
    second, _ = create_user_with_token(admin, "cy@example.org")
    made = ok(admin.post("/subscriptions", {"target_kind": "dashboard", "target_id": board, "schedule": DAILY,
                                            "recipients": [{"user_id": first}]}), 201)
    path = f"/subscriptions/{made['subscription_id']}"
    changed = ok(admin.patch(path, {"name": "Weekly", "paused": True, "recipients": [{"user_id": second}],
                                    "schedule": {"every": "week", "weekday": 0, "hour": 9}}))
    assert (changed["name"], changed["paused"], changed["next_due_at"]) == ("Weekly", True, None)
    assert [r["user_id"] for r in changed["recipients"]] == [second]
    assert changed["schedule"]["every"] == "week"
    assert ok(admin.patch(path, {"paused": False}))["next_due_at"] is not None
    ok(admin.delete(path), 204)
    assert admin.get(path).status_code == 404


def test_only_the_owner_and_administrators_see_a_subscription(admin, board):
    _, token = create_user_with_token(admin, "dee@example.org")
    other = Api(admin.client, token)
    made = ok(admin.post("/subscriptions", {"target_kind": "dashboard", "target_id": board, "schedule": DAILY,
                                            "recipients": [{"email": "admin@example.org"}]}), 201)
    assert other.get(f"/subscriptions/{made['subscription_id']}").status_code == 404
    assert other.patch(f"/subscriptions/{made['subscription_id']}", {"paused": True}).status_code == 404
    assert ok(other.get("/subscriptions"))["subscriptions"] == []
    assert other.get("/subscriptions?all=true").status_code == 403
    assert len(ok(admin.get("/subscriptions?all=true"))["subscriptions"]) == 1
    # Nor may anyone subscribe to what they cannot read (the dashboard is in the admin's own folder).
    refused = other.post("/subscriptions", {"target_kind": "dashboard", "target_id": board, "schedule": DAILY,
                                            "recipients": [{"email": "dee@example.org"}]})
    assert refused.status_code in (403, 404)


def test_external_addresses_and_webhooks_wait_for_an_administrator(admin, board):
    external = {"target_kind": "dashboard", "target_id": board, "schedule": DAILY,
                "recipients": [{"email": "partner@elsewhere.example"}]}
    webhook = {"target_kind": "dashboard", "target_id": board, "schedule": DAILY, "channel": "webhook",
               "webhook_url": "https://hooks.example/analytics", "webhook_format": "slack"}
    for body in (external, webhook):
        refused = admin.post("/subscriptions", body)
        assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "external_recipients_off"
    assert ok(admin.patch("/settings", {"external_recipients": True}))["external_recipients"] is True
    made = ok(admin.post("/subscriptions", external), 201)
    assert made["recipients"][0]["external"] is True
    hook = Subscription.model_validate(ok(admin.post("/subscriptions", webhook), 201)).model_dump()
    assert hook["webhook_secret"].startswith("whsec_") and hook["recipients"] == []
    assert "webhook_secret" not in ok(admin.get(f"/subscriptions/{hook['subscription_id']}"))  # shown once


@pytest.mark.parametrize("change, field", [
    ({"schedule": {"every": "week", "hour": 8}}, "schedule.weekday"),
    ({"schedule": {"every": "day", "hour": 8, "timezone": "Mars/Olympus"}}, "schedule.timezone"),
    ({"schedule": {"every": "day", "hour": 25}}, "hour"),
    ({"schedule": {"every": "hourly", "hour": 1}}, "every"),
    ({"schedule": "daily"}, "schedule"),
    ({"target_kind": "folder"}, "target_kind"),
    ({"recipients": []}, "recipients"),
    ({"recipients": [{"user_id": 999999}]}, "recipients"),
    ({"recipients": [{"email": "not an address"}]}, "recipients"),
    ({"recipients": [{}]}, "recipients"),
    ({"recipients": [{"email": f"r{n}@example.org"} for n in range(51)]}, "recipients"),
    ({"webhook_url": "https://hooks.example/x"}, "webhook_url"),
    ({"channel": "webhook", "recipients": [], "webhook_url": "ftp://hooks.example/x"}, "webhook_url"),
    ({"channel": "webhook", "recipients": []}, "webhook_url"),
    ({"channel": "webhook", "webhook_url": "https://hooks.example/x"}, "recipients"),
])
def test_a_subscription_that_cannot_be_kept_is_refused_with_the_field(admin, board, change, field):
    body = {"target_kind": "dashboard", "target_id": board, "schedule": DAILY,
            "recipients": [{"email": "admin@example.org"}], **change}
    refused = admin.post("/subscriptions", body)
    assert refused.status_code == 400, refused.get_json()
    error = refused.get_json()["error"]
    assert error["code"] == "invalid_input" and error["details"].get("field") == field, error


def test_refusals_speak_the_person_s_language(admin, board):
    ok(admin.patch("/me", {"locale": "fr"}))
    refused = admin.post("/subscriptions", {"target_kind": "dashboard", "target_id": board,
                                            "schedule": {"every": "week", "hour": 8}, "recipients": []})
    assert refused.get_json()["error"]["message"] == "weekday est donné pour un envoi hebdomadaire, et seulement alors."
    assert admin.get("/subscriptions/999").get_json()["error"]["message"] == "Abonnement introuvable."


def test_recipient_accounts_are_found_by_name_or_address_among_those_the_caller_may_see(admin, eu_analysts):
    """An administrator finds every active person; anyone else themselves and their groups' members,
    name and e-mail only, at most ten; the search's wildcards are plain characters."""
    ana, ana_token = create_user_with_token(admin, "ana@example.org", groups=(eu_analysts,))
    ok(admin.patch(f"/users/{ana}", {"display_name": "Ana Pérez"}))
    bob, _ = create_user_with_token(admin, "bob_b@example.org", groups=(eu_analysts,))
    outsider, _ = create_user_with_token(admin, "carl@example.org")
    gone, _ = create_user_with_token(admin, "dora@example.org", groups=(eu_analysts,))
    ok(admin.patch(f"/users/{gone}", {"is_active": False}))
    ana_api = Api(admin.client, ana_token)

    def found(api: Api, search: str) -> list[str]:
        answer = ok(api.get(f"/recipient-accounts?search={search}"))
        assert set(answer) == {"accounts"} and all(set(a) == {"user_id", "display_name", "email"}
                                                   for a in answer["accounts"])
        return [account["email"] for account in answer["accounts"]]

    assert found(admin, "example.org") == ["admin@example.org", "ana@example.org", "bob_b@example.org",
                                           "carl@example.org"]
    assert found(ana_api, "example.org") == ["ana@example.org", "bob_b@example.org"]  # not carl, not dora
    assert found(ana_api, "pérez") == ["ana@example.org"] and found(ana_api, "carl") == []
    assert found(admin, "_") == ["bob_b@example.org"] and found(admin, "%25") == [] and found(admin, "") == []
    too_long = admin.get("/recipient-accounts?search=" + "x" * 101)
    assert too_long.status_code == 400 and too_long.get_json()["error"]["code"] == "invalid_input"
