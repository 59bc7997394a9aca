"""The functions other components call directly: server key authentication, privacy requests."""
from __future__ import annotations

import hashlib
import hmac

import pytest

from pipelines.admin import privacy_requests, server_keys
from pipelines.admin.errors import InvalidInput, NotFound
from pipelines.key_derivation import derive_key


@pytest.fixture
def site_id(db):
    return db.execute("insert into collect.sites (name, accept_user_id) values ('Shop', true) returning site_id"
                      ).fetchone()[0]


def test_authenticate_known_unknown_and_revoked_key(db, site_id):
    created = server_keys.create_server_key(db, site_id, actor="test", name="backend", rate_limit_per_minute=120)
    secret = created["secret"]
    assert secret.startswith("sk_") and len(secret) == 46
    assert created["secret_hint"] == secret[-4:]
    stored = db.execute("select secret_hash from collect.server_keys where key_id = %s",
                        (created["id"],)).fetchone()[0]
    assert bytes(stored) == hashlib.sha256(secret.encode()).digest()

    identity = server_keys.authenticate_server_key(db, secret)
    assert identity == server_keys.ServerKeyIdentity(created["id"], site_id, 120, True)
    assert server_keys.authenticate_server_key(db, secret + "x") is None
    assert server_keys.authenticate_server_key(db, "not-a-key") is None

    server_keys.revoke_server_key(db, site_id, created["id"], actor="test")
    assert server_keys.authenticate_server_key(db, secret) is None


def test_last_used_at_is_written_at_most_once_a_minute(db, site_id):
    created = server_keys.create_server_key(db, site_id, actor="test")
    server_keys.authenticate_server_key(db, created["secret"])
    first = db.execute("select last_used_at from collect.server_keys").fetchone()[0]
    assert first is not None
    server_keys.authenticate_server_key(db, created["secret"])
    assert db.execute("select last_used_at from collect.server_keys").fetchone()[0] == first
    db.execute("update collect.server_keys set last_used_at = now() - interval '2 minutes'")
    server_keys.authenticate_server_key(db, created["secret"])
    assert db.execute("select last_used_at > now() - interval '10 seconds' from collect.server_keys").fetchone()[0]


def test_create_privacy_request_hashes_the_subject_and_audits(db, site_id, settings):
    key = privacy_requests.subject_key(settings)
    assert key == derive_key(settings.server_secret(), "privacy-subject")
    request_id = privacy_requests.create_request(db, site_id, "erasure", "user_id", "u-42", "server-key:x",
                                                 subject_key=key)
    row = db.execute("select subject_hash, subject_value, state from collect.privacy_requests where request_id = %s",
                     (request_id,)).fetchone()
    assert bytes(row[0]) == hmac.new(key, b"user_id:u-42", hashlib.sha256).digest()
    assert row[1:] == ("u-42", "pending")
    action, details = db.execute("select action, details from collect.audit_log where target = %s",
                                 (str(request_id),)).fetchone()
    assert action == "privacy_request.created" and "u-42" not in str(details)
    assert privacy_requests.get_request(db, site_id, request_id)["state"] == "pending"
    assert [r["id"] for r in privacy_requests.list_requests(db, site_id)] == [request_id]
    with pytest.raises(InvalidInput):
        privacy_requests.create_request(db, site_id, "delete", "user_id", "u", "t", subject_key=key)
    with pytest.raises(NotFound):
        privacy_requests.create_request(db, "nope", "export", "user_id", "u", "t", subject_key=key)
