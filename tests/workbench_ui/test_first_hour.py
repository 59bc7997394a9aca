"""The first hour of a newcomer, end to end in English, French and Spanish, on a fresh installation
with the demo data: the workbench's setup link, the home page, the Demo dashboard, a question, a
share, then the collector's pages (setup, the site's page, a server key created and the page
reloaded), and signing out. No error in the browser's console, axe-clean, no traceback anywhere.

The demo is made once; each language starts the product on its own copy of that home, since a
setup link works once per installation."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import expect

from analytics_cli.local_stack import LocalStack, free_port
from tests.collector_admin_ui.browser_steps import expect_accessible
from tests.conftest import REPO_ROOT
from tests.workbench_ui.conftest import LANGUAGES, MAIN_MENU, PASSWORD, check_accessibility, guide_screen

pytestmark = [pytest.mark.slow, pytest.mark.browser]
LOCALES = REPO_ROOT / "workbench_app" / "frontend" / "src" / "i18n" / "locales"
COLLECTOR_TRANSLATIONS = REPO_ROOT / "collector_app" / "translations"


def workbench_words(language: str) -> dict[str, str]:
    """The web application's catalogue in `language`: the screens' own words."""
    words: dict[str, str] = {}
    for path in sorted((LOCALES / language).glob("*.json")):
        words.update(json.loads(path.read_text()))
    return words


def collector_words(language: str):
    """The collector pages' message in `language` (their English text is the message id)."""
    if language == "en":
        return lambda text: text
    with (COLLECTOR_TRANSLATIONS / language / "LC_MESSAGES" / "messages.po").open("rb") as po:
        catalog = read_po(po)
    return lambda text: (catalog.get(text).string if catalog.get(text) is not None and catalog.get(text).string
                         else text)


@pytest.fixture(scope="module")
def demo_home():
    """A home with the demo made by `analytics demo` (stopped): copied for each language."""
    template = LocalStack.prepare()
    yield template
    shutil.rmtree(template.root, ignore_errors=True)


@pytest.fixture
def fresh_stack(demo_home):
    root = Path(tempfile.mkdtemp(prefix="analytics-first-hour-"))
    # `cp -a`: the embedded PostgreSQL's files keep their owner (the server may run as another user).
    subprocess.run(["cp", "-a", str(demo_home.root / "home"), str(root / "home")], check=True)
    workbench, collector = free_port(), free_port()
    env = {**demo_home.env, "ANALYTICS_HOME": str(root / "home"), "ANALYTICS_WORKBENCH_PORT": str(workbench),
           "ANALYTICS_COLLECTOR_PORT": str(collector)}
    stack = LocalStack(root, env, f"http://127.0.0.1:{workbench}", f"http://127.0.0.1:{collector}", root / "up.log")
    try:
        yield stack.start()
    finally:
        stack.stop()


