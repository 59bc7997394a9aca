"""The mail server in Settings: administrators only, refusals structured with the field, the password
sealed in the database and never answered, the environment's server as the default that a server set
here replaces whole, and a test message that a real SMTP server receives."""
from __future__ import annotations

from dataclasses import replace
from email import message_from_bytes, policy

import pytest

from tests.workbench_api.conftest import create_user_with_token, ok
from tests.workbench_deliveries.conftest import plain_server  # noqa: F401 - a fixture
from workbench_app.subscriptions.shapes import MailServerSettings

PASSWORD = "a mail password, plain"


@pytest.fixture
def workbench_settings(workbench_settings):
    """The environment names a server (ANALYTICS_SMTP_*), with a password of its own."""
    return replace(workbench_settings, smtp_host="smtp.environment.example", smtp_port=2525, smtp_security="starttls",
                   smtp_username="env-user", smtp_password="env-password", smtp_from="env@example.org")


def test_the_environment_s_server_is_the_default_and_one_set_here_replaces_it_whole(admin, workbench_db):
    shown = ok(admin.get("/settings/mail"))
    MailServerSettings.model_validate(shown)
    assert shown == {"enabled": True, "source": "environment", "host": "smtp.environment.example", "port": 2525,
                     "security": "starttls", "username": "env-user", "password_set": True,
                     "from_address": "env@example.org"}
    changed = ok(admin.patch("/settings/mail", {"host": "mail.example.org", "security": "tls", "username": "reports",
                                                "password": PASSWORD, "from_address": "reports@example.org"}))
    # Nothing of the environment's server is kept (its port, its password): the default port of TLS.
    assert changed == {"enabled": True, "source": "settings", "host": "mail.example.org", "port": 465,
                       "security": "tls", "username": "reports", "password_set": True,
                       "from_address": "reports@example.org"}
    assert PASSWORD not in str(ok(admin.get("/settings/mail")))
    # Sealed in the row: the plain password is nowhere in it.
    row = workbench_db.execute("select * from mail_server").fetchone()
    assert row is not None and not any(PASSWORD in str(value) for value in row)
    sealed = workbench_db.execute("select password_sealed from mail_server").fetchone()[0]
    assert sealed.startswith("v1:")
    # The audit names the fields, never the password.
    entry = ok(admin.get("/audit?action=settings.mail"))["entries"][0]
    assert PASSWORD not in str(entry) and "password" in entry["details"]["fields"]

    assert ok(admin.patch("/settings/mail", {"password": ""}))["password_set"] is False
    assert ok(admin.delete("/settings/mail"))["source"] == "environment"


@pytest.mark.parametrize("body, field", [
    ({"host": "smtp://mail.example.org"}, "host"),
    ({"host": "mail.example.org", "from_address": "not an address"}, "from_address"),
    ({"host": "mail.example.org"}, "from_address"),
    ({"host": "mail.example.org", "from_address": "r@example.org", "security": "none", "username": "u"}, "security"),
    ({"port": 70000}, "port"),
    ({"security": "ssl"}, "security"),
    ({"password": 12}, "password"),
])
def test_a_server_that_cannot_be_kept_is_refused_with_the_field(admin, body, field):
    answer = admin.patch("/settings/mail", body)
    assert answer.status_code == 400, answer.get_data(as_text=True)
    error = answer.get_json()["error"]
    assert error["code"] == "invalid_input" and error["details"]["field"] == field and error["message"]


def test_only_administrators_read_or_change_it(admin):
    _, token = create_user_with_token(admin, "reader@example.org")
    for method, path in (("GET", "/settings/mail"), ("PATCH", "/settings/mail"), ("POST", "/settings/mail/test")):
        assert admin.call(method, path, {} if method != "GET" else None, token=token).status_code == 403


def test_a_test_message_reaches_the_server_set_here(admin, plain_server):
    controller, mailbox = plain_server
    ok(admin.patch("/settings/mail", {"host": "127.0.0.1", "port": controller.port, "security": "none",
                                      "from_address": "reports@example.org"}))
    assert ok(admin.post("/settings/mail/test")) == {"sent_to": "admin@example.org"}
    sender, recipients, raw = mailbox.messages[-1]
    message = message_from_bytes(raw, policy=policy.default)
    assert (sender, recipients, message["Subject"]) == ("reports@example.org", ["admin@example.org"],
                                                        "Test message from the workbench")
    # A server that cannot be reached: a structured refusal with the reason, not a 500.
    ok(admin.patch("/settings/mail", {"port": 1}))
    refused = admin.post("/settings/mail/test")
    assert refused.status_code == 502
    assert refused.get_json()["error"]["code"] == "mail_failed"
    assert refused.get_json()["error"]["details"]["reason"] == "unreachable"
