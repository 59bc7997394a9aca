"""Declared events, zones, goals and annotations of a site through the API."""
from __future__ import annotations

from tests.collector_admin.conftest import assert_error

PURCHASE = {"name": "purchase", "label": "Purchase", "description": "An order was paid.",
            "properties": [{"name": "value", "type": "number", "label": "Order value"},
                           {"name": "coupon", "type": "string", "label": "Coupon", "description": "Code used"}]}


def test_declared_events_crud(client, auth, site, db):
    base = f"/api/v1/sites/{site['id']}/events"
    created = client.post(base, headers=auth, json=PURCHASE)
    assert created.status_code == 201
    event = created.get_json()
    assert event["name"] == "purchase" and event["label"] == "Purchase"
    assert [(p["name"], p["type"]) for p in event["properties"]] == [("coupon", "string"), ("value", "number")]
    assert client.get(base, headers=auth).get_json()["events"] == [event]
    assert_error(client.post(base, headers=auth, json=PURCHASE), 409, "conflict")

    replaced = client.put(f"{base}/purchase", headers=auth, json={
        "label": "Order", "properties": [{"name": "paid_at", "type": "timestamp", "label": "Paid at"}]})
    assert replaced.status_code == 200
    body = replaced.get_json()
    assert body["label"] == "Order" and body["description"] == ""
    assert [p["name"] for p in body["properties"]] == ["paid_at"]
    # The pipeline notices the change through updated_at.
    assert body["updated_at"] > event["updated_at"]
    assert db.execute("select count(*) from collect.declared_event_properties").fetchone()[0] == 1

    assert client.delete(f"{base}/purchase", headers=auth).status_code == 204
    assert client.get(base, headers=auth).get_json()["events"] == []
    assert db.execute("select count(*) from collect.declared_event_properties").fetchone()[0] == 0
    assert_error(client.get(f"{base}/purchase", headers=auth), 404)
    assert_error(client.delete(f"{base}/purchase", headers=auth), 404)
    assert_error(client.put(f"{base}/purchase", headers=auth, json={"label": "x"}), 404)
    actions = [r[0] for r in db.execute("select action from collect.audit_log where action like 'declared_event.%%' "
                                        "order by audit_id")]
    assert actions == ["declared_event.created", "declared_event.updated", "declared_event.deleted"]


def test_declared_event_validation(client, auth, site, db):
    base = f"/api/v1/sites/{site['id']}/events"
    cases = [
        ({"label": "x"}, "name"),
        ({"name": "Purchase", "label": "x"}, "name"),
        ({"name": "9lives", "label": "x"}, "name"),
        ({"name": "ok"}, "label"),
        ({"name": "ok", "label": ""}, "label"),
        ({"name": "ok", "label": "x", "properties": {}}, "properties"),
        ({"name": "ok", "label": "x", "properties": ["value"]}, "properties[0]"),
        ({"name": "ok", "label": "x", "properties": [{"name": "v", "type": "float", "label": "V"}]}, "properties[0].type"),
        ({"name": "ok", "label": "x", "properties": [{"name": "v", "label": "V"}]}, "properties[0].type"),
        ({"name": "ok", "label": "x", "properties": [{"name": "Bad", "type": "string", "label": "V"}]}, "properties[0].name"),
        ({"name": "ok", "label": "x", "properties": [{"name": "v", "type": "string", "label": "V"},
                                                     {"name": "v", "type": "number", "label": "W"}]}, "properties[1].name"),
        ({"name": "ok", "label": "x", "properties": [{"name": "v", "type": "string", "label": "V", "x": 1}]}, "properties[0].x"),
    ]
    for body, field in cases:
        error = assert_error(client.post(base, headers=auth, json=body), 422, "validation_failed")
        assert error["details"]["field"] == field, (body, error)
    assert db.execute("select count(*) from collect.declared_events").fetchone()[0] == 0
    client.post(base, headers=auth, json=PURCHASE)
    assert_error(client.put(f"{base}/purchase", headers=auth, json={"name": "other", "label": "x"}), 422)
    # A refused replacement keeps the old properties.
    assert_error(client.put(f"{base}/purchase", headers=auth,
                            json={"label": "x", "properties": [{"name": "v", "type": "nope", "label": "V"}]}), 422)
    assert len(client.get(f"{base}/purchase", headers=auth).get_json()["properties"]) == 2


def test_zones_crud_and_validation(client, auth, site, make_site):
    base = f"/api/v1/sites/{site['id']}/zones"
    zone = {"name": "pricing-table", "selector": "#pricing .plans > li", "label": "Pricing table"}
    assert client.post(base, headers=auth, json=zone).get_json() == zone
    assert_error(client.post(base, headers=auth, json=zone), 409)
    assert client.get(base, headers=auth).get_json() == {"zones": [zone]}
    changed = client.put(f"{base}/pricing-table", headers=auth, json={"selector": ".pricing", "label": "Prices"})
    assert changed.get_json() == {"name": "pricing-table", "selector": ".pricing", "label": "Prices"}
    for body, field in [({"name": "Hero", "selector": ".hero", "label": "H"}, "name"),
                        ({"name": "hero", "selector": "", "label": "H"}, "selector"),
                        ({"name": "hero", "selector": ".hero { color: red }", "label": "H"}, "selector"),
                        ({"name": "hero", "selector": ".hero"}, "label")]:
        assert assert_error(client.post(base, headers=auth, json=body), 422)["details"]["field"] == field
    # Zones belong to their site.
    other = make_site(name="Other")
    assert_error(client.get(f"/api/v1/sites/{other['id']}/zones/pricing-table", headers=auth), 404)
    assert client.delete(f"{base}/pricing-table", headers=auth).status_code == 204
    assert client.get(base, headers=auth).get_json() == {"zones": []}


