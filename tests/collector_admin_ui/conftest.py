"""Fixtures of the administration pages' tests: the collector app over the test database, an
administrator account, and a client signed in through the sign-in form."""
from __future__ import annotations

import re

import pytest

from collector_app.app import create_app
from collector_app.database import close_pool
from pipelines.admin import admin_users, sites

PASSWORD = "correct horse battery"


@pytest.fixture
def app(settings):
    app = create_app(settings)
    app.config["TESTING"] = True
    yield app
    close_pool(app)


@pytest.fixture
def admin(db) -> dict:
    return admin_users.create_user(db, email="owner@example.org", password=PASSWORD, actor="tests")


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


class Browser:
    """A Flask test client that signs in with the form and sends each form's CSRF token."""

    def __init__(self, client):
        self.client = client
        self.csrf = None

    def sign_in(self, email: str = "owner@example.org", password: str = PASSWORD):
        response = self.client.post("/admin/sign-in", data={"email": email, "password": password})
        if response.status_code == 303:
            self.csrf = csrf_of(self.client.get("/admin/sites").get_data(as_text=True))
        return response

    def get(self, path: str, **kwargs):
        return self.client.get(path, **kwargs)

    def post(self, path: str, data=None, **kwargs):
        return self.client.post(path, data={"csrf_token": self.csrf, **(data or {})}, **kwargs)


@pytest.fixture
def browser(app, admin) -> Browser:
    signed_in = Browser(app.test_client())
    assert signed_in.sign_in().status_code == 303
    return signed_in


@pytest.fixture
def site(db) -> dict:
    return sites.create_site(db, {"name": "Shop", "domains": ["shop.example.com"]}, actor="tests")
