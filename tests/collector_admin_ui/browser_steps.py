"""Steps of a site owner in the administration pages, for the browser tests (Playwright)."""
from __future__ import annotations

import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import REPO_ROOT, clone_template, drop_database, free_port
from tests.tracker_e2e.conftest import RealCollector

AXE = REPO_ROOT / "workbench_app" / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
PASSWORD = "correct horse battery"


@contextmanager
def running_collector(pg_server_url: str, template_database: str, prefix: str) -> Iterator[RealCollector]:
    """The collector under gunicorn over a database of its own, removed afterwards."""
    url = clone_template(pg_server_url, template_database, prefix=prefix)
    home = Path(tempfile.mkdtemp(prefix="analytics-admin-ui-"))
    real = RealCollector(url, home).start()
    try:
        yield real
    finally:
        real.stop()
        shutil.rmtree(home, ignore_errors=True)
        drop_database(pg_server_url, url)


@pytest.fixture
def open_page(browser):
    """Pages in new browser contexts, each in the language given (the module imports Chromium's
    `browser` fixture from tests/tracker)."""
    contexts = []

    def make(locale: str = "en-GB"):
        # CSP bypassed so that axe-core can be injected; it also means escaping alone, without the
        # policy's help, must keep the XSS payloads inert (the headers are tested without a browser).
        context = browser.new_context(locale=locale, bypass_csp=True)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def sign_in(page: Page, base_url: str, email: str = "owner@example.org", password: str = PASSWORD) -> None:
    page.goto(f"{base_url}/admin/sign-in")
    page.get_by_label(re.compile("E-mail|Adresse e-mail|Correo")).fill(email)
    page.get_by_label(re.compile("Password|Mot de passe|Contraseña")).fill(password)
    page.get_by_role("button", name=re.compile("Sign in|Se connecter|Iniciar sesión")).click()
    expect(page).to_have_url(re.compile(r"/admin/sites$"))


def create_site(page: Page, base_url: str, name: str, domains: str = "127.0.0.1", mode: str = "No cookie",
                accept_user_id: bool = False) -> str:
    """Fill the new-site form; returns the new site's id (from the settings page it lands on)."""
    page.goto(f"{base_url}/admin/sites/new")
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Allowed domains", exact=True).fill(domains)
    page.get_by_label(mode, exact=True).check()
    if accept_user_id:
        page.get_by_label(re.compile("signed-in visitors' identifiers")).check()
    page.get_by_role("button", name="Create the site").click()
    expect(page.get_by_role("status").first).to_contain_text("The site was created")
    return re.search(r"/sites/([0-9a-f-]{36})/settings", page.url).group(1)


def expect_accessible(page: Page) -> None:
    """axe-core (WCAG 2 A and AA rules): no serious or critical violation on the page."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}});
        return r.violations.filter(v => ['serious', 'critical'].includes(v.impact))
                           .map(v => ({id: v.id, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}));
    }""")
    assert result == [], f"{page.url}: {result}"


class SnippetPage:
    """One HTML page on another port (its own origin), holding whatever snippet a test pastes."""

    def __init__(self):
        self.html = "<!doctype html><title>Test page</title>"
        self.port = free_port()
        served = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = served.html.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/landing"

    def paste(self, snippet: str) -> None:
        self.html = f"<!doctype html><html lang='en'><head><title>Test page</title>{snippet}</head><body><h1>Hello</h1></body></html>"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
