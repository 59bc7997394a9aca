"""The two new kinds through the API: federated joins with the warehouse, permissions, clear failures."""
from __future__ import annotations

import http.server
import json
import threading

import pytest

from workbench_app.engine import CatalogSource, EngineError, EngineSettings, GroupPermissions, UserContext
from workbench_app.engine import WorkbenchEngine
from tests.workbench_api.conftest import Api, ok
from tests.workbench_sources.conftest import source_json


@pytest.fixture
def new_sources(admin, couch_people, snowflake_shop):
    docs = ok(admin.post("/sources", {"name": "docs", "kind": "couchdb", "password": "couch-secret",
                                      "options": {"url": couch_people, "databases": ["people"], "sample_size": 50}}),
              201)
    options = {key: snowflake_shop[key] for key in ("account", "user", "database", "host", "port", "protocol")}
    snow = ok(admin.post("/sources", {"name": "snow", "kind": "snowflake", "password": "snow-secret",
                                      "options": {**options, "schema": "SALES", "max_rows": 1000}}), 201)
    return docs, snow


def test_federated_join_of_warehouse_couchdb_and_snowflake(admin, new_sources):
    docs, snow = new_sources
    assert docs["status"] == snow["status"] == "attached", (docs, snow)
    assert docs["has_password"] and snow["has_password"] and "password" not in docs
    result = ok(admin.post("/sql", {"sql": """
        SELECT v.page, p.address.city AS city, o.amount
        FROM page_views v
        JOIN docs.people p ON p.country = v.country
        JOIN snow.orders o ON o.customer_id = p._id
        WHERE o.amount > 50
        ORDER BY o.amount, v.view_id"""}))
    assert result["rows"] == [["/pricing", "Berlin", 75.25], ["/home", "Lyon", 120.5],
                              ["/home", "Boston", 500.0], ["/blog", "Boston", 500.0]]
    # The schema browser shows nested fields as STRUCT columns.
    described = ok(admin.get("/datasources"))["datasources"]
    assert {"docs", "snow", "warehouse"} <= {d["name"] for d in described}


def test_restricted_user_rules_apply_to_both_kinds(admin, analyst, eu_analysts, new_sources):
    for rule in ({"catalog": "docs", "schema": "main", "table": "people", "row_filter": "region = {{user.region}}",
                  "hidden_columns": ["email"], "masked_columns": {"phone": {"kind": "null"}}},
                 {"catalog": "snow", "schema": "sales", "table": "orders", "row_filter": "country IN ('FR', 'DE')",
                  "hidden_columns": ["amount"]}):
        ok(admin.post(f"/groups/{eu_analysts}/rules", rule), 201)
    user = Api(admin.client, analyst[1])
    result = ok(user.post("/sql", {"sql": "SELECT p.name, p.phone, count(o.id) AS orders FROM docs.people p "
                                          "LEFT JOIN snow.orders o ON o.customer_id = p._id "
                                          "GROUP BY ALL ORDER BY p.name"}))
    assert result["rows"] == [["Ann", None, 2], ["Bob", None, 1]]
    for sql in ("SELECT email FROM docs.people", "SELECT sum(amount) FROM snow.orders"):
        refused = user.post("/sql", {"sql": sql})
        assert refused.status_code == 400 and refused.get_json()["error"]["code"] == "column_not_found"
    text = json.dumps(ok(user.post("/sql", {"sql": "SELECT to_json(p) AS j FROM docs.people p"})))
    assert "ann@example.fr" not in text and "Cyd" not in text and "+33" not in text


class _Refusing(http.server.BaseHTTPRequestHandler):
    """A server that refuses every request as CouchDB does without the right password."""

    def do_GET(self):  # noqa: N802 - http.server's naming
        body = b'{"error":"unauthorized","reason":"Name or password is incorrect."}'
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def refusing_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_source_that_cannot_attach_says_why_and_the_others_keep_working(admin, couch_url, refusing_server):
    missing = ok(admin.post("/sources", {"name": "gone", "kind": "couchdb",
                                         "options": {"url": couch_url, "databases": ["no_such_db"]}}), 201)
    assert missing["status"] == "unavailable" and "no such database" in missing["error"]
    refused = ok(admin.post("/sources", {"name": "locked", "kind": "couchdb", "password": "wrong",
                                         "options": {"url": refusing_server, "user": "reader"}}), 201)
    assert refused["status"] == "unavailable" and "authentication failed" in refused["error"]
    assert ok(admin.post("/sql", {"sql": "SELECT count(*) FROM page_views"}))["rows"] == [[5]]


@pytest.mark.parametrize("options, field", [
    ({"url": "ftp://example.org"}, "url"),
    ({"url": "http://user:pw@example.org"}, "url"),
    ({"url": "http://127.0.0.1:5984", "max_rows": 0}, "max_rows"),
    ({"url": "http://127.0.0.1:5984", "sample_size": 10_001}, "sample_size"),
    ({"url": "http://127.0.0.1:5984", "databases": ["Upper"]}, "databases"),
])
def test_bad_couchdb_options_are_refused(admin, options, field):
    refused = admin.post("/sources", {"name": "bad", "kind": "couchdb", "options": options})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == field


def test_snowflake_needs_its_options(admin):
    refused = admin.post("/sources", {"name": "bad", "kind": "snowflake", "options": {"account": "a"}})
    assert refused.status_code == 400 and set(refused.get_json()["error"]["details"]["options"]) == {"user", "database"}


class _Slow(http.server.BaseHTTPRequestHandler):
    """A CouchDB-like server whose reads hang until released (its schema sample answers at once)."""

    release = threading.Event()
    finds = 0

    def _json(self, value):
        body = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802
        self._json(["slow"])

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).finds += 1
        if type(self).finds > 1:
            type(self).release.wait(20)
        self._json({"docs": [{"_id": "a", "n": 1}]})

    def log_message(self, *args):
        pass


def test_a_slow_source_fails_its_statement_and_blocks_no_other(source_files):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    engine = WorkbenchEngine(EngineSettings(mask_salt="s", timeout_seconds=3), [
        CatalogSource("slow", "couchdb", source_json({"url": f"http://127.0.0.1:{server.server_address[1]}"})),
        CatalogSource("warehouse", "duckdb", str(source_files["warehouse"]))])
    user = UserContext("u", (GroupPermissions("all", frozenset({"slow", "warehouse"})),))
    outcome: dict = {}

    def slow_statement():
        try:
            engine.run("SELECT * FROM slow.slow", user)
        except EngineError as error:
            outcome["error"] = error

    thread = threading.Thread(target=slow_statement)
    try:
        thread.start()
        # While the slow source holds its statement, another source's statements run.
        assert engine.run("SELECT count(*) FROM warehouse.analytics.events", user).rows == [(5,)]
        assert thread.is_alive()
        thread.join(20)
        assert outcome["error"].code == "query_timeout" and "slow" in outcome["error"].message
    finally:
        _Slow.release.set()
        engine.close()
        server.shutdown()
