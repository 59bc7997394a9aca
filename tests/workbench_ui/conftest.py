"""Browser tests of the workbench's web application against the real stack.

One stack for the package: a fresh ANALYTICS_HOME with the demo data (`analytics demo`), then
`analytics up --no-dagster` on free ports, as a person runs it; people and rules are set up
through the command line and the real API. Chromium is Debian's, driven by Playwright.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
import requests
from playwright.sync_api import expect

from pipelines.database import connection
from pipelines.settings import Settings
from analytics_cli.local_stack import ANALYTICS, LocalStack
from tests.conftest import REPO_ROOT
from tests.tracker.conftest import browser, chromium_path  # noqa: F401  (the session's one Chromium)

AXE = REPO_ROOT / "workbench_app" / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
PASSWORD = "a long enough password"
ADMIN = "admin@example.org"
ANALYST = "analyst@example.org"  # reads organic search visits only, without visitor_key
LANGUAGES = ("en", "fr", "es")
# What the screens say in each language, for steps that read like a person's.
SIGN_IN = {"en": "Sign in", "fr": "Se connecter", "es": "Entrar"}
EMAIL = {"en": "E-mail address", "fr": "Adresse e-mail", "es": "Correo electrónico"}
PASSWORD_LABEL = {"en": "Password", "fr": "Mot de passe", "es": "Contraseña"}
MAIN_MENU = {"en": "Main", "fr": "Principale", "es": "Principal"}
ADMINISTRATION = {"en": "Administration", "fr": "Administration", "es": "Administración"}


@dataclass
class Stack:
    base_url: str
    home: Path
    env: dict
    admin_token: str
    users: dict = field(default_factory=dict)

    def api(self, method: str, path: str, token: str | None = None, **kwargs) -> requests.Response:
        headers = {"Authorization": f"Bearer {token or self.admin_token}"}
        return requests.request(method, f"{self.base_url}/api/v1{path}", headers=headers, timeout=30, **kwargs)

    def ok(self, method: str, path: str, **kwargs):
        answer = self.api(method, path, **kwargs)
        assert answer.status_code < 300, (answer.status_code, answer.text)
        return answer.json() if answer.content else None

    def psql(self, statement: str) -> str:
        return subprocess.run([ANALYTICS, "db", "psql", "-At", "-c", statement], env=self.env, check=True,
                              capture_output=True, text=True).stdout

    def workbench_sql(self, statement: str) -> None:
        """A statement on the workbench's own database (as its owner)."""
        settings = Settings.from_env(self.env)
        with psycopg.connect(connection.server_url(settings, settings.workbench_database_name), autocommit=True) as conn:
            conn.execute(statement)

    def create_user(self, email: str, locale: str = "en", **fields) -> int:
        user = self.ok("POST", "/users", json={"email": email, "password": PASSWORD, "locale": locale, **fields})
        self.users[email] = user["user_id"]
        return user["user_id"]


@pytest.fixture(scope="session")
def stack():
    if not (REPO_ROOT / "workbench_app" / "frontend" / "dist" / "index.html").is_file():
        pytest.fail("the web application is not built: `make test` builds it (make frontend)")
    local = LocalStack.prepare()
    try:
        local.start()
        current = Stack(local.workbench_url, local.root / "home", local.env,
                        local.create_admin(ADMIN, PASSWORD, "Ada Admin"))
        current.users[ADMIN] = 1
        _restricted_analyst(current)
        yield current
    finally:
        local.stop()


def _restricted_analyst(stack: Stack) -> None:
    group = stack.ok("POST", "/groups", json={"name": "Organic analysts"})
    stack.ok("POST", f"/groups/{group['group_id']}/rules", json={
        "catalog": "warehouse", "schema": "analytics", "table": "visits",
        "row_filter": "channel = {{user.channel}}", "hidden_columns": ["visitor_key"]})
    user_id = stack.create_user(ANALYST)
    stack.ok("PUT", f"/users/{user_id}/attributes", json={"attributes": {"channel": "Organic Search"}})
    stack.ok("PUT", f"/groups/{group['group_id']}/members/{user_id}")


@pytest.fixture
def context(browser, stack):
    context = browser.new_context(base_url=stack.base_url, viewport={"width": 1280, "height": 800},
                                  locale="en-US")
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    yield context
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


@pytest.fixture
def page(context):
    return context.new_page()


def sign_in(page, email: str = ADMIN, password: str = PASSWORD, language: str = "en", path: str = "/",
            expect_success: bool = True):
    page.goto(path)
    page.get_by_label(EMAIL[language]).fill(email)
    page.get_by_label(PASSWORD_LABEL[language]).fill(password)
    page.get_by_role("button", name=SIGN_IN[language]).click()
    if expect_success:
        expect(page.get_by_role("navigation").first).to_be_visible()


def open_administration(page, screen: str, language: str = "en") -> None:
    """Administration in the main menu, then one of its screens in its own sub-navigation."""
    page.get_by_role("navigation", name=MAIN_MENU[language]).get_by_role(
        "link", name=ADMINISTRATION[language], exact=True).click()
    page.get_by_role("navigation", name=ADMINISTRATION[language]).get_by_role("link", name=screen, exact=True).click()


def check_accessibility(page, what: str) -> None:
    """axe-core in the page: no serious or critical violation of WCAG 2 A/AA."""
    # Evaluated rather than added as a script tag: the page's CSP refuses inline scripts, as it should.
    page.evaluate(AXE.read_text() + "\n;undefined")
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']}});
        return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
            .map(v => `${v.id}: ${v.help} (${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')})`);
    }""")
    assert found == [], f"accessibility violations on {what}: {found}"


# The guide's screenshots (docs/screens/*.png) are taken by the browser tests that show those
# screens, when ANALYTICS_GUIDE_SCREENS=1 asks (docs/data-engineer/contributing.md, The guide).
GUIDE_SCREENS = REPO_ROOT / "docs" / "screens"


def guide_screen(page, name: str) -> None:
    """The page as it is now, into the guide's docs/screens/<name>.png, when asked for."""
    if os.environ.get("ANALYTICS_GUIDE_SCREENS") != "1":
        return
    GUIDE_SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(GUIDE_SCREENS / f"{name}.png"), animations="disabled", caret="hide")


def pytest_collection_modifyitems(items):
    """The first test to ask for the stack pays for `analytics demo` and `analytics up` in its own
    time; on a loaded machine that alone can pass the suite's five minutes, so the tests of this
    package get fifteen (a hang still ends)."""
    for item in items:
        if "stack" in getattr(item, "fixturenames", ()) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(900))
