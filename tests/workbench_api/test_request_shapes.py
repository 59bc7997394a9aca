"""Request bodies are validated by the models the OpenAPI document's request components come from
(request_shapes.py and each area's shapes.py), and a refusal keeps the error shape, code, field and
translated message of the hand-written checks it replaced."""
from __future__ import annotations

import pytest

from tests.workbench_api.conftest import Api, ok
from workbench_app.accounts.shapes import (Credentials, FirstAdministrator, NewGroup, NewPassword, NewUser,
                                           PasswordLinkRequest, PasswordLinkToken, ProfileChange, SettingsChange, SignIn,
                                           TokenRequest, UserAttributes, UserChange)
from workbench_app.assistant.shapes import AssistantQuestion, ConversationTitle, NewConversation, ProviderChange
from workbench_app.api import api_document
from workbench_app.content.shapes import (CardRun, DashboardChange, FolderAccess, FolderName, MetricQuery, ModelChange,
                                          NewDashboard, NewFolder, NewMetric, NewModel, NewQuestion, QuestionChange,
                                          QuestionDownload, QuestionRun)
from workbench_app.errors import WorkbenchError
from workbench_app.permissions.shapes import CatalogGrants, PreviewStatement, RuleToCheck, TableRule
from workbench_app.request_shapes import validated
from workbench_app.sharing.shapes import CardFilters, EmbeddingSecretRequest, PublicLinkRequest
from workbench_app.single_sign_on.shapes import SingleSignOnChange
from workbench_app.sources.shapes import NewSource, SourceChange, SourceProbe, SourceRetest
from workbench_app.statements.shapes import (BuilderCompile, BuilderRun, NativeSql, SqlAutocomplete, SqlDownload, SqlRun,
                                             SqlToFormat, StatementCancel)
from workbench_app.themes.shapes import NewTheme, ThemeAssignment, ThemeChange

MAX_ID = 2**63 - 1


def _refusal(shape, body) -> tuple[int, str, str, dict]:
    with pytest.raises(WorkbenchError) as caught:
        validated(shape, body)
    return caught.value.status, caught.value.code, caught.value.message, caught.value.details


