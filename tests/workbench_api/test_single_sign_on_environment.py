"""Single sign-on configured by the environment alone, claims mapping included: a deployment that
sets ANALYTICS_OIDC_* signs people in with their row-filter attributes and mapped groups, through a
real sign-in at the test OpenID provider."""
from __future__ import annotations

from dataclasses import replace

import pytest

from pipelines.settings import Settings, SettingsError
from tests.oidc_provider.servers import CLIENT_ID, CLIENT_SECRET
from tests.workbench_api.conftest import Api, ok
from tests.workbench_api.test_single_sign_on import directory, person, provider, sign_in_by_sso  # noqa: F401

pytestmark = pytest.mark.slow
ENVIRONMENT = {
    "ANALYTICS_OIDC_CLIENT_ID": CLIENT_ID, "ANALYTICS_OIDC_CLIENT_SECRET": CLIENT_SECRET,
    "ANALYTICS_OIDC_SCOPES": "openid email profile groups directory",
    "ANALYTICS_OIDC_ATTRIBUTE_CLAIMS": '{"region": "region", "customer_id": "customer_id"}',
    "ANALYTICS_OIDC_GROUP_MAPPING": '{"fin-team": "Finance"}',
}


@pytest.fixture
def configured_by_environment(workbench_settings, warehouse, directory):  # noqa: F811
    from workbench_app.app import create_app

    read = Settings.from_env({**ENVIRONMENT, "ANALYTICS_OIDC_ISSUER": directory.issuer})
    assert read.oidc_attribute_claims == (("customer_id", "customer_id"), ("region", "region"))
    application = create_app(replace(workbench_settings, **{name: getattr(read, name) for name in (
        "oidc_issuer", "oidc_client_id", "oidc_client_secret", "oidc_scopes", "oidc_attribute_claims",
        "oidc_group_mapping")}))
    application.testing = True
    yield application
    application.wsgi_app.close()
    application.extensions["workbench"].close()


def test_the_environments_mappings_give_attributes_and_groups_at_sign_in(configured_by_environment, workbench_db,
                                                                          admin_token):
    admin = Api(configured_by_environment.test_client(), admin_token)
    ok(admin.post("/groups", {"name": "Finance"}), 201)
    shown = ok(admin.get("/settings/sso"))
    assert shown["attribute_claims"] == {"region": "region", "customer_id": "customer_id"}
    assert shown["group_mapping"] == {"fin-team": "Finance"}

    _, answer = sign_in_by_sso(configured_by_environment)
    assert answer.status_code == 303, answer.headers.get("Location")
    nora = person(workbench_db, "nora@example.org")
    assert nora["attributes"] == {"region": "north", "customer_id": "c-17"}
    assert "Finance" in nora["groups"]

    # An administrator's own mapping replaces the environment's.
    ok(admin.patch("/settings/sso", {"attribute_claims": {"region": "area"}}))
    sign_in_by_sso(configured_by_environment)
    assert person(workbench_db, "nora@example.org")["attributes"]["area"] == "north"


@pytest.mark.parametrize("name, value", [
    ("ANALYTICS_OIDC_ATTRIBUTE_CLAIMS", "region=region"),
    ("ANALYTICS_OIDC_ATTRIBUTE_CLAIMS", '{"region": "not a name"}'),
    ("ANALYTICS_OIDC_GROUP_MAPPING", '["fin-team"]'),
    ("ANALYTICS_OIDC_GROUP_MAPPING", '{"fin-team": 3}'),
])
def test_a_mapping_that_is_not_a_json_object_of_names_is_refused_by_name(name, value):
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})
