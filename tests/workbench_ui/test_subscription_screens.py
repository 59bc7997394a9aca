"""Subscriptions and alerts in Chromium against the real stack: the mail server set in the Settings
screen (its password never shown again) with a test message; a subscription made from a dashboard's
page, sent now to a real SMTP server (aiosmtpd) and seen in the delivery log, then paused; an alert
made from a question's page and checked now; the administrators' list of everyone's. The screens pass
axe in English, French and Spanish (one test per language, over every screen)."""
from __future__ import annotations

from email import message_from_bytes, policy

import pytest
from playwright.sync_api import expect

from tests.workbench_deliveries.conftest import plain_server  # noqa: F401 - a fixture
from tests.workbench_ui.conftest import PASSWORD, check_accessibility, open_administration, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

DASHBOARD = "Channels by mail"
QUESTION = "Channels watched"
SUBSCRIPTIONS = {"en": "Subscriptions", "fr": "Abonnements", "es": "Suscripciones"}
ALERTS = {"en": "Alerts", "fr": "Alertes", "es": "Alertas"}
NEW_SUBSCRIPTION = {"en": "New subscription", "fr": "Nouvel abonnement", "es": "Nueva suscripción"}
NEW_ALERT = {"en": "New alert", "fr": "Nouvelle alerte", "es": "Nueva alerta"}
LOG = {"en": "Delivery log of {}", "fr": "Journal des envois de {}", "es": "Registro de envíos de {}"}
CLOSE = {"en": "Close", "fr": "Fermer", "es": "Cerrar"}
FIND_ACCOUNT = {"en": "Find an account", "fr": "Chercher un compte", "es": "Buscar una cuenta"}
ADD_ACCOUNT = {"en": "Add {}", "fr": "Ajouter {}", "es": "Añadir {}"}
RECIPIENTS = {"en": "Recipients", "fr": "Destinataires", "es": "Destinatarios"}


@pytest.fixture(scope="module")
def targets(stack) -> dict:
    """A dashboard with a filter, and a question with a number, in the administrator's folder."""
    question = stack.ok("POST", "/questions", json={
        "name": QUESTION, "variables": {"minimum": "number"},
        "sql": "SELECT channel, count(*) AS visits FROM visits GROUP BY 1 "
               "[[HAVING count(*) >= {{minimum}}]] ORDER BY 2 DESC",
        "visualization": {"kind": "table", "y": []}})
    dashboard = stack.ok("POST", "/dashboards", json={
        "name": DASHBOARD, "cards": [{"key": "c", "question_id": question["question_id"], "width": 12, "height": 5}],
        "filters": [{"name": "Minimum visits", "type": "number", "links": [{"card": "c", "variable": "minimum"}]}]})
    return {"dashboard": dashboard["dashboard_id"], "question": question["question_id"]}


def _administrator(stack, language: str, purpose: str) -> str:
    """An administrator of this test's own (the stack is the session's: other tests make theirs)."""
    email = f"subscriptions-{purpose}-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    return email


