"""The README's first screen, followed as a newcomer does on a fresh ANALYTICS_HOME: run, open the
printed link, create the administrator, look at the Demo dashboard and see its charts; then the
collector's link, for the administrator of its pages. Then every command of the README and of the
guide. With ANALYTICS_GUIDE_SCREENS=1, the screens of the guide's first hour are taken on the way.

`make run` is `analytics demo --if-missing` then `analytics up`; here Dagster is left out
(`--no-dagster`) to spare the shared machine, which changes nothing the first screen shows.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from playwright.sync_api import expect

from analytics_cli.local_stack import ANALYTICS, LocalStack
from tests.conftest import REPO_ROOT, free_port
from tests.guide import shell_commands
from tests.workbench_ui.conftest import PASSWORD, check_accessibility, guide_screen

pytestmark = [pytest.mark.slow, pytest.mark.browser]

NEWCOMER = "newcomer@example.org"


@pytest.fixture(scope="module")
def fresh_stack():
    local = LocalStack.prepare()
    try:
        yield local.start()
    finally:
        local.stop()


def test_analytics_demo_prints_a_progress_bar_and_one_summary_not_dagster_s_events(fresh_stack):
    lines = fresh_stack.demo_output.strip().splitlines()
    assert len(lines) == 2, lines
    assert lines[0] == "creating the demo site and 90 days of traffic..."
    assert re.fullmatch(r"demo ready in \d+ s: site [0-9a-f-]{36}, [\d,]+ events \([\d,]+ through POST "
                        r"/collect/server\), \d+ assets built; the workbench has a Demo folder", lines[1]), lines[1]
    # The progress bar is drawn on the terminal (standard error); without one, its label only.
    assert fresh_stack.demo_errors.strip() == "building the views"
    assert "ASSET_MATERIALIZATION" in (fresh_stack.root / "home" / "logs" / "demo.log").read_text()


def test_first_screen_of_the_readme(browser, fresh_stack):
    link = fresh_stack.printed_setup_link()
    assert link.startswith(fresh_stack.workbench_url + "/setup?token=")
    console = fresh_stack.console()
    assert "DEBUG" not in console and "GET /healthz" not in console
    assert "Then look at the Demo dashboard" in console

    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    page = context.new_page()
    page.goto(link)
    page.get_by_label("E-mail address").fill(NEWCOMER)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Display name").fill("New Comer")
    page.get_by_label("Language").select_option("en")
    check_accessibility(page, "setup")
    page.get_by_role("button", name="Create the administrator").click()
    expect(page.get_by_role("navigation").first).to_be_visible()
    expect(page.get_by_role("link", name="Demo dashboard").first).to_be_visible()
    guide_screen(page, "home")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Dashboards").click()
    page.get_by_role("link", name="Demo dashboard").click()
    expect(page.get_by_role("heading", name="Demo dashboard")).to_be_visible()
    for title in ("Visits by channel", "Conversions by attribution model", "Top pages", "Visits per day"):
        chart = page.get_by_role("region", name=title, exact=True).get_by_test_id("chart")
        expect(chart.locator("svg").first).to_be_visible(timeout=30_000)
    check_accessibility(page, "the Demo dashboard")
    guide_screen(page, "demo-dashboard")

    # The link is spent: the API says so, whatever page shows it.
    again = requests.get(f"{fresh_stack.workbench_url}/api/v1/setup", params={"token": link.split("token=")[1]},
                         timeout=10)
    assert again.status_code == 410 and again.json()["error"]["code"] == "setup_done"
    page.goto(link)
    expect(page.get_by_text("The workbench has an administrator already.")).to_be_visible()
    page.goto(link.split("token=")[0] + "token=forged")
    expect(page.get_by_text("The workbench has an administrator already.")).to_be_visible()

    # The second printed link: the collector's administration pages get their administrator too.
    collector_link = fresh_stack.printed_setup_link(collector=True)
    page.goto(collector_link)
    page.get_by_label("E-mail address").fill(NEWCOMER)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Language").select_option("en")
    page.get_by_role("button", name="Create the administrator").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Sites")
    guide_screen(page, "collector-sites")
    page.goto(collector_link)
    expect(page.get_by_role("heading", level=1)).to_have_text("The collector has an administrator already")
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


def test_the_demo_dashboard_runs_every_card(fresh_stack):
    """Each card of the Demo dashboard runs through the API too, and its chart fits its result."""
    token = fresh_stack.create_admin("second@example.org", PASSWORD)
    headers = {"Authorization": f"Bearer {token}"}
    api = f"{fresh_stack.workbench_url}/api/v1"
    listed = requests.get(f"{api}/dashboards", headers=headers, timeout=10).json()["dashboards"]
    demo = next(d for d in listed if d["name"] == "Demo dashboard")
    dashboard = requests.get(f"{api}/dashboards/{demo['dashboard_id']}", headers=headers, timeout=10).json()
    assert len(dashboard["cards"]) == 4
    for card in dashboard["cards"]:
        result = requests.post(f"{api}/dashboards/{demo['dashboard_id']}/cards/{card['card_id']}/run",
                               headers=headers, json={}, timeout=60)
        assert result.status_code == 200, result.text
        body = result.json()
        assert body["row_count"] > 0, card
        question = requests.get(f"{api}/questions/{card['question_id']}", headers=headers, timeout=10).json()
        names = {column["name"] for column in body["columns"]}
        spec = question["visualization"]
        assert spec["x"] in names and set(spec["y"]) <= names, (question["name"], names)


# ---------------------------------------------------------------------------------------------
# Every command and request of the README and of the guide (its pages in the order of mkdocs.yml's
# navigation), run against the same fresh stack, so they cannot drift.
#
# Placeholders, as the guide documents them:
#   `analytics ...`          runs with .venv/bin first on PATH (as after `source .venv/bin/activate`)
#   127.0.0.1:8000, :8080    the stack's collector and workbench ports (free ports)
#   $ADMIN_TOKEN             what the guide's `analytics admin-token create` line printed
#   <token id>               the id of a second admin token made for the purpose (the first stays usable)
#   $WORKBENCH_TOKEN         the wbt_ secret the guide's `create-admin --with-token` line printed
#   password prompts         answered on standard input
# Requests go through curl with `-sS --fail-with-body`, so an HTTP refusal fails the test.
NOT_RUN_HERE = {
    "make run": "its two commands (analytics demo --if-missing, analytics up) made this module's stack",
    "make test": "the test suite itself",
    "DAGSTER_HOME=$PWD/.analytics/dagster .venv/bin/dagster dev -w workspace.yaml":
        "Dagster's webserver and daemon as `analytics up` runs them: tests/foundation/test_up.py",
}
PROMPTED_PASSWORD = "a long enough password\n" * 2


def _environment(stack: LocalStack, extra: dict) -> dict:
    env = dict(stack.env, **extra)
    env["PATH"] = f"{REPO_ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def _on_stack(command: str, stack: LocalStack) -> str:
    collector_port = urlsplit(stack.collector_url).port
    workbench_port = urlsplit(stack.workbench_url).port
    command = command.replace("127.0.0.1:8000", f"127.0.0.1:{collector_port}")
    command = command.replace("127.0.0.1:8080", f"127.0.0.1:{workbench_port}")
    return re.sub(r"^curl ", "curl -sS --fail-with-body ", command)


def _serve_until_healthy(command: str, stack: LocalStack, env: dict) -> None:
    """A `gunicorn ... -b 127.0.0.1:<port>` line of the guide: it must answer /healthz."""
    port = free_port()
    command = re.sub(r"-b 127\.0\.0\.1:\d+", f"-b 127.0.0.1:{port}", command)
    env = dict(env, ANALYTICS_DATABASE_URL=stack.analytics("db", "url").strip())
    server = subprocess.Popen(["bash", "-c", f"exec {command}"], env=env, cwd=REPO_ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert server.poll() is None, (command, server.stderr.read().decode()[-2000:])
            try:
                if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.3)
        raise AssertionError(f"{command} did not answer /healthz within 60 s")
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_every_command_of_the_readme_runs(fresh_stack):
    commands = shell_commands()
    assert set(NOT_RUN_HERE) <= set(commands), "an exemption names a command the README and the guide no longer have"
    values: dict[str, str] = {}
    ran = []
    for readme_line in commands:
        if readme_line in NOT_RUN_HERE:
            continue
        written = readme_line
        if "<token id>" in written:
            created = subprocess.run([ANALYTICS, "admin-token", "create", "--name", "to revoke"],
                                     env=fresh_stack.env, capture_output=True, text=True, check=True)
            token_id = re.search(r"token (\S+) created", created.stderr).group(1)
            written = written.replace("<token id>", token_id)
        env = _environment(fresh_stack, values)
        command = _on_stack(written, fresh_stack)
        if "gunicorn" in command:
            _serve_until_healthy(command, fresh_stack, env)
            ran.append(readme_line)
            continue
        done = subprocess.run(["bash", "-c", command], env=env, cwd=REPO_ROOT, input=PROMPTED_PASSWORD,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (written, done.stdout[-2000:], done.stderr[-2000:])
        if "admin-token create" in written:
            values["ADMIN_TOKEN"] = done.stdout.strip().splitlines()[-1]
            assert values["ADMIN_TOKEN"].startswith("at_")
        if "--with-token" in written:
            values["WORKBENCH_TOKEN"] = done.stdout.strip().splitlines()[-1]
            assert values["WORKBENCH_TOKEN"].startswith("wbt_")
        if "/api/v1/sql" in written:
            assert json.loads(done.stdout)["rows"][0][0] > 0
        ran.append(readme_line)
    assert sorted(ran + list(NOT_RUN_HERE)) == sorted(commands)