@pytest.mark.parametrize(("shape", "body", "message", "field"), [
    (NewDashboard, {}, "name is required.", "name"),
    (NewDashboard, {"name": "   "}, "name may not be empty.", "name"),
    (NewDashboard, {"name": None}, "name may not be null.", "name"),
    (NewDashboard, {"name": 5}, "name must be a string.", "name"),
    (NewDashboard, {"name": "x" * 201}, "name must be at most 200 characters.", "name"),
    (NewDashboard, {"name": "a\x00b"}, "name may not contain NUL characters or unpaired surrogates.", "name"),
    (NewDashboard, {"name": "a", "folder_id": 0}, f"folder_id must be a whole number between 1 and {MAX_ID}.",
     "folder_id"),
    (NewDashboard, {"name": "a", "folder_id": "3"}, f"folder_id must be a whole number between 1 and {MAX_ID}.",
     "folder_id"),
    (NewDashboard, {"name": "a", "cache_ttl_seconds": True},
     "cache_ttl_seconds must be a whole number between 0 and 86400.", "cache_ttl_seconds"),
    (DashboardChange, {"auto_refresh_seconds": 5}, "auto_refresh_seconds must be a whole number between 10 and 86400.",
     "auto_refresh_seconds"),
    (DashboardChange, {"warm_up": "yes"}, "warm_up must be true or false.", "warm_up"),
    (DashboardChange, {"cards": {}}, "cards must be a list.", "cards"),
    (DashboardChange, {"description": None}, "description may not be null.", "description"),
    (ModelChange, {"sql": ""}, "sql may not be empty.", "sql"),
    (NewModel, {"name": "m"}, "sql is required.", "sql"),
    (NewMetric, {"model_id": 1, "name": "1st", "aggregation": "sum"},
     "name must be a name made of letters, digits and underscores.", "name"),
    (NewMetric, {"model_id": 1, "name": "m", "aggregation": 3}, "aggregation must be a string.", "aggregation"),
    (NewMetric, {"model_id": 1, "name": "m", "aggregation": "sum", "dimensions": ["a", ""]},
     "dimensions must be a list of non-empty strings.", "dimensions"),
    (NewMetric, {"model_id": 1, "name": "m", "aggregation": "sum", "dimensions": ["a"] * 21},
     "dimensions must be a list of non-empty strings.", "dimensions"),
    (NewGroup, {"name": "g", "description": "d" * 2001}, "description must be at most 2000 characters.", "description"),
    (NewQuestion, {"name": "q", "kind": "chart"}, "kind must be one of sql, builder, analysis.", "kind"),
    (QuestionChange, {"variables": ["since"]}, "variables must be a JSON object.", "variables"),
    (QuestionChange, {"visualization": None}, "visualization may not be null.", "visualization"),
    (QuestionChange, {"sql": "x" * 100_001}, "sql must be at most 100000 characters.", "sql"),
    (NewFolder, {"name": "f", "parent_id": -1}, f"parent_id must be a whole number between 1 and {MAX_ID}.",
     "parent_id"),
    (FolderName, {}, "name is required.", "name"),
    (FolderAccess, {"level": "own"}, "level must be one of view, edit.", "level"),
    (SqlRun, {"sql": "x" * 100_001}, "sql must be at most 100000 characters.", "sql"),
    (SqlRun, {"sql": "SELECT 1", "variable_types": {"a": "money"}}, "variable_types values are text, number, date, list.",
     "variable_types"),
    (SqlRun, {"sql": "SELECT 1", "variables": []}, "variables must be a JSON object.", "variables"),
    (SqlRun, {"sql": "SELECT 1", "row_limit": 1_000_001}, "row_limit must be a whole number between 1 and 1000000.",
     "row_limit"),
    (SqlDownload, {"sql": "SELECT 1", "row_limit": 0}, f"row_limit must be a whole number between 1 and {MAX_ID}.",
     "row_limit"),
    (SqlRun, {"sql": "SELECT 1", "statement_id": "a b"},
     "statement_id must be 1 to 64 letters, digits, hyphens or underscores.", "statement_id"),
    (StatementCancel, {}, "statement_id is required.", "statement_id"),
    (NativeSql, {"catalog": "c" * 64, "sql": "SELECT 1"}, "catalog must be at most 63 characters.", "catalog"),
    (NativeSql, {"catalog": "shop", "sql": " "}, "sql may not be empty.", "sql"),
    (SqlToFormat, {"sql": None}, "sql may not be null.", "sql"),
    (SqlAutocomplete, {"sql": "SELECT", "cursor": 100_001}, "cursor must be a whole number between 0 and 100000.",
     "cursor"),
    (BuilderRun, {"builder": {}, "row_limit": "5"}, "row_limit must be a whole number between 1 and 1000000.",
     "row_limit"),
    (NewSource, {"name": "shop", "kind": "oracle"},
     "kind must be one of postgres, mysql, sqlite, duckdb, files, couchdb, snowflake.", "kind"),
    (NewSource, {"name": "s" * 64, "kind": "postgres"}, "name must be at most 63 characters.", "name"),
    (SourceChange, {"password": "a b"}, "password may not contain spaces, quotes or backslashes.", "password"),
    (SourceChange, {"options": None}, "options may not be null.", "options"),
    (SourceProbe, {}, "kind is required.", "kind"),
    (SourceRetest, {"options": []}, "options must be a JSON object.", "options"),
    (CatalogGrants, {"catalogs": ["c" * 64]}, "catalogs must be a list of non-empty strings.", "catalogs"),
    (TableRule, {"catalog": "c", "table": "t"}, "schema is required.", "schema"),
    (TableRule, {"catalog": "c", "schema": "s", "table": "t", "row_filter": "x" * 4001},
     "row_filter must be at most 4000 characters.", "row_filter"),
    (TableRule, {"catalog": "c", "schema": "s", "table": "t", "access": "no"}, "access must be true or false.", "access"),
    (RuleToCheck, {"catalog": "c", "schema": " ", "table": "t"}, "schema may not be empty.", "schema"),
    (PreviewStatement, {}, "sql is required.", "sql"),
    (SignIn, {"email": "a@b.c"}, "password is required.", "password"),
    (ProfileChange, {"locale": "de"}, "locale must be one of en, fr, es.", "locale"),
    (NewUser, {"email": "e" * 401}, "email must be at most 400 characters.", "email"),
    (UserChange, {"is_active": None}, "is_active may not be null.", "is_active"),
    (UserAttributes, {}, "attributes is required.", "attributes"),
    (TokenRequest, {"name": 3}, "name must be a string.", "name"),
    (SettingsChange, {"public_link_requests_per_minute": 0},
     "public_link_requests_per_minute must be a whole number between 1 and 100000.", "public_link_requests_per_minute"),
    (SettingsChange, {"default_locale": "de"}, "default_locale must be one of en, fr, es.", "default_locale"),
    (PublicLinkRequest, {"allowed_filters": "Country"}, "allowed_filters must be a list of non-empty strings.",
     "allowed_filters"),
    (EmbeddingSecretRequest, {"name": "e"}, "group_id is required.", "group_id"),
    (CardFilters, {"filters": None}, "filters may not be null.", "filters"),
    (NewTheme, {"name": "t" * 101}, "name must be at most 100 characters.", "name"),
    (ThemeChange, {"settings": []}, "settings must be a JSON object.", "settings"),
    (ThemeAssignment, {}, "theme_id is required.", "theme_id"),
    (ProviderChange, {"base_url": "ftp://models"}, "base_url must be an http:// or https:// address.", "base_url"),
    (ProviderChange, {"headers": {"Authorization": "x"}},
     "headers must map up to 20 header names to values (not Authorization or Content-Type).", "headers"),
    (ProviderChange, {"max_rows": 1001}, "max_rows must be a whole number between 1 and 1000.", "max_rows"),
    (NewConversation, {"title": "t" * 201}, "title must be at most 200 characters.", "title"),
    (ConversationTitle, {"title": ""}, "title may not be empty.", "title"),
    (AssistantQuestion, {"content": "c" * 20_001}, "content must be at most 20000 characters.", "content"),
    (QuestionRun, {"row_limit": 1_000_001}, "row_limit must be a whole number between 1 and 1000000.", "row_limit"),
    (QuestionDownload, {"variables": "x"}, "variables must be a JSON object.", "variables"),
    (MetricQuery, {"dimensions": [""]}, "dimensions must be a list of non-empty strings.", "dimensions"),
    (CardRun, {"filters": None}, "filters may not be null.", "filters"),
    (Credentials, {"email": "a@b.c", "password": 5}, "password must be a string.", "password"),
    (FirstAdministrator, {"token": "t", "email": "a@b.c", "password": "p" * 12}, "locale is required.", "locale"),
    (PasswordLinkRequest, {"purpose": "welcome"}, "purpose must be one of invite, reset.", "purpose"),
    (NewPassword, {"token": "t"}, "password is required.", "password"),
    (SingleSignOnChange, {"issuer": "https://id.example.org?x=1"},
     "issuer must be an http:// or https:// address without query or fragment.", "issuer"),
    (SingleSignOnChange, {"groups_claim": "the groups"}, "groups_claim must be a claim name.", "groups_claim"),
    (SingleSignOnChange, {"group_mapping": {"staff": ""}}, "group_mapping must map up to 100 claim names to names.",
     "group_mapping"),
    (SingleSignOnChange, {"create_accounts": None}, "create_accounts may not be null.", "create_accounts"),
])
def test_a_broken_rule_is_refused_in_the_words_of_the_checks_it_replaced(shape, body, message, field):
    status, code, told, details = _refusal(shape, body)
    assert (status, code, told, details["field"]) == (400, "invalid_input", message, field)