def test_goals_crud_and_validation(client, auth, site, db):
    base = f"/api/v1/sites/{site['id']}/goals"
    page_goal = client.post(base, headers=auth, json={"name": "Reached checkout", "path_pattern": "/checkout/*/done"})
    assert page_goal.status_code == 201
    assert page_goal.get_json()["kind"] == "pageview" and page_goal.get_json()["value"] is None
    event_goal = client.post(base, headers=auth, json={"name": "Big order", "event_name": "purchase",
                                                       "property_name": "plan", "property_value": "pro",
                                                       "value": 49.9}).get_json()
    assert (event_goal["kind"], event_goal["value"], event_goal["property_value"]) == ("event", 49.9, "pro")
    assert [g["name"] for g in client.get(base, headers=auth).get_json()["goals"]] == ["Big order", "Reached checkout"]
    assert_error(client.post(base, headers=auth, json={"name": "Big order", "event_name": "signup"}), 409)

    path = f"{base}/{event_goal['id']}"
    replaced = client.put(path, headers=auth, json={"name": "Signup", "event_name": "sign_up", "kind": "event"})
    assert replaced.get_json()["property_name"] is None and replaced.get_json()["name"] == "Signup"
    assert_error(client.put(path, headers=auth, json={"name": "Reached checkout", "event_name": "x"}), 409)

    cases = [
        ({"name": "g"}, "path_pattern"),
        ({"name": "g", "path_pattern": "/a", "event_name": "b"}, "path_pattern"),
        ({"name": "g", "path_pattern": "checkout"}, "path_pattern"),
        ({"name": "g", "path_pattern": "/a b"}, "path_pattern"),
        ({"name": "g", "path_pattern": "/a", "property_name": "p", "property_value": "v"}, "property_name"),
        ({"name": "g", "event_name": "e", "property_name": "p"}, "property_value"),
        ({"name": "g", "event_name": "bad name"}, "event_name"),
        ({"name": "g", "event_name": "e", "kind": "pageview"}, "kind"),
        ({"name": "g", "event_name": "e", "value": -1}, "value"),
        ({"name": "g", "event_name": "e", "value": "10"}, "value"),
        ({"name": "g", "event_name": "e", "value": 1e20}, "value"),
        ({"path_pattern": "/a"}, "name"),
    ]
    for body, field in cases:
        error = assert_error(client.post(base, headers=auth, json=body), 422, "validation_failed")
        assert error["details"]["field"] == field, (body, error)
    assert db.execute("select count(*) from collect.goals").fetchone()[0] == 2
    assert client.delete(path, headers=auth).status_code == 204
    assert_error(client.get(path, headers=auth), 404)
    assert_error(client.get(f"{base}/not-a-uuid", headers=auth), 404)


def test_annotations_crud_and_validation(client, auth, site):
    base = f"/api/v1/sites/{site['id']}/annotations"
    first = client.post(base, headers=auth, json={"date": "2026-03-01", "text": "Spring sale starts"})
    assert first.status_code == 201
    assert first.get_json()["date"] == "2026-03-01"
    client.post(base, headers=auth, json={"date": "2026-05-10", "text": "New checkout"})
    listed = client.get(base, headers=auth).get_json()["annotations"]
    assert [a["text"] for a in listed] == ["Spring sale starts", "New checkout"]
    in_range = client.get(f"{base}?from=2026-04-01&to=2026-12-31", headers=auth).get_json()["annotations"]
    assert [a["text"] for a in in_range] == ["New checkout"]
    assert_error(client.get(f"{base}?from=April", headers=auth), 400, "invalid_parameter")

    path = f"{base}/{first.get_json()['id']}"
    assert client.put(path, headers=auth, json={"date": "2026-03-02", "text": "Moved"}).get_json()["date"] == "2026-03-02"
    for body, field in [({"text": "x"}, "date"), ({"date": "2026-02-30", "text": "x"}, "date"),
                        ({"date": "03/01/2026", "text": "x"}, "date"), ({"date": 20260301, "text": "x"}, "date"),
                        ({"date": "2026-03-01"}, "text"), ({"date": "2026-03-01", "text": ""}, "text"),
                        ({"date": "2026-03-01", "text": "x" * 1001}, "text")]:
        assert assert_error(client.post(base, headers=auth, json=body), 422)["details"]["field"] == field
    assert client.delete(path, headers=auth).status_code == 204
    assert len(client.get(base, headers=auth).get_json()["annotations"]) == 1
