"""Single sign-on in the browser, on the real stack, through a real OpenID provider's own pages
(oidc-provider's sign-in and consent pages); the rows a person sees follow the directory's
attribute. The Settings screen's single sign-on section in three languages, with axe."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.oidc_provider.servers import CLIENT_ID, CLIENT_SECRET, real_provider
from tests.workbench_ui.conftest import (ADMIN, EMAIL, LANGUAGES, PASSWORD, PASSWORD_LABEL, SIGN_IN,
                                         check_accessibility, open_administration, sign_in)
from tests.workbench_ui.test_screens import expect_rows, run, write_sql

pytestmark = [pytest.mark.slow, pytest.mark.browser]

OLGA = {"email": "olga@example.org", "name": "Olga Organic", "groups": ["Organic analysts"],
        "channel": "Organic Search"}
SETTINGS = {"en": "Settings", "fr": "Réglages", "es": "Ajustes"}
SSO_TITLE = {"en": "Single sign-on (OpenID Connect)", "fr": "Authentification unique (OpenID Connect)",
             "es": "Inicio de sesión único (OpenID Connect)"}
STATE_ERROR = {"en": "This sign-in was not started here", "fr": "Cette connexion n'a pas été commencée ici",
               "es": "Este inicio de sesión no empezó aquí"}
SSO_BUTTON = {"en": "Sign in with Test Directory", "fr": "Se connecter avec Test Directory",
              "es": "Entrar con Test Directory"}


@pytest.fixture(scope="module")
def provider(stack, tmp_path_factory):
    with real_provider({"olga": OLGA}, [stack.base_url + "/api/v1/sso/callback"],
                       tmp_path_factory.mktemp("directory")) as running:
        stack.ok("PATCH", "/settings/sso", json={
            "issuer": running.issuer, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
            "scopes": "openid email profile groups directory", "display_name": "Test Directory",
            "attribute_claims": {"channel": "channel"}})
        try:
            yield running
        finally:
            stack.ok("PATCH", "/settings/sso", json={"issuer": None, "client_id": None, "client_secret": None,
                                                     "display_name": None, "scopes": None, "attribute_claims": {}})


def sign_in_at_the_provider(page, login: str) -> None:
    """The provider's own pages: its sign-in form, then its consent page when it asks."""
    page.get_by_placeholder("Enter any login").fill(login)
    page.get_by_placeholder("and password").fill("any password")
    page.get_by_role("button", name="Sign-in").click()
    page.get_by_role("button", name="Continue").click()


def rows_of_channels(page) -> None:
    write_sql(page, "select channel, count(*) as n from visits group by 1")
    run(page)
    expect_rows(page, 1)
    page.get_by_label("Chart", exact=True).select_option("table")


def test_a_person_signs_in_by_sso_and_sees_the_rows_of_their_directory_attribute(page, stack, provider):
    page.goto("/sql")  # not signed in: the sign-in page, which will bring the person back here
    page.get_by_role("link", name="Sign in with Test Directory").click()
    sign_in_at_the_provider(page, "olga")
    expect(page).to_have_url(stack.base_url + "/sql")
    table = page.get_by_role("region", name="Result table")
    rows_of_channels(page)
    expect(table.get_by_role("cell", name="Organic Search")).to_be_visible()

    # The directory moves Olga to another channel: her next sign-in brings the new attribute.
    other = stack.psql("select channel from analytics.visits where channel <> 'Organic Search' "
                       "group by 1 order by count(*) desc limit 1").strip()
    provider.set_directory({"olga": {**OLGA, "channel": other}})
    page.get_by_role("button", name="Sign out").click()
    page.goto("/sql")
    page.get_by_role("link", name="Sign in with Test Directory").click()
    consent = page.get_by_role("button", name="Continue")
    login = page.get_by_placeholder("Enter any login")
    expect(consent.or_(login).or_(page.get_by_role("heading", name="New SQL query"))).to_be_visible()
    if login.is_visible():
        sign_in_at_the_provider(page, "olga")
    elif consent.is_visible():
        consent.click()
    expect(page).to_have_url(stack.base_url + "/sql")
    rows_of_channels(page)
    expect(table.get_by_role("cell", name=other)).to_be_visible()
    expect(table.get_by_role("cell", name="Organic Search")).to_have_count(0)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_refused_sso_is_explained_on_the_sign_in_page_and_passwords_still_work(browser, stack, provider, language):
    context = browser.new_context(base_url=stack.base_url, locale={"en": "en-US", "fr": "fr-FR", "es": "es-ES"}[language])
    try:
        page = context.new_page()
        page.goto("/api/v1/sso/callback?state=forged&code=forged")
        expect(page.get_by_role("alert")).to_contain_text(STATE_ERROR[language])
        expect(page.get_by_role("link", name=SSO_BUTTON[language])).to_be_visible()
        check_accessibility(page, f"sign-in page with a single sign-on error ({language})")
        page.get_by_label(EMAIL[language]).fill(ADMIN)
        page.get_by_label(PASSWORD_LABEL[language]).fill(PASSWORD)
        page.get_by_role("button", name=SIGN_IN[language], exact=True).click()
        expect(page.get_by_role("navigation").first).to_be_visible()
    finally:
        context.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_single_sign_on_settings_in_each_language_pass_axe(page, stack, provider, language):
    email = f"sso-settings-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    open_administration(page, SETTINGS[language], language)
    expect(page.get_by_role("heading", name=SSO_TITLE[language], exact=True)).to_be_visible()
    check_accessibility(page, f"single sign-on settings ({language})")


def test_the_claims_mapping_is_set_in_the_screen_and_the_secret_never_shown(page, stack, provider):
    sign_in(page)
    open_administration(page, "Settings")
    expect(page.get_by_text("A secret is set: leave empty to keep it.")).to_be_visible()
    expect(page.get_by_label("Client secret")).to_have_value("")
    assert CLIENT_SECRET not in page.content()
    page.get_by_label("Directory groups to workbench groups").fill("organic-team = Organic analysts")
    page.get_by_label("Claims that become attributes").fill("channel = channel\nbroken line")
    page.get_by_role("button", name="Save single sign-on").click()
    expect(page.get_by_text("Lines without a name or a target: 2.")).to_be_visible()
    page.get_by_label("Claims that become attributes").fill("channel = channel")
    page.get_by_role("button", name="Save single sign-on").click()
    expect(page.get_by_text("Saved.")).to_be_visible()
    saved = stack.ok("GET", "/settings/sso")
    assert saved["group_mapping"] == {"organic-team": "Organic analysts"} and saved["client_secret_set"]
    stack.ok("PATCH", "/settings/sso", json={"group_mapping": {}})