def test_the_first_broken_rule_in_field_order_is_told():
    assert _refusal(NewDashboard, {"warm_up": 1, "folder_id": 0})[2] == "name is required."
    assert _refusal(NewDashboard, {"name": "a", "warm_up": 1, "folder_id": 0})[3] == {"field": "folder_id"}


def test_a_choice_names_its_allowed_values():
    status, code, message, details = _refusal(NewMetric, {"model_id": 1, "name": "m", "aggregation": "median"})
    assert message == "aggregation must be one of count, count_distinct, sum, avg, min, max."
    assert details == {"field": "aggregation", "allowed": ["count", "count_distinct", "sum", "avg", "min", "max"]}


def test_a_body_that_is_no_object_is_a_422_and_fields_given_are_kept_apart_from_defaults():
    assert _refusal(DashboardChange, [])[:2] == (422, "invalid_body")
    change = validated(DashboardChange, {"name": "n", "auto_refresh_seconds": None, "folder_id": 3.0, "other": 1})
    assert change.given() == {"name": "n", "folder_id": 3, "auto_refresh_seconds": None}
    assert validated(NewMetric, {"model_id": 2, "name": "m", "aggregation": "sum"}).dimensions == []
    # A builder definition is checked by the builder, which names the part that is wrong; null included.
    assert validated(QuestionChange, {"builder": None}).given() == {"builder": None}
    assert validated(FolderAccess, {"level": None}).level is None


