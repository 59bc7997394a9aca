"""Every /admin form that creates something answers with a redirect (a reload repeats the GET, not
the POST), and what the page after it shows once (a key's secret) is gone at the next reload."""
from __future__ import annotations

from pipelines.admin import server_keys


def test_a_new_key_redirects_shows_its_secret_once_and_a_reload_creates_nothing(browser, site, db):
    page = f"/admin/sites/{site['id']}/settings"
    created = browser.post(f"/admin/sites/{site['id']}/server-keys", data={"name": "Back end"})
    assert created.status_code == 303 and created.headers["Location"].endswith(page + "#server-keys")
    assert "sk_" not in created.get_data(as_text=True)  # the secret is not in the POST's answer
    shown = browser.get(page).get_data(as_text=True)
    assert "it will never be shown again" in shown
    assert len(server_keys.list_server_keys(db, site["id"])) == 1
    again = browser.get(page).get_data(as_text=True)  # the reload
    assert "it will never be shown again" not in again and 'id="new-secret"' not in again
    assert len(server_keys.list_server_keys(db, site["id"])) == 1


def test_a_secret_kept_for_one_session_opens_in_no_other(app, browser, site, admin):
    from tests.collector_admin_ui.conftest import Browser

    browser.post(f"/admin/sites/{site['id']}/server-keys", data={"name": "Mine"})
    cookie = browser.client.get_cookie("collector_admin_once", path="/admin")
    other = Browser(app.test_client())
    assert other.sign_in().status_code == 303
    other.client.set_cookie("collector_admin_once", cookie.value, path="/admin")
    assert 'id="new-secret"' not in other.get(f"/admin/sites/{site['id']}/settings").get_data(as_text=True)


def test_a_refused_key_name_stays_on_the_form(browser, site, db):
    refused = browser.post(f"/admin/sites/{site['id']}/server-keys", data={"name": "x" * 500})
    assert refused.status_code == 422
    assert server_keys.list_server_keys(db, site["id"]) == []


def test_an_import_and_saved_channel_rules_redirect(browser, site, db):
    csv = "dimension,value,attribute,attribute_value\ncampaign,spring,line,Shoes\n"
    imported = browser.post(f"/admin/sites/{site['id']}/metadata/classifications",
                            data={"content": csv, "action": "import"})
    assert imported.status_code == 303
    assert "1 rows were imported." in browser.get(imported.headers["Location"]).get_data(as_text=True)
    assert "rows were imported" not in browser.get(f"/admin/sites/{site['id']}/metadata").get_data(as_text=True)

    saved = browser.post(f"/admin/sites/{site['id']}/channels", data={
        "action": "save", "position": "1", "channel": "Paid social", "source_pattern": "fb", "medium_pattern": "",
        "campaign_pattern": "", "source_category": ""})
    assert saved.status_code == 303, saved.get_data(as_text=True)
    assert "The rules were saved" in browser.get(saved.headers["Location"]).get_data(as_text=True)
    assert "The rules were saved" not in browser.get(f"/admin/sites/{site['id']}/channels").get_data(as_text=True)
