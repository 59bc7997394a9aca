"""`analytics admin-token create | list | revoke` against the test database."""
from __future__ import annotations

import json

from click.testing import CliRunner

from analytics_cli.main import main
from pipelines.admin import admin_tokens


def _run(settings, *args):
    env = {"ANALYTICS_DATABASE_URL": settings.database_url, "ANALYTICS_HOME": str(settings.home),
           "ANALYTICS_SECRET": settings.server_secret_value}
    return CliRunner().invoke(main, ["admin-token", *args], env=env, catch_exceptions=False)


def test_create_list_revoke(settings, db):
    created = _run(settings, "create", "--name", "ops laptop")
    assert created.exit_code == 0, created.output
    secret = created.stdout.strip().splitlines()[-1]
    assert secret.startswith("at_") and len(secret) == 46
    stored = db.execute("select token_id, name, token_hash from collect.admin_tokens").fetchall()
    assert len(stored) == 1 and stored[0][1] == "ops laptop"
    assert bytes(stored[0][2]) == admin_tokens.token_hash(secret)
    token_id = stored[0][0]
    assert admin_tokens.authenticate(db, secret).token_id == token_id

    listed = _run(settings, "list")
    assert str(token_id) in listed.stdout and "active" in listed.stdout and secret not in listed.stdout
    [as_json] = [json.loads(line) for line in _run(settings, "list", "--json").stdout.splitlines()]
    assert as_json["token_id"] == str(token_id) and as_json["state"] == "active" and as_json["last_used_at"] is not None

    revoked = _run(settings, "revoke", str(token_id))
    assert revoked.exit_code == 0
    assert admin_tokens.authenticate(db, secret) is None
    assert "revoked" in _run(settings, "list").stdout
    # Idempotent: the second revocation succeeds and is not audited again.
    assert _run(settings, "revoke", str(token_id)).exit_code == 0
    actions = [row[0] for row in db.execute(
        "select action from collect.audit_log where target = %s order by audit_id", (str(token_id),))]
    assert actions == ["admin_token.created", "admin_token.revoked"]


def test_revoke_unknown_token_fails_cleanly(settings):
    result = _run(settings, "revoke", "00000000-0000-0000-0000-000000000000")
    assert result.exit_code == 1 and "not found" in result.output
    assert _run(settings, "revoke", "garbage").exit_code == 1
