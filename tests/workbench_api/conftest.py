"""Fixtures of the workbench API tests: a real workbench database, the app, users and tokens.

Each test gets its own analytics database (tests/conftest.py) and its own workbench database on
the same PostgreSQL server; the warehouse source reads the analytics database as
`analytics_reader`, exactly as in production.
"""
from __future__ import annotations

from dataclasses import dataclass

import psycopg
import pytest

from workbench_app.accounts import api_tokens, users
from workbench_app.accounts.identity import Identity
from workbench_app.app import create_app

ADMIN_EMAIL = "admin@example.org"
ADMIN_PASSWORD = "correct horse battery staple"

PAGE_VIEWS = [
    # view_id, page, country, region, visitor_email, revenue
    (1, "/home", "FR", "EU", "ann@example.fr", 10.5),
    (2, "/pricing", "DE", "EU", "bob@example.de", 20.0),
    (3, "/home", "US", "US", "cyd@example.com", 30.0),
    (4, "/blog", "US", "US", "dan@example.com", 40.0),
    (5, "/home", "ES", "EU", "eve@example.es", 50.0),
]


@pytest.fixture
def warehouse(db):
    """A table outside `analytics` and a documented view over it in `analytics` (the reader's only schema)."""
    db.execute("create schema modeled")
    db.execute("""create table modeled.page_views (view_id integer, page text, country text, region text,
                  visitor_email text, revenue numeric(10, 2))""")
    with db.cursor() as cur:
        cur.executemany("insert into modeled.page_views values (%s, %s, %s, %s, %s, %s)", PAGE_VIEWS)
    db.execute("create view analytics.page_views as select * from modeled.page_views")
    db.execute("comment on view analytics.page_views is 'One row per page view'")
    db.execute("comment on column analytics.page_views.page is 'Path of the page'")
    return db


@pytest.fixture
def app(workbench_settings, warehouse):
    application = create_app(workbench_settings)
    application.testing = True
    yield application
    application.wsgi_app.close()
    application.extensions["workbench"].close()


@dataclass
class Api:
    """A test client that speaks JSON with a bearer token."""

    client: object
    token: str | None = None

    def call(self, method: str, path: str, body=None, token: str | None = None, **kwargs):
        headers = {}
        bearer = token if token is not None else self.token
        if bearer:
            headers["Authorization"] = f"Bearer {bearer}"
        return self.client.open(f"/api/v1{path}", method=method, json=body, headers=headers, **kwargs)

    def get(self, path, **kw):
        return self.call("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.call("POST", path, body if body is not None else {}, **kw)

    def put(self, path, body=None, **kw):
        return self.call("PUT", path, body if body is not None else {}, **kw)

    def patch(self, path, body=None, **kw):
        return self.call("PATCH", path, body if body is not None else {}, **kw)

    def delete(self, path, **kw):
        return self.call("DELETE", path, **kw)


def ok(response, status: int = 200):
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    return response.get_json()


@pytest.fixture
def admin_token(workbench_db) -> str:
    user = users.create_user(workbench_db, None, email=ADMIN_EMAIL, password=ADMIN_PASSWORD, is_admin=True)
    _, secret = api_tokens.create_token(workbench_db, Identity(user["user_id"], user["email"], True), "tests")
    return secret


@pytest.fixture
def admin(app, admin_token) -> Api:
    return Api(app.test_client(), admin_token)


def create_user_with_token(admin_api: Api, email: str, attributes: dict | None = None,
                           groups: tuple[int, ...] = ()) -> tuple[int, str]:
    """A non-administrator with attributes and groups, and an API token of theirs."""
    user = ok(admin_api.post("/users", {"email": email, "password": "a long enough password"}), 201)
    if attributes:
        ok(admin_api.put(f"/users/{user['user_id']}/attributes", {"attributes": attributes}))
    for group_id in groups:
        ok(admin_api.put(f"/groups/{group_id}/members/{user['user_id']}"))
    token = ok(admin_api.post("/auth/token", {"email": email, "password": "a long enough password"}, token=""), 201)
    return user["user_id"], token["secret"]


@pytest.fixture
def eu_analysts(admin) -> int:
    """A group reading EU page views only, visitor_email hidden, country masked by a hash."""
    group = ok(admin.post("/groups", {"name": "EU analysts"}), 201)
    ok(admin.post(f"/groups/{group['group_id']}/rules", {
        "catalog": "warehouse", "schema": "analytics", "table": "page_views",
        "row_filter": "region = {{user.region}}", "hidden_columns": ["visitor_email"],
        "masked_columns": {"country": {"kind": "hash"}}}), 201)
    return group["group_id"]


@pytest.fixture
def analyst(admin, eu_analysts) -> tuple[int, str]:
    """(user id, token) of a restricted user in EU analysts with region EU."""
    return create_user_with_token(admin, "analyst@example.org", {"region": "EU"}, (eu_analysts,))
