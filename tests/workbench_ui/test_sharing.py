"""Sharing in Chromium against the real stack: the members-only link and a public link opened in
fresh browser contexts; a signed embed framed by a host page served from another origin, with two
tokens whose attributes show different rows and a renewal message that replaces an expired token;
the new screens in each language pass axe."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
from playwright.sync_api import expect

from tests.workbench_ui.conftest import ANALYST, LANGUAGES, check_accessibility, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

QUESTION = "Visits per channel, shared"
DASHBOARD = "Channels for customers"


@pytest.fixture(scope="module")
def shared(stack) -> dict:
    """A dashboard in a shared folder that the organic analysts' group may view, with a filter."""
    group_id = next(g["group_id"] for g in stack.ok("GET", "/groups")["groups"] if g["name"] == "Organic analysts")
    folder = stack.ok("POST", "/folders", json={"name": "Customer dashboards"})
    stack.ok("PUT", f"/folders/{folder['folder_id']}/access/{group_id}", json={"level": "view"})
    question = stack.ok("POST", "/questions", json={
        "name": QUESTION, "folder_id": folder["folder_id"], "variables": {"minimum": "number"},
        "sql": "SELECT channel, count(*) AS visits FROM visits GROUP BY 1 "
               "[[HAVING count(*) >= {{minimum}}]] ORDER BY 1",
        "visualization": {"kind": "table", "y": []}})
    dashboard = stack.ok("POST", "/dashboards", json={
        "name": DASHBOARD, "folder_id": folder["folder_id"],
        "cards": [{"key": "c", "question_id": question["question_id"], "width": 12, "height": 5}],
        "filters": [{"name": "Minimum visits", "type": "number", "links": [{"card": "c", "variable": "minimum"}]}]})
    channels = [row[0] for row in stack.ok("POST", "/sql", json={
        "sql": "SELECT channel FROM visits GROUP BY 1 ORDER BY count(*) DESC"})["rows"]]
    return {"group_id": group_id, "dashboard": dashboard, "channels": channels}


def fresh_page(browser, stack, language: str = "en"):
    """A page of a new browser context: no cookie, no session."""
    locale = {"en": "en-US", "fr": "fr-FR", "es": "es-ES"}[language]
    context = browser.new_context(base_url=stack.base_url, viewport={"width": 1280, "height": 900}, locale=locale)
    return context, context.new_page()


def card(page):
    return page.get_by_role("region", name=QUESTION, exact=True)


def test_the_members_only_link_opens_for_a_member_under_their_own_rights(browser, stack, shared):
    dashboard = shared["dashboard"]
    link = f"/dashboards/{dashboard['dashboard_id']}?f.{dashboard['filters'][0]['filter_id']}=1"
    context, page = fresh_page(browser, stack)
    try:
        sign_in(page, ANALYST, path=link)  # the sign-in page, then back to the link
        expect(page.get_by_role("heading", name=DASHBOARD)).to_be_visible()
        expect(page.get_by_label("Minimum visits")).to_have_value("1")
        # The analyst reads organic search visits only: their rights, not the link's author's.
        expect(card(page)).to_contain_text("Organic Search", timeout=30_000)
        for other in shared["channels"]:
            if other != "Organic Search":
                expect(card(page)).not_to_contain_text(other)
    finally:
        context.close()
    stack.create_user("outsider@example.org")
    context, page = fresh_page(browser, stack)
    try:
        sign_in(page, "outsider@example.org", path=link)
        expect(page.get_by_role("alert")).to_contain_text("Dashboard not found")
    finally:
        context.close()


def test_a_public_link_opens_without_sign_in_and_is_gone_once_revoked(page, browser, stack, shared):
    stack.ok("PATCH", "/settings", json={"public_sharing": True})
    dashboard = shared["dashboard"]
    sign_in(page, path=f"/dashboards/{dashboard['dashboard_id']}")
    page.get_by_role("button", name="Share").click()
    dialog = page.get_by_role("dialog", name="Share this dashboard")
    expect(dialog.get_by_test_id("members-link")).to_contain_text(f"/dashboards/{dashboard['dashboard_id']}")
    dialog.get_by_label("Minimum visits").check()
    dialog.get_by_role("button", name="Create a public link").click()
    address = dialog.get_by_test_id("one-time-secret").inner_text()
    assert "/public/" in address
    context, visitor = fresh_page(browser, stack)
    try:
        visitor.goto(address)
        expect(visitor.get_by_role("heading", name=DASHBOARD)).to_be_visible()
        # The link runs under the administrator who made it: every channel.
        for channel in shared["channels"][:2]:
            expect(card(visitor)).to_contain_text(channel, timeout=30_000)
        visitor.get_by_label("Minimum visits").fill("1000000000")
        visitor.get_by_role("button", name="Apply filters").click()
        expect(card(visitor)).not_to_contain_text(shared["channels"][0])
        dialog.get_by_role("button", name="Revoke").first.click()
        expect(dialog.get_by_role("cell", name="Revoked")).to_be_visible()
        visitor.reload()
        expect(visitor.get_by_role("heading", name="This dashboard cannot be shown")).to_be_visible()
        expect(visitor.get_by_role("alert")).to_contain_text("Link not found")
    finally:
        context.close()


