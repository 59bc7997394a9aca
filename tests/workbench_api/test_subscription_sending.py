"""Subscriptions delivered for real: a real SMTP server receives one message per recipient, each
with the recipient's own figures (row filters apply at sending time), the A4 PDF that opens, the
first cards inline, a link back and the recipient's own unsubscribe link; a firing is sent once
whatever retries; a recipient who lost access, an external address without a public link, a deleted
dashboard and a webhook each end in the log with a clear status."""
from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import datetime, timezone
from email import message_from_bytes, policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from threading import Thread

import pytest
from dagster import DagsterInstance, RunRequest, SkipReason, build_sensor_context
from pypdf import PdfReader

from orchestration.defs.resources import Warehouse
from orchestration.defs.workbench.deliveries import subscription_deliveries_job, subscriptions_due_sensor

from pipelines.inbound import signatures
from tests.conftest import TEST_SECRET
from tests.workbench_api.conftest import Api, ok
from tests.workbench_api.test_shared_pdf import _dashboard
from tests.workbench_deliveries.conftest import plain_server  # noqa: F401 - a fixture
from workbench_app.errors import WorkbenchError
from workbench_app.subscriptions import report_content, sending

DUE = datetime(2026, 11, 27, 7, 0, tzinfo=timezone.utc)
DAILY = {"every": "day", "hour": 8, "timezone": "Europe/Paris"}
pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture
def workbench_settings(workbench_settings, plain_server):
    controller, _ = plain_server
    return replace(workbench_settings, smtp_host="127.0.0.1", smtp_port=controller.port, smtp_security="none",
                   smtp_from="reports@example.org", workbench_url="http://workbench.example")


def _deliver(app, subscription_id: int, due_at: datetime = DUE) -> sending.Outcome:
    with app.app_context():
        return sending.deliver(app.extensions["workbench"], subscription_id, due_at)


def _messages(mailbox) -> dict[str, object]:
    return {recipients[0]: message_from_bytes(raw, policy=policy.default) for _, recipients, raw in mailbox.messages}


def _messages_in_order(mailbox) -> list:
    return [message_from_bytes(raw, policy=policy.default) for _, _, raw in mailbox.messages]


def _pdf_text(message) -> str:
    pdf = next(part for part in message.iter_attachments() if part.get_content_type() == "application/pdf")
    return "\n".join(page.extract_text() for page in PdfReader(BytesIO(pdf.get_content())).pages)