def test_the_document_s_request_components_are_the_models():
    document = api_document()
    schemas = document["components"]["schemas"]
    for path, method, shape in (("/dashboards", "post", NewDashboard), ("/dashboards/{dashboard_id}", "put",
                                                                          DashboardChange),
                                ("/models", "post", NewModel), ("/models/{model_id}", "patch", ModelChange),
                                ("/metrics", "post", NewMetric), ("/groups", "post", NewGroup),
                                ("/questions", "post", NewQuestion), ("/questions/{question_id}", "patch", QuestionChange),
                                ("/folders", "post", NewFolder), ("/folders/{folder_id}", "patch", FolderName),
                                ("/folders/{folder_id}/access/{group_id}", "put", FolderAccess),
                                ("/sql", "post", SqlRun), ("/sql/csv", "post", SqlDownload),
                                ("/sql/cancel", "post", StatementCancel), ("/sql/native", "post", NativeSql),
                                ("/sql/format", "post", SqlToFormat), ("/sql/autocomplete", "post", SqlAutocomplete),
                                ("/builder/sql", "post", BuilderCompile), ("/builder/run", "post", BuilderRun),
                                ("/sources", "post", NewSource), ("/sources/{source_id}", "patch", SourceChange),
                                ("/sources/test", "post", SourceProbe), ("/sources/{source_id}/test", "post", SourceRetest),
                                ("/groups/{group_id}/catalogs", "put", CatalogGrants),
                                ("/groups/{group_id}/rules", "post", TableRule), ("/rules/check", "post", RuleToCheck),
                                ("/users/{user_id}/preview", "post", PreviewStatement),
                                ("/auth/token", "post", SignIn), ("/me", "patch", ProfileChange),
                                ("/users", "post", NewUser), ("/users/{user_id}", "patch", UserChange),
                                ("/users/{user_id}/attributes", "put", UserAttributes), ("/tokens", "post", TokenRequest),
                                ("/settings", "patch", SettingsChange),
                                ("/dashboards/{dashboard_id}/public-links", "post", PublicLinkRequest),
                                ("/embedding-secrets", "post", EmbeddingSecretRequest),
                                ("/public/{link_token}/cards/{card_id}/run", "post", CardFilters),
                                ("/themes", "post", NewTheme), ("/themes/{theme_id}", "put", ThemeChange),
                                ("/folders/{folder_id}/theme", "put", ThemeAssignment),
                                ("/assistant/provider", "put", ProviderChange),
                                ("/assistant/conversations", "post", NewConversation),
                                ("/assistant/conversations/{conversation_id}", "patch", ConversationTitle),
                                ("/assistant/conversations/{conversation_id}/messages", "post", AssistantQuestion),
                                ("/questions/{question_id}/run", "post", QuestionRun),
                                ("/questions/{question_id}/csv", "post", QuestionDownload),
                                ("/metrics/{metric_id}/query", "post", MetricQuery),
                                ("/dashboards/{dashboard_id}/cards/{card_id}/run", "post", CardRun),
                                ("/session", "post", Credentials), ("/setup", "post", FirstAdministrator),
                                ("/users/{user_id}/password-link", "post", PasswordLinkRequest),
                                ("/password-link/check", "post", PasswordLinkToken), ("/password-link", "post", NewPassword),
                                ("/settings/sso", "patch", SingleSignOnChange)):
        body = document["paths"][path][method]["requestBody"]
        assert body["content"]["application/json"]["schema"] == {"$ref": f"#/components/schemas/{shape.__name__}"}
        assert set(schemas[shape.__name__]["properties"]) == {info.alias or name  # `schema`, not `schema_`
                                                              for name, info in shape.model_fields.items()}
    assert schemas["NewDashboard"]["required"] == ["name"]
    assert schemas["NewDashboard"]["properties"]["cache_ttl_seconds"] == {
        "type": "integer", "minimum": 0, "maximum": 86400,
        "description": "How long card results stay cached (300; 0: no cache)."}
    assert schemas["NewMetric"]["properties"]["dimensions"]["maxItems"] == 20
    # The limits the routes hold, stated by the document (they once disagreed).
    assert schemas["SqlRun"]["properties"]["sql"]["maxLength"] == 100_000
    assert schemas["SqlRun"]["properties"]["row_limit"]["maximum"] == 1_000_000
    assert schemas["NativeSql"]["properties"]["catalog"]["maxLength"] == 63
    assert schemas["TableRule"]["properties"]["row_filter"]["anyOf"][0]["maxLength"] == 4000
    assert schemas["SettingsChange"]["properties"]["embed_max_lifetime_seconds"] == {
        "type": "integer", "minimum": 60, "maximum": 604_800}
    # A link's token is checked before the form (a wrong one reveals nothing), but the document requires it.
    assert schemas["NewPassword"]["required"] == ["token", "password"]
    # A missing builder is the builder's refusal ("builder must be a JSON object."), but the document requires it.
    assert schemas["BuilderRun"]["required"] == ["builder"] and validated(BuilderRun, {}).builder is None


def test_the_routes_answer_the_refusal_translated(admin: Api):
    ok(admin.patch("/me", {"locale": "fr"}))
    refused = admin.post("/dashboards", {"name": "a", "auto_refresh_seconds": 5})
    assert refused.status_code == 400
    error = refused.get_json()["error"]
    assert error["code"] == "invalid_input" and error["details"] == {"field": "auto_refresh_seconds"}
    assert "auto_refresh_seconds" in error["message"] and "must be" not in error["message"]
    ok(admin.patch("/me", {"locale": "en"}))
    refused = admin.post("/groups", {"name": ""})
    assert refused.get_json()["error"] == {"code": "invalid_input", "message": "name may not be empty.",
                                           "details": {"field": "name"}}
    model = ok(admin.post("/models", {"name": "Views", "sql": "SELECT 1 AS one;"}), 201)
    assert model["sql"] == "SELECT 1 AS one" and model["description"] == ""
    refused = admin.post("/metrics", {"model_id": model["model_id"], "name": "total", "aggregation": "median"})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "aggregation"
    metric = ok(admin.post("/metrics", {"model_id": model["model_id"], "name": "total", "aggregation": "count"}), 201)
    assert metric["dimensions"] == [] and metric["column"] is None
