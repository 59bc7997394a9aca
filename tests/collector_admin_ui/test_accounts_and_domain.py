"""`analytics admin create-user`, and the domain pieces the pages added: the audit log's site and
date filters, the channel tester and preview before any build, CSV errors naming their column."""
from __future__ import annotations

import datetime as dt

import pytest
from click.testing import CliRunner

from analytics_cli.main import main
from pipelines.admin import admin_users, audit_log, channel_preview, classifications, server_keys, sites
from pipelines.admin.errors import InvalidInput
from tests.collector_admin_ui.conftest import PASSWORD, Browser


def _cli(settings, *args, input=None):
    env = {"ANALYTICS_DATABASE_URL": settings.database_url, "ANALYTICS_HOME": str(settings.home),
           "ANALYTICS_SECRET": settings.server_secret_value}
    return CliRunner().invoke(main, ["admin", *args], env=env, input=input, catch_exceptions=False)


def test_the_first_administrator_comes_from_the_command_line(settings, db, app):
    created = _cli(settings, "create-user", "--email", "first@example.org", input=f"{PASSWORD}\n{PASSWORD}\n")
    assert created.exit_code == 0, created.output
    stored = db.execute("select email, password_hash, is_administrator from collect.admin_users").fetchall()
    assert stored[0][0] == "first@example.org" and stored[0][1].startswith("$argon2id$") and stored[0][2]
    assert PASSWORD not in created.output
    assert Browser(app.test_client()).sign_in("first@example.org").status_code == 303
    again = _cli(settings, "create-user", "--email", "FIRST@example.org", "--password", "another long one")
    assert again.exit_code == 1 and "exists already" in again.output
    short = _cli(settings, "create-user", "--email", "second@example.org", "--password", "short")
    assert short.exit_code == 1 and "password must have 10" in short.output
    actions = [row[0] for row in db.execute("select action from collect.audit_log order by audit_id")]
    assert actions == ["admin_user.created", "admin_user.signed_in"]


def test_audit_log_filtered_by_site_kind_and_dates(db):
    shop = sites.create_site(db, {"name": "Shop"}, actor="tests")
    blog = sites.create_site(db, {"name": "Blog"}, actor="tests")
    key = server_keys.create_server_key(db, shop["id"], actor="tests", name="k")
    server_keys.revoke_server_key(db, shop["id"], key["id"], actor="tests")
    server_keys.create_server_key(db, blog["id"], actor="tests")

    def actions(**filters):
        return [entry["action"] for entry in audit_log.list_entries(db, **filters)["entries"]]

    assert actions(site_id=str(shop["id"])) == ["server_key.revoked", "server_key.created", "site.created"]
    assert actions(site_id=str(shop["id"]), action="server_key.*") == ["server_key.revoked", "server_key.created"]
    tomorrow = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1)
    assert actions(since=tomorrow) == []
    assert len(actions(until=tomorrow)) == 5 and actions(until=tomorrow - dt.timedelta(days=2)) == []


def test_channel_tester_and_preview_before_the_first_build(db):
    site = sites.create_site(db, {"name": "Shop", "domains": ["shop.example"]}, actor="tests")
    tested = channel_preview.channel_for_landing(
        db, site["id"], None, url="https://shop.example/?utm_source=Newsletter&utm_medium=E-mail", referrer="",
        utm={})
    assert (tested["source"], tested["medium"], tested["channel"]) == ("newsletter", "e-mail", "Email")
    referred = channel_preview.channel_for_landing(db, site["id"], None, url="https://shop.example/",
                                                   referrer="https://www.other.example/page", utm={})
    assert (referred["source"], referred["medium"], referred["channel"]) == ("other.example", "referral", "Referral")
    own = channel_preview.channel_for_landing(db, site["id"], None, url="https://shop.example/b",
                                              referrer="https://shop.example/a", utm={})
    assert own["channel"] == "Direct"
    custom = channel_preview.channel_for_landing(
        db, site["id"], {"rules": [{"channel": "Everything"}]}, url="https://shop.example/", referrer="", utm={})
    assert custom["channel"] == "Everything"
    with pytest.raises(InvalidInput):
        channel_preview.channel_for_landing(db, site["id"], {"rules": [{"channel": "Bad", "source_pattern": "("}]},
                                            url="", referrer="", utm={})
    assert channel_preview.preview_changes(db, site["id"], None) == {"available": False, "visits": 0, "changes": []}


def test_csv_errors_name_line_and_column():
    with pytest.raises(InvalidInput) as refused:
        classifications.parse_csv(b"dimension,value,attribute,attribute_value\ncampaign,a,Bad Attr,x\ncampaign,b\n")
    assert [(line["line"], line["column"]) for line in refused.value.details["lines"]] == [(2, "attribute"), (3, None)]


def test_account_language_is_checked(db):
    user = admin_users.create_user(db, email="a@example.org", password=PASSWORD)
    assert admin_users.set_locale(db, user["user_id"], "fr")["locale"] == "fr"
    with pytest.raises(InvalidInput):
        admin_users.set_locale(db, user["user_id"], "de")