def test_each_account_receives_its_own_figures_once_with_pdf_images_and_unsubscribe_link(app, admin, analyst,
                                                                                       plain_server):
    _, mailbox = plain_server
    dashboard = _dashboard(admin, _folder_for_analysts(admin))
    made = ok(admin.post("/subscriptions", {
        "target_kind": "dashboard", "target_id": dashboard["dashboard_id"], "name": "Morning regions",
        "schedule": DAILY, "recipients": [{"email": "admin@example.org"}, {"user_id": analyst[0]}]}), 201)

    outcome = _deliver(app, made["subscription_id"])
    assert (outcome.sent, outcome.failed, outcome.skipped) == (2, 0, 0), outcome.lines
    messages = _messages(mailbox)
    assert set(messages) == {"admin@example.org", "analyst@example.org"}
    for address, message in messages.items():
        assert message["Subject"] == "Morning regions · 2026-11-27"
        assert message.get_content_type() == "multipart/mixed"
        alternative = message.get_payload()[0]
        assert alternative.get_content_type() == "multipart/alternative"
        text, related = alternative.get_payload()
        assert text.get_content_type() == "text/plain" and related.get_content_type() == "multipart/related"
        html, image = related.get_payload()
        assert html.get_content_type() == "text/html" and image.get_content_type() == "image/png"
        assert image.get_content()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f'src="cid:{image["Content-ID"].strip("<>")}"' in html.get_content()
        assert f"http://workbench.example/dashboards/{dashboard['dashboard_id']}" in text.get_content()
        assert message["List-Unsubscribe"].strip().startswith("<http://workbench.example/unsubscribe/")
        pdf_text = _pdf_text(message)
        assert "Regions" in pdf_text and "EU" in pdf_text
    # The analyst's rights hold at sending time: EU rows only, in the body and in the PDF.
    analyst_text = messages["analyst@example.org"].get_payload()[0].get_payload()[0].get_content()
    admin_text = messages["admin@example.org"].get_payload()[0].get_payload()[0].get_content()
    assert "US" in admin_text and "US" in _pdf_text(messages["admin@example.org"])
    assert "US" not in analyst_text and "US" not in _pdf_text(messages["analyst@example.org"])

    # A retry of the same firing sends nothing more; the log says who got it.
    assert _deliver(app, made["subscription_id"]).sent == 0 and len(mailbox.messages) == 2
    log = ok(admin.get(f"/subscriptions/{made['subscription_id']}/deliveries"))["deliveries"]
    assert sorted((entry["recipient"], entry["status"]) for entry in log) == [
        ("admin@example.org", "sent"), ("analyst@example.org", "sent")]

    # The analyst's own unsubscribe link: opening it changes nothing, its button does.
    link = messages["analyst@example.org"]["List-Unsubscribe"].strip().strip("<>")
    path = link.removeprefix("http://workbench.example")
    visitor = app.test_client()
    page = visitor.get(path, headers={"Accept-Language": "fr"})
    assert page.status_code == 200 and "<form" in page.get_data(as_text=True)
    forged = re.sub(r"/[^/]+$", "/not-the-token", path)
    assert visitor.post(forged).status_code == 404
    other = re.sub(r"/unsubscribe/(\d+)/", lambda m: f"/unsubscribe/{int(m.group(1)) - 1}/", path)
    assert visitor.post(other).status_code == 404  # the analyst's token does not unsubscribe the admin
    done = visitor.post(path, data={"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200 and "analyst@example.org" in done.get_data(as_text=True)
    recipients = ok(admin.get(f"/subscriptions/{made['subscription_id']}"))["recipients"]
    assert [(r["email"], r["unsubscribed"]) for r in recipients] == [
        ("admin@example.org", False), ("analyst@example.org", True)]
    mailbox.messages.clear()
    assert _deliver(app, made["subscription_id"], DUE.replace(day=28)).sent == 1
    assert list(_messages(mailbox)) == ["admin@example.org"]


def test_a_report_is_reused_only_for_the_same_account_with_the_same_rights(app, admin, analyst, plain_server):
    """Two subscriptions of one account to one dashboard share one printed report; a change of the
    account's rights (its attribute here) makes the next delivery print its own, with the new rows."""
    _, mailbox = plain_server
    dashboard = _dashboard(admin, _folder_for_analysts(admin))
    first, second, third = (ok(admin.post("/subscriptions", {
        "target_kind": "dashboard", "target_id": dashboard["dashboard_id"], "name": f"Regions {n}",
        "schedule": DAILY, "recipients": [{"user_id": analyst[0]}]}), 201)["subscription_id"] for n in range(3))
    report_content.reused.clear()
    assert _deliver(app, first).sent == 1 and _deliver(app, second).sent == 1
    assert (report_content.reused.misses, report_content.reused.hits) == (1, 1)
    ok(admin.put(f"/users/{analyst[0]}/attributes", {"attributes": {"region": "US"}}))
    assert _deliver(app, third).sent == 1
    assert (report_content.reused.misses, report_content.reused.hits) == (2, 1)
    texts = [message.get_payload()[0].get_payload()[0].get_content() for message in _messages_in_order(mailbox)]
    assert all("EU" in text and "US" not in text for text in texts[:2])
    assert "US" in texts[2] and "EU" not in texts[2]


def _folder_for_analysts(admin: Api) -> int:
    """A folder the EU analysts group views."""
    folder = ok(admin.post("/folders", {"name": "Shared"}), 201)
    group = ok(admin.get("/groups"))["groups"][0]["group_id"]
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{group}", {"level": "view"}))
    return folder["folder_id"]


def test_a_recipient_who_lost_access_is_skipped_and_the_owner_told(app, admin, analyst, plain_server):
    _, mailbox = plain_server
    dashboard = _dashboard(admin)  # in the admin's personal folder: the analyst may not open it
    made = ok(admin.post("/subscriptions", {
        "target_kind": "dashboard", "target_id": dashboard["dashboard_id"], "schedule": DAILY,
        "recipients": [{"user_id": analyst[0]}]}), 201)
    outcome = _deliver(app, made["subscription_id"])
    assert (outcome.sent, outcome.skipped) == (0, 1)
    log = ok(admin.get(f"/subscriptions/{made['subscription_id']}/deliveries"))["deliveries"]
    entry = next(e for e in log if e["recipient"] == "analyst@example.org")
    assert (entry["status"], entry["error_code"]) == ("skipped", "no_access")
    # Nobody received the figures; the owner got one notice naming the recipient.
    messages = _messages(mailbox)
    assert list(messages) == ["admin@example.org"]
    assert "analyst@example.org" in messages["admin@example.org"].get_content()


def test_external_recipients_get_what_the_public_link_shows_or_nothing(app, admin, analyst, plain_server):
    _, mailbox = plain_server
    ok(admin.patch("/settings", {"external_recipients": True}))
    analyst_api = Api(admin.client, analyst[1])
    dashboard = _dashboard(analyst_api)
    made = ok(analyst_api.post("/subscriptions", {
        "target_kind": "dashboard", "target_id": dashboard["dashboard_id"], "schedule": DAILY,
        "recipients": [{"email": "partner@elsewhere.example"}]}), 201)
    outcome = _deliver(app, made["subscription_id"])
    assert outcome.skipped == 1 and "no_public_link" in outcome.lines[0]
    # With a public link of the analyst's: the link's rights (EU only), no link back into the workbench.
    ok(admin.patch("/settings", {"public_sharing": True}))
    ok(analyst_api.post(f"/dashboards/{dashboard['dashboard_id']}/public-links", {}), 201)
    assert _deliver(app, made["subscription_id"], DUE.replace(day=28)).sent == 1
    message = _messages(mailbox)["partner@elsewhere.example"]
    text = message.get_payload()[0].get_payload()[0].get_content()
    assert "EU" in text and "US" not in text and "/dashboards/" not in text


def test_a_deleted_dashboard_or_question_pauses_what_sent_it_and_tells_its_owner(app, admin, plain_server):
    _, mailbox = plain_server
    dashboard = _dashboard(admin)
    made = ok(admin.post("/subscriptions", {"target_kind": "dashboard", "target_id": dashboard["dashboard_id"],
                                            "name": "Weekly", "schedule": DAILY,
                                            "recipients": [{"email": "admin@example.org"}]}), 201)
    ok(admin.delete(f"/dashboards/{dashboard['dashboard_id']}"), 204)
    outcome = _deliver(app, made["subscription_id"])
    assert outcome.skipped == 1 and "target_deleted" in outcome.lines[0]
    assert ok(admin.get(f"/subscriptions/{made['subscription_id']}"))["paused"] is True
    question = ok(admin.post("/questions", {"name": "Views", "sql": VIEWS}), 201)
    alert = ok(admin.post("/alerts", {"question_id": question["question_id"], "name": "Busy", "schedule": DAILY,
                                      "condition": "has_rows", "recipients": [{"email": "admin@example.org"}]}), 201)
    ok(admin.patch("/me", {"locale": "fr"}))
    ok(admin.delete(f"/questions/{question['question_id']}"), 204)
    with app.app_context():
        assert sending.check_alert(app.extensions["workbench"], alert["alert_id"], DUE).skipped == 1
    assert ok(admin.get(f"/alerts/{alert['alert_id']}"))["paused"] is True
    # One notice each, in the owner's language at the time, naming what it is about.
    notices = {message["Subject"]: message.get_body(("plain",)).get_content().strip()
               for message in _messages_in_order(mailbox)}
    assert notices == {"Your subscription “Weekly” needs attention":
                       "What it sends was deleted: the subscription is paused.",
                       "Votre alerte « Busy » demande votre attention":
                       "La question qu’elle surveille a été supprimée : l’alerte est suspendue."}


class _Receiver(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((dict(self.headers), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_webhook_receives_the_public_figures_signed(app, admin):
    ok(admin.patch("/settings", {"external_recipients": True, "public_sharing": True}))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    _Receiver.received = []
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        dashboard = _dashboard(admin)
        ok(admin.post(f"/dashboards/{dashboard['dashboard_id']}/public-links", {}), 201)
        made = ok(admin.post("/subscriptions", {
            "target_kind": "dashboard", "target_id": dashboard["dashboard_id"], "schedule": DAILY, "channel": "webhook",
            "webhook_url": f"http://127.0.0.1:{server.server_port}/hook"}), 201)
        assert _deliver(app, made["subscription_id"]).sent == 1
        assert _deliver(app, made["subscription_id"]).sent == 0  # once per firing
    finally:
        server.shutdown()
    [(headers, body)] = _Receiver.received
    assert signatures.verify(headers["X-Analytics-Signature"], body, [made["webhook_secret"]]).ok
    sent = json.loads(body)
    assert sent["type"] == "subscription.delivery" and sent["delivery_id"] == headers["X-Analytics-Delivery-Id"]
    assert sent["target"]["url"] == f"http://workbench.example/dashboards/{dashboard['dashboard_id']}"
    [card] = sent["cards"]
    assert card["columns"] == ["region", "n"] and [row[0] for row in card["rows"]] == ["EU", "US"]


def _daemon_environment(monkeypatch, controller, workbench_settings) -> None:
    """The Dagster steps read the mail server and the workbench from the environment, as the daemon's."""
    for name, value in {"ANALYTICS_SMTP_HOST": "127.0.0.1", "ANALYTICS_SMTP_PORT": str(controller.port),
                        "ANALYTICS_SMTP_SECURITY": "none", "ANALYTICS_SMTP_FROM": "reports@example.org",
                        "ANALYTICS_WORKBENCH_URL": "http://workbench.example", "ANALYTICS_SECRET": TEST_SECRET,
                        "ANALYTICS_WORKBENCH_DATABASE_NAME": workbench_settings.workbench_database_name}.items():
        monkeypatch.setenv(name, value)


def test_dagster_sends_what_is_due_once_and_a_stopped_daemon_catches_up_once(app, admin, settings, workbench_settings,
                                                                            plain_server, workbench_db, monkeypatch):
    controller, mailbox = plain_server
    _daemon_environment(monkeypatch, controller, workbench_settings)
    dashboard = _dashboard(admin)
    made = ok(admin.post("/subscriptions", {"target_kind": "dashboard", "target_id": dashboard["dashboard_id"],
                                            "schedule": {"every": "day", "hour": 0, "timezone": "UTC"},
                                            "recipients": [{"email": "admin@example.org"}]}), 201)
    instance = DagsterInstance.ephemeral()
    resources = {"warehouse": Warehouse(home=str(settings.home), database_url=settings.database_url)}

    def tick(cursor=None):
        context = build_sensor_context(instance=instance, cursor=cursor, resources=resources)
        return subscriptions_due_sensor(context), context.cursor

    # Made just now: nothing from before it is owed.
    request, cursor = tick()
    assert isinstance(request, SkipReason)
    # Three days without a daemon: it owes the latest missed time, once.
    workbench_db.execute("update subscriptions set created_at = now() - interval '3 days'")
    request, cursor = tick(cursor)
    assert isinstance(request, RunRequest)
    [[kind, subscription_id, due_at]] = request.run_config["ops"]["planned_deliveries"]["config"]["deliveries"]
    assert (kind, int(subscription_id)) == ("subscription", made["subscription_id"])
    assert datetime.fromisoformat(due_at) == datetime.now(timezone.utc).replace(hour=0, minute=0, second=0,
                                                                                microsecond=0)
    # The sensor ticking again before the run has sent asks nothing more.
    assert isinstance(tick(cursor)[0], SkipReason)
    result = subscription_deliveries_job.execute_in_process(run_config=request.run_config, instance=instance,
                                                            resources=resources)
    assert result.success
    [output] = [event for event in result.all_events if (event.step_key or "").startswith("deliver")
                and event.event_type_value == "STEP_OUTPUT"]
    assert output.event_specific_data.metadata["sent"].value == 1
    assert [recipients for _, recipients, _ in mailbox.messages] == [["admin@example.org"]]
    # A second run of the same request sends nothing twice; after it, nothing is owed.
    assert subscription_deliveries_job.execute_in_process(run_config=request.run_config, instance=instance,
                                                          resources=resources).success
    assert len(mailbox.messages) == 1
    assert isinstance(tick()[0], SkipReason)


VIEWS = "SELECT count(*) AS views FROM page_views"


def test_an_alert_fires_once_per_check_with_each_recipient_s_own_value(app, admin, analyst, plain_server):
    _, mailbox = plain_server
    folder = _folder_for_analysts(admin)
    question = ok(admin.post("/questions", {"name": "Views", "sql": VIEWS, "folder_id": folder}), 201)
    alert = ok(admin.post("/alerts", {"question_id": question["question_id"], "name": "Busy", "schedule": DAILY,
                                      "condition": "above", "value_column": "views", "threshold": 2,
                                      "repeat": "once", "recipients": [{"email": "admin@example.org"},
                                                                       {"user_id": analyst[0]}]}), 201)
    assert alert["next_due_at"] is not None and alert["fired_at"] is None
    with app.app_context():
        outcome = sending.check_alert(app.extensions["workbench"], alert["alert_id"], DUE)
        again = sending.check_alert(app.extensions["workbench"], alert["alert_id"], DUE)
    assert (outcome.fired, outcome.sent) == (True, 2) and again.sent == 0
    messages = _messages(mailbox)
    assert messages["admin@example.org"]["Subject"] == "Alert: Busy"
    # The owner's check fired it; each message shows its recipient's own number (EU rows: 3 of 5).
    assert "Busy: views is above 2. Now: 5." in messages["admin@example.org"].get_body(("plain",)).get_content()
    analyst_text = messages["analyst@example.org"].get_body(("plain",)).get_content()
    assert "Now: 3." in analyst_text and "5" not in analyst_text.split("Now:")[1][:4]
    # A `once` alert stops after firing.
    shown = ok(admin.get(f"/alerts/{alert['alert_id']}"))
    assert shown["fired_at"] is not None and shown["next_due_at"] is None and shown["last_value"] == 5
    assert ok(admin.post(f"/alerts/{alert['alert_id']}/check")) == {"sent": 0, "failed": 0, "skipped": 0, "fired": None}
    # Changed to watch a change: armed again; the first check only records the number.
    changed = ok(admin.patch(f"/alerts/{alert['alert_id']}", {"condition": "changes_by", "threshold": 10,
                                                              "repeat": "every_time"}))
    assert (changed["fired_at"], changed["last_value"]) == (None, None)
    assert ok(admin.post(f"/alerts/{alert['alert_id']}/check"))["fired"] is False


def test_an_alert_that_cannot_read_its_number_says_why_in_its_log(app, admin, plain_server):
    question = ok(admin.post("/questions", {"name": "Views", "sql": VIEWS}), 201)
    alert = ok(admin.post("/alerts", {"question_id": question["question_id"], "schedule": DAILY,
                                      "condition": "below", "value_column": "visits", "threshold": 1,
                                      "recipients": [{"email": "admin@example.org"}]}), 201)
    assert ok(admin.post(f"/alerts/{alert['alert_id']}/check"))["failed"] == 1
    [entry] = ok(admin.get(f"/alerts/{alert['alert_id']}/deliveries"))["deliveries"]
    assert (entry["recipient"], entry["status"], entry["error_code"]) == ("check", "failed", "no_value")
    assert entry["error_message"] == "The result has no column visits."


def test_alert_conditions_are_checked_together(admin):
    question = ok(admin.post("/questions", {"name": "Views", "sql": VIEWS}), 201)
    base = {"question_id": question["question_id"], "schedule": DAILY, "recipients": [{"email": "admin@example.org"}]}
    for fields, field in (({"condition": "has_rows", "threshold": 3}, "condition"),
                          ({"condition": "above", "threshold": 3}, "value_column"),
                          ({"condition": "above", "value_column": "views"}, "threshold"),
                          ({"condition": "changes_by", "value_column": "views", "threshold": -5}, "threshold")):
        refused = admin.post("/alerts", {**base, **fields})
        assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == field, fields
    assert admin.post("/alerts", {**base, "condition": "sideways"}).status_code == 400
    made = ok(admin.post("/alerts", {**base, "condition": "has_rows"}), 201)
    assert admin.patch(f"/alerts/{made['alert_id']}", {"condition": "above"}).status_code == 400
    assert ok(admin.get("/alerts?all=true"))["alerts"][0]["alert_id"] == made["alert_id"]


def test_a_report_made_ahead_is_taken_only_under_the_rights_read_at_sending_time(app, admin, analyst, plain_server,
                                                                                  workbench_db):
    """`prepare` (the run's reports made ahead) claims and sends nothing; the delivery takes the report
    it made when the recipient's rights are unchanged, and prints anew with the new rows when they
    changed in between."""
    _, mailbox = plain_server
    dashboard = _dashboard(admin, _folder_for_analysts(admin))
    first, second = (ok(admin.post("/subscriptions", {
        "target_kind": "dashboard", "target_id": dashboard["dashboard_id"], "name": f"Regions {n}",
        "schedule": DAILY, "recipients": [{"user_id": analyst[0]}]}), 201)["subscription_id"] for n in range(2))
    report_content.reused.clear()
    with app.app_context():
        sending.prepare(app.extensions["workbench"], first, DUE)
    assert (report_content.reused.misses, report_content.reused.hits) == (1, 0)
    assert mailbox.messages == [] and workbench_db.execute("select count(*) from deliveries").fetchone()[0] == 0
    assert _deliver(app, first).sent == 1
    assert (report_content.reused.misses, report_content.reused.hits) == (1, 1)
    with app.app_context():
        sending.prepare(app.extensions["workbench"], second, DUE)
        sending.prepare(app.extensions["workbench"], first, DUE)  # served already: nothing made
    ok(admin.put(f"/users/{analyst[0]}/attributes", {"attributes": {"region": "US"}}))
    assert _deliver(app, second).sent == 1
    assert report_content.reused.misses == 2  # printed anew under the new rights
    texts = [message.get_payload()[0].get_payload()[0].get_content() for message in _messages_in_order(mailbox)]
    assert "EU" in texts[0] and "US" not in texts[0]
    assert "US" in texts[1] and "EU" not in texts[1]


def test_in_a_dagster_run_a_print_that_crashes_fails_only_its_own_delivery(app, admin, analyst, settings,
                                                                           workbench_settings, plain_server,
                                                                           workbench_db, monkeypatch):
    """The run makes the next reports ahead of their steps; one dashboard's print crashing (ahead and
    again in its step) fails that delivery alone, with its status, and the others are sent."""
    controller, mailbox = plain_server
    _daemon_environment(monkeypatch, controller, workbench_settings)
    folder = _folder_for_analysts(admin)
    dashboards = [_dashboard(admin, folder)["dashboard_id"] for _ in range(3)]
    made = [ok(admin.post("/subscriptions", {"target_kind": "dashboard", "target_id": dashboard_id,
                                             "schedule": {"every": "day", "hour": 0, "timezone": "UTC"},
                                             "recipients": [{"user_id": analyst[0]}]}), 201)["subscription_id"]
            for dashboard_id in dashboards]
    workbench_db.execute("update subscriptions set created_at = now() - interval '3 days'")
    render = report_content.render_dashboard
    crashes = []

    def crashing(identity, dashboard_id, *args, **kwargs):
        if dashboard_id == dashboards[1]:
            crashes.append(dashboard_id)
            raise WorkbenchError(503, "pdf_failed", "The PDF could not be printed: try again.")
        return render(identity, dashboard_id, *args, **kwargs)

    monkeypatch.setattr(report_content, "render_dashboard", crashing)
    report_content.reused.clear()
    instance = DagsterInstance.ephemeral()
    resources = {"warehouse": Warehouse(home=str(settings.home), database_url=settings.database_url)}
    request = subscriptions_due_sensor(build_sensor_context(instance=instance, resources=resources))
    assert isinstance(request, RunRequest)
    result = subscription_deliveries_job.execute_in_process(run_config=request.run_config, instance=instance,
                                                            resources=resources)
    assert result.success
    outcomes = {event.event_specific_data.metadata["subscription_id"].value:
                (event.event_specific_data.metadata["sent"].value, event.event_specific_data.metadata["failed"].value)
                for event in result.all_events
                if (event.step_key or "").startswith("deliver") and event.event_type_value == "STEP_OUTPUT"}
    assert outcomes == {made[0]: (1, 0), made[1]: (0, 1), made[2]: (1, 0)}
    assert len(crashes) == 2  # made ahead, then again by its own step
    log = dict(workbench_db.execute("select subscription_id, status || ' ' || coalesce(error_code, '') "
                                    "from deliveries").fetchall())
    assert log == {made[0]: "sent ", made[1]: "failed pdf_failed", made[2]: "sent "}
    assert len(mailbox.messages) == 2