def test_subscribe_send_now_pause_alert_and_the_administrators_list(stack, page, targets, plain_server):
    controller, mailbox = plain_server
    email = _administrator(stack, "en", "flow")
    sign_in(page, email)
    try:
        # The mail server, set in Settings: the aiosmtpd server of this test, and a test message.
        open_administration(page, "Settings")
        mail = page.get_by_role("form", name="Mail server")
        mail.get_by_label("Host").fill("127.0.0.1")
        mail.get_by_label("Security").select_option("none")
        mail.get_by_label("Port").fill(str(controller.port))
        mail.get_by_label("From address").fill("reports@example.org")
        mail.get_by_role("button", name="Save").click()
        expect(mail.get_by_text("The server set here is used.")).to_be_visible()
        mail.get_by_role("button", name="Send a test message to me").click()
        expect(mail.get_by_text(f"A test message was sent to {email}.")).to_be_visible()
        assert [recipients for _, recipients, _ in mailbox.messages] == [[email]]
        # Sending outside the accounts: the Sharing part of the same screen.
        outside = page.get_by_role("form", name="Sharing").get_by_label(
            "Subscriptions and alerts may send to addresses outside the accounts and to webhooks")
        outside.click()  # the box follows the saved setting (a controlled input)
        expect(outside).to_be_checked()
        assert stack.ok("GET", "/settings")["external_recipients"] is True
        outside.click()
        expect(outside).not_to_be_checked()

        # A subscription from the dashboard's page, with a filter of its own; sent now; in the log.
        page.goto(f"/dashboards/{targets['dashboard']}")
        page.get_by_role("button", name="Subscriptions").click()
        dialog = page.get_by_role("dialog", name=f"Subscriptions to “{DASHBOARD}”")
        expect(dialog.get_by_text("No subscription yet.")).to_be_visible()
        dialog.get_by_role("button", name="New subscription").click()
        dialog.get_by_label("Name").fill("Morning channels")
        dialog.get_by_label("Repeat").select_option("week")
        dialog.get_by_label("Day of the week").select_option("2")
        dialog.get_by_label("Hour").select_option("7")
        expect(dialog.get_by_label("Recipients")).to_have_value(email)
        dialog.get_by_label("Minimum visits").fill("1")
        check_accessibility(page, "the new subscription form (en)")
        dialog.get_by_role("button", name="Save").click()
        row = dialog.get_by_role("row", name="Morning channels")
        expect(row).to_contain_text("Every Wednesday at 07:00")
        mailbox.messages.clear()
        row.get_by_role("button", name="Send Morning channels now").click()
        expect(dialog.get_by_text("Sent: 1, failed: 0, skipped: 0.")).to_be_visible(timeout=120_000)
        message = message_from_bytes(mailbox.messages[0][2], policy=policy.default)
        assert message["Subject"].startswith("Morning channels") and message["To"] == email
        row.get_by_role("button", name=LOG["en"].format("Morning channels")).click()
        log = dialog.get_by_role("table", name="Deliveries of Morning channels")
        expect(log.get_by_role("row").nth(1)).to_contain_text(email)
        expect(log.get_by_role("row").nth(1)).to_contain_text("sent")
        check_accessibility(page, "the subscriptions dialog with its log (en)")
        row.get_by_role("button", name="Pause Morning channels").click()
        expect(row).to_contain_text("Paused")
        dialog.get_by_role("button", name="Close").click()

        # An alert from the question's page, checked now: the number is above 0, so it fires.
        page.goto(f"/questions/{targets['question']}")
        page.get_by_role("button", name="Alerts", exact=True).click()
        dialog = page.get_by_role("dialog", name=f"Alerts on “{QUESTION}”")
        dialog.get_by_role("button", name="New alert").click()
        dialog.get_by_label("Fires when").select_option("above")
        dialog.get_by_label("Column").fill("visits")
        dialog.get_by_label("Threshold").fill("0")
        dialog.get_by_label("Name").fill("Visits watch")
        check_accessibility(page, "the new alert form (en)")
        dialog.get_by_role("button", name="Save").click()
        row = dialog.get_by_role("row", name="Visits watch")
        mailbox.messages.clear()
        row.get_by_role("button", name="Check Visits watch now").click()
        expect(dialog.get_by_text("Sent: 1, failed: 0, skipped: 0.")).to_be_visible(timeout=120_000)
        assert [recipients for _, recipients, _ in mailbox.messages] == [[email]]
        dialog.get_by_role("button", name="Close").click()

        # The administrators' list: owner, target, state and last delivery; delete from there.
        open_administration(page, "Subscriptions")
        everyone = page.get_by_role("table", name="Every subscription")
        row = everyone.get_by_role("row", name="Morning channels")
        expect(row).to_contain_text(email)
        expect(row).to_contain_text(DASHBOARD)
        expect(row).to_contain_text("Paused")
        expect(row).to_contain_text("sent")
        expect(page.get_by_role("table", name="Every alert").get_by_role("row", name="Visits watch")).to_contain_text(QUESTION)
        check_accessibility(page, "the administrators' list (en)")
        row.get_by_role("button", name="Delete Morning channels").click()
        page.get_by_role("dialog", name="Delete “Morning channels”?").get_by_role("button", name="Delete").click()
        expect(everyone.get_by_role("row", name="Morning channels")).to_have_count(0)

        # A password is kept, and never shown again: not in the field, not in the answer.
        open_administration(page, "Settings")
        mail = page.get_by_role("form", name="Mail server")
        mail.get_by_label("Security").select_option("starttls")
        mail.get_by_label("Username").fill("reports")
        mail.get_by_label("Password", exact=True).fill("a mail password")
        mail.get_by_role("button", name="Save").click()
        expect(mail.get_by_text("A password is set; leave empty to keep it.")).to_be_visible()
        expect(mail.get_by_label("Password", exact=True)).to_have_value("")
        answer = stack.ok("GET", "/settings/mail")
        assert answer["password_set"] is True and "a mail password" not in str(answer)
    finally:
        stack.ok("DELETE", "/settings/mail")
        stack.ok("PATCH", "/settings", json={"external_recipients": False})


