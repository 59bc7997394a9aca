"""Input that PostgreSQL cannot store (NUL, unpaired surrogates, oversized index keys) is refused
with a structured 4xx, never a 500."""
from __future__ import annotations

from tests.collector_admin.conftest import assert_error


def _raw_json(client, method, path, auth, text):
    return client.open(path, method=method, headers=auth, data=text.encode("utf-8"), content_type="application/json")


def test_nul_and_surrogates_in_bodies(client, auth, site, db):
    base = f"/api/v1/sites/{site['id']}"
    cases = [
        ("POST", "/api/v1/sites", '{"name": "a\\u0000b"}', "name"),
        ("POST", "/api/v1/sites", '{"name": "a\\ud800b"}', "name"),
        ("POST", "/api/v1/sites", '{"name": "S", "domains": ["\\ud800.com"]}', "domains[0]"),
        ("POST", f"{base}/events", '{"name": "e", "label": "L", "description": "\\udfff"}', "description"),
        ("POST", f"{base}/goals", '{"name": "g", "event_name": "e", "property_name": "p", "property_value": "\\u0000"}',
         "property_value"),
        ("POST", f"{base}/annotations", '{"date": "2026-01-01", "text": "\\ud83d"}', "text"),
        ("POST", f"{base}/privacy-requests", '{"kind": "erasure", "user_id": "u\\u0000"}', "user_id"),
        ("PUT", f"{base}/channel-rules", '{"rules": [{"channel": "A", "source_pattern": "\\u0000"}]}',
         "rules[0].source_pattern"),
    ]
    for method, path, text, field in cases:
        error = assert_error(_raw_json(client, method, path, auth, text), 422)
        assert error["details"]["field"] == field, (path, text, error)
    assert db.execute("select count(*) from collect.sites").fetchone()[0] == 1
    assert db.execute("select count(*) from collect.privacy_requests").fetchone()[0] == 0


def test_unstorable_names_in_paths_are_not_found(client, auth, site):
    base = f"/api/v1/sites/{site['id']}"
    for path in (f"{base}/events/a%00b", f"{base}/zones/a%00b", f"{base}/events/%ED%A0%80", f"{base}/zones/BIG"):
        assert_error(client.get(path, headers=auth), 404)
        assert_error(client.delete(path, headers=auth), 404)
        assert_error(client.put(path, headers=auth, json={"label": "x", "selector": ".x"}), 404)


def test_classification_values_over_the_index_limit(client, auth, site, db):
    wide = "€" * 900  # 900 characters, 2,700 bytes: too wide for the primary key's index
    body = f"dimension,value,attribute,attribute_value\ncampaign,{wide},line,x\n".encode()
    error = assert_error(client.post(f"/api/v1/sites/{site['id']}/classifications/import", headers=auth, data=body,
                                     content_type="text/csv"), 422, "csv_invalid")
    assert error["details"]["lines"][0]["line"] == 2
    assert db.execute("select count(*) from collect.classifications").fetchone()[0] == 0