class _HostPage(BaseHTTPRequestHandler):
    html = b""

    def do_GET(self):  # noqa: N802 - the name http.server calls
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(self.html)

    def log_message(self, *args):
        pass


@pytest.fixture
def host_server():
    """A customer's site on another origin (another port) that frames the embed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Host", (_HostPage,), {}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


def _token(kid: str, secret: str, dashboard_id: int, channel: str, lifetime: int = 600) -> str:
    return jwt.encode({"resource": {"dashboard": dashboard_id}, "exp": int(time.time()) + lifetime,
                       "user": {"id": f"customer-{channel}", "attributes": {"channel": channel}}},
                      secret, algorithm="HS256", headers={"kid": kid})


def test_an_embed_on_another_origin_shows_each_token_s_rows_and_takes_a_renewed_token(page, stack, shared,
                                                                                      host_server):
    host = f"http://127.0.0.1:{host_server.server_address[1]}"
    created = stack.ok("POST", "/embedding-secrets", json={"name": "Portal", "group_id": shared["group_id"],
                                                           "allowed_origins": [host]})
    kid, secret = created["embedding_secret"]["kid"], created["secret"]
    dashboard_id = shared["dashboard"]["dashboard_id"]
    first, second = shared["channels"][0], shared["channels"][1]
    frames = {"First customer": _token(kid, secret, dashboard_id, first),
              "Second customer": _token(kid, secret, dashboard_id, second),
              "Renewed customer": _token(kid, secret, dashboard_id, first, lifetime=-30)}
    renewal = _token(kid, secret, dashboard_id, second)
    iframes = "".join(f'<iframe title="{title}" src="{stack.base_url}/embed?token={token}" width="1100" height="420">'
                      f"</iframe>" for title, token in frames.items())
    host_server.RequestHandlerClass.html = f"""<!doctype html><html lang="en"><head><title>Portal</title></head>
<body><h1>Customer portal</h1>{iframes}<button id="renew">Renew</button><p id="heard"></p><script>
document.getElementById("renew").onclick = () => document.querySelector('iframe[title="Renewed customer"]')
  .contentWindow.postMessage({{type: "analytics-embed-token", token: "{renewal}"}}, "{stack.base_url}");
window.addEventListener("message", (event) => {{
  if (event.origin === "{stack.base_url}" && event.data.type === "analytics-embed-token-accepted")
    document.getElementById("heard").textContent = "accepted";
}});
</script></body></html>""".encode()
    page.goto(host + "/")
    one, two = page.frame_locator('iframe[title="First customer"]'), page.frame_locator('iframe[title="Second customer"]')
    expect(card(one)).to_contain_text(first, timeout=30_000)
    expect(card(two)).to_contain_text(second, timeout=30_000)
    expect(card(one)).not_to_contain_text(second)
    expect(card(two)).not_to_contain_text(first)
    renewed = page.frame_locator('iframe[title="Renewed customer"]')
    expect(renewed.get_by_role("alert")).to_contain_text("has expired")
    expect(card(renewed)).to_have_count(0)
    page.get_by_role("button", name="Renew").click()
    expect(page.locator("#heard")).to_have_text("accepted")
    expect(card(renewed)).to_contain_text(second, timeout=30_000)
    expect(card(renewed)).not_to_contain_text(first)


SCREENS = {"en": ("Share", "Share this dashboard", "Embedding secrets", "Settings"),
           "fr": ("Partager", "Partager ce tableau de bord", "Secrets d'intégration", "Réglages"),
           "es": ("Compartir", "Compartir este panel", "Secretos de integración", "Ajustes")}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sharing_screens_in_each_language_pass_axe(page, browser, stack, shared, language):
    share, dialog_title, secrets_title, _ = SCREENS[language]
    email = f"sharing-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    stack.ok("PATCH", "/settings", json={"public_sharing": True})
    sign_in(page, email, path="/admin/embedding")
    expect(page.get_by_role("heading", name=secrets_title)).to_be_visible()
    check_accessibility(page, f"embedding secrets ({language})")
    page.goto("/admin/settings")
    expect(page.locator("#settings-sharing")).to_be_visible()
    check_accessibility(page, f"settings with sharing ({language})")
    page.goto(f"/dashboards/{shared['dashboard']['dashboard_id']}")
    page.get_by_role("button", name=share, exact=True).click()
    expect(page.get_by_role("dialog", name=dialog_title)).to_be_visible()
    check_accessibility(page, f"share dialog ({language})")
    created = stack.ok("POST", f"/dashboards/{shared['dashboard']['dashboard_id']}/public-links", json={})
    context, visitor = fresh_page(browser, stack, language)
    try:
        visitor.goto(created["path"])
        expect(visitor.get_by_role("heading", name=DASHBOARD)).to_be_visible()
        expect(card(visitor)).to_contain_text(shared["channels"][0], timeout=30_000)
        check_accessibility(visitor, f"public dashboard ({language})")
    finally:
        context.close()