@pytest.mark.parametrize("language", ["en", "fr", "es"])
def test_the_screens_in_each_language_pass_axe(stack, page, targets, language):
    email = _administrator(stack, language, "axe")
    colleague, colleague_name = f"zoe-{language}@example.org", f"<b>Zoé {language}</b>"
    stack.create_user(colleague, display_name=colleague_name)
    # Made as that person: the page's lists are the person's own (the administrators' list has everyone's).
    token = stack.ok("POST", "/auth/token", json={"email": email, "password": PASSWORD})["secret"]
    subscription = stack.ok("POST", "/subscriptions", token=token, json={
        "target_kind": "dashboard", "target_id": targets["dashboard"], "name": f"Weekly {language}",
        "schedule": {"every": "month", "day": 1, "hour": 6}, "recipients": [{"email": email}]})
    stack.ok("POST", "/alerts", token=token, json={"question_id": targets["question"], "name": f"Watch {language}",
                                      "condition": "changes_by", "value_column": "visits", "threshold": 10,
                                      "schedule": {"every": "day", "hour": 9}, "recipients": [{"email": email}]})
    sign_in(page, email)
    try:
        page.goto(f"/dashboards/{targets['dashboard']}")
        page.get_by_role("button", name=SUBSCRIPTIONS[language], exact=True).click()
        dialog = page.get_by_role("dialog")
        expect(dialog.get_by_role("row", name=f"Weekly {language}")).to_be_visible()
        dialog.get_by_role("button", name=LOG[language].format(f"Weekly {language}")).click()
        dialog.get_by_role("button", name=NEW_SUBSCRIPTION[language]).click()
        # The account picker: found by part of the name, shown as text, added to the recipients.
        dialog.get_by_label(FIND_ACCOUNT[language]).fill(f"zoé {language}")
        who = f"{colleague_name} ({colleague})"
        dialog.get_by_role("button", name=ADD_ACCOUNT[language].format(who)).click()
        expect(dialog.get_by_label(RECIPIENTS[language], exact=True)).to_have_value(f"{email}\n{colleague}")
        expect(dialog.get_by_role("button", name=who)).to_be_disabled()
        assert dialog.locator("ul b").count() == 0  # a name is text, never markup
        check_accessibility(page, f"the subscriptions dialog ({language})")
        dialog.get_by_role("button", name=CLOSE[language]).click()

        page.goto(f"/questions/{targets['question']}")
        page.get_by_role("button", name=ALERTS[language], exact=True).click()
        dialog = page.get_by_role("dialog")
        expect(dialog.get_by_role("row", name=f"Watch {language}")).to_be_visible()
        dialog.get_by_role("button", name=NEW_ALERT[language]).click()
        check_accessibility(page, f"the alerts dialog ({language})")
        dialog.get_by_role("button", name=CLOSE[language]).click()

        open_administration(page, SUBSCRIPTIONS[language], language)
        expect(page.get_by_role("row", name=f"Weekly {language}")).to_be_visible()
        check_accessibility(page, f"the administrators' list of subscriptions ({language})")
        # The Settings screen, with the mail server, passes axe in each language in test_admin_settings.py.
    finally:
        stack.ok("DELETE", f"/subscriptions/{subscription['subscription_id']}")