def without_tracebacks(stack: LocalStack) -> None:
    assert "Traceback" not in stack.console()
    for log in (stack.root / "home" / "logs").glob("*.log"):
        assert "Traceback" not in log.read_text(errors="replace"), log.name


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_first_hour(browser, fresh_stack, language):
    w, c = workbench_words(language), collector_words(language)
    email = f"first-{language}@example.org"
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale=language)
    problems: list[str] = []
    context.on("weberror", lambda error: problems.append(str(error.error)))
    page = context.new_page()
    page.on("console", lambda message: problems.append(f"{message.text} {message.location}")
            if message.type == "error" else None)

    # The workbench's setup link, as `analytics up` printed it.
    page.goto(fresh_stack.printed_setup_link())
    page.get_by_label(w["signIn.email"]).fill(email)
    page.get_by_label(w["signIn.password"]).fill(PASSWORD)
    page.get_by_label(w["setup.name"]).fill("New Comer")
    page.get_by_label(w["account.language"]).select_option(language)
    check_accessibility(page, f"setup ({language})")
    page.get_by_role("button", name=w["setup.submit"]).click()

    # It opens on the home page: the Demo dashboard pinned, the next steps of an administrator.
    expect(page.get_by_role("heading", name=w["home.title"], exact=True)).to_be_visible()
    pinned = page.get_by_role("region", name=w["home.pinned"], exact=True)
    expect(pinned.get_by_role("link", name="Demo dashboard")).to_be_visible()
    expect(page.get_by_role("region", name=w["home.nextSteps"], exact=True).get_by_role("listitem")).to_have_count(4)
    check_accessibility(page, f"home ({language})")

    # The Demo dashboard draws its charts, and is shared with a member's link.
    pinned.get_by_role("link", name="Demo dashboard").click()
    expect(page.get_by_role("heading", name="Demo dashboard")).to_be_visible()
    for title in ("Visits by channel", "Top pages"):
        chart = page.get_by_role("region", name=title, exact=True).get_by_test_id("chart")
        expect(chart.locator("svg").first).to_be_visible(timeout=30_000)
    check_accessibility(page, f"the Demo dashboard ({language})")
    page.get_by_role("button", name=w["sharing.share"], exact=True).click()
    dialog = page.get_by_role("dialog", name=w["sharing.title"])
    expect(dialog.get_by_test_id("members-link")).to_contain_text("/dashboards/")
    check_accessibility(page, f"share dialog ({language})")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)

    # A question of the Demo folder, run in the editor; the home page lists what was opened.
    main = page.get_by_role("navigation", name=MAIN_MENU[language])
    main.get_by_role("link", name=w["nav.browse"], exact=True).click()
    page.get_by_role("link", name="Demo", exact=True).click()
    page.get_by_role("link", name="Visits by channel", exact=True).click()
    page.get_by_role("button", name=w["sql.run"], exact=True).click()
    expect(page.get_by_test_id("result-status")).to_be_visible()
    expect(page.get_by_test_id("chart").locator("svg").first).to_be_visible(timeout=30_000)
    if language == "en":
        guide_screen(page, "sql-editor")
    main.get_by_role("link", name=w["home.title"], exact=True).click()
    recent = page.get_by_role("region", name=w["home.recent"], exact=True)
    expect(recent.get_by_role("link", name="Visits by channel")).to_be_visible()
    expect(recent.get_by_role("link", name="Demo dashboard")).to_be_visible()

    # The collector's pages: their administrator, the demo site's page, a server key, a reload.
    # Its own context: axe-core is added to these pages as a script tag, which their CSP refuses.
    pages_of_the_collector = browser.new_context(locale=language, bypass_csp=True)
    collector = pages_of_the_collector.new_page()
    collector.on("console", lambda message: problems.append(f"{message.text} {message.location}")
                 if message.type == "error" else None)
    collector.goto(fresh_stack.printed_setup_link(collector=True))
    collector.get_by_label(c("E-mail address")).fill(email)
    collector.get_by_label(c("Password")).fill(PASSWORD)
    collector.get_by_label(c("Language")).select_option(language)
    collector.get_by_role("button", name=c("Create the administrator")).click()
    expect(collector.get_by_role("heading", level=1)).to_have_text(c("Sites"))
    collector.get_by_role("link", name="Demo shop").click()
    expect_accessible(collector)
    if language == "en":
        guide_screen(collector, "collector-site")
    collector.get_by_label(c("Key name"), exact=True).fill("Checkout")
    collector.get_by_role("button", name=c("Create a key")).click()
    secret = collector.get_by_label(re.compile(re.escape(c("Secret of the key “%(name)s”").split("%(name)s")[0])))
    assert secret.input_value().startswith("sk_")
    expect_accessible(collector)
    collector.reload()
    expect(collector.get_by_text(c("Copy this secret now: it will never be shown again."))).to_have_count(0)
    expect(collector.get_by_role("row", name=re.compile("Checkout"))).to_have_count(1)
    pages_of_the_collector.close()

    # Signing out of the workbench.
    page.get_by_role("button", name=w["account.signOut"]).click()
    expect(page.get_by_role("heading", name=w["signIn.title"], exact=True)).to_be_visible()
    context.close()
    assert problems == [], problems
    without_tracebacks(fresh_stack)
