"""The OpenAPI 3.1 description of `/api/v1`, served at `/api/v1/openapi.json`."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, jsonify
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from pipelines.openapi_fragments import merge_fragment
from workbench_app.api.public_views import public, public_operations
from workbench_app.accounts.shapes import (Group, GroupList, NewGroup, NewUser, ProfileChange, SettingsChange, SignIn,
                                           TokenRequest, User, UserAttributes, UserChange, UserList)
from workbench_app.assistant import openapi_paths as assistant_openapi
from workbench_app.content.shapes import (Dashboard, DashboardChange, DashboardList, Folder, FolderAccess, FolderList,
                                          FolderName, Metric, MetricList, Model, ModelChange, ModelList, NewDashboard,
                                          NewFolder, NewMetric, NewModel, NewQuestion, Question, QuestionChange,
                                          QuestionList)
from workbench_app.home import openapi_paths as home_openapi
from workbench_app.openapi_vocabulary import ERROR as _ERROR, ID as _ID, INT as _INT, STAMP as _STAMP, STR as _STR
from workbench_app.openapi_vocabulary import TEXT_NO_NUL as _STRING, model_body, object_of as _object, ref as _ref
from workbench_app.permissions.shapes import CatalogGrants, PreviewStatement, RuleToCheck, TableRule
from workbench_app.printing import openapi_paths as printing_openapi
from workbench_app.request_shapes import NAME_PATTERN
from workbench_app.themes import openapi_paths as themes_openapi
from workbench_app.single_sign_on import openapi_paths as sso_openapi
from workbench_app.sharing import openapi_paths as sharing_openapi
from workbench_app.sharing.shapes import SharedDashboard
from workbench_app.sources.shapes import NewSource, Source, SourceChange, SourceList, SourceProbe, SourceRetest
from workbench_app.statements.shapes import (VARIABLE_TYPES_SCHEMA, BuilderCompile, BuilderRun, NativeSql, SqlAutocomplete,
                                             SqlDownload, SqlRun, SqlToFormat, StatementCancel)
from workbench_app.subscriptions import openapi_paths as subscriptions_openapi

blueprint = Blueprint("openapi", __name__)
# The paths below are relative to it.
SERVER_URL = "/api/v1"

_OBJECT = {"type": "object", "additionalProperties": True}
# Text PostgreSQL can store (no NUL); a name has a visible character too.
_TEXT = {**_STRING, "maxLength": 200}
_NAME = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": NAME_PATTERN}
# gunicorn refuses a request line over its limit before the app sees it, with a page of its own.
_URI_TOO_LONG = {"description": "Request line over 4,094 bytes: refused by the HTTP server before the application "
                                "(an HTML page, not the JSON error)",
                 "content": {"text/html": {"schema": _STRING}}}


def _model_schemas(*models: type[BaseModel], mode: str = "serialization") -> dict[str, Any]:
    """The components of answers (or, `mode="validation"`, of request bodies) declared as models;
    their nested models become components too."""
    _, top = models_json_schema([(model, mode) for model in models], ref_template="#/components/schemas/{model}")
    return {name: _documented(schema) for name, schema in top["$defs"].items()}


def _documented(schema: Any) -> Any:
    """A model's JSON Schema as the document says it: without pydantic's titles (the component's name
    says it), and open to more fields (`extra="forbid"` is for the shapes' test: the print of a shared
    view, for one, answers a dashboard with its `share` too)."""
    if isinstance(schema, list):
        return [_documented(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    # A request field's `default: null` says only that it may be left out: `required` says that already.
    # The names under `properties` are fields, not keywords: a field may be named `title`.
    return {key: ({name: _documented(field) for name, field in value.items()} if key == "properties"
                  else _documented(value)) for key, value in schema.items()
            if key != "title" and not (key == "additionalProperties" and value is False)
            and not (key == "default" and value is None)}


def _body(properties: dict[str, Any], required: tuple[str, ...] = (), *, optional: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    # Required even when every field is optional: a write without a JSON object is a 422.
    # `optional`: the runs (question, card, metric) change nothing and accept no body at all.
    return {"required": not optional, "content": {"application/json": {"schema": schema}}}


def _operation(summary: str, tag: str, *, ok: int = 200, body: dict | None = None, result: dict | None = None,
               params: tuple[str, ...] = (), query: dict[str, dict] | None = None) -> dict:
    responses: dict[str, Any] = {}
    if ok == 204:
        responses["204"] = {"description": "Done"}
    else:
        responses[str(ok)] = {"description": "Success",
                              "content": {"application/json": {"schema": result or _OBJECT}}}
    for status, meaning in (("400", "Invalid input"), ("401", "Missing, unknown or revoked token"),
                            ("403", "Not allowed"), ("404", "Not found"), ("409", "Conflict"),
                            ("503", "Database or source unavailable")):
        responses[status] = {"description": meaning, "content": {"application/json": {"schema": _ERROR}}}
    operation: dict[str, Any] = {"summary": summary, "tags": [tag], "responses": responses,
                                 "operationId": summary.lower().replace(" ", "_").replace("'", "")}
    parameters = [{"name": name, "in": "path", "required": True, "schema": _ID} for name in params]
    for name, schema in (query or {}).items():
        parameters.append({"name": name, "in": "query", "required": False, "schema": schema})
    if parameters:
        operation["parameters"] = parameters
    if body is not None:
        operation["requestBody"] = body
        responses["422"] = {"description": "The body is missing or not a JSON object; nothing changed",
                            "content": {"application/json": {"schema": _ERROR}}}
    return operation


_VARIABLE_TYPES = VARIABLE_TYPES_SCHEMA
_CSV = {"description": "CSV (RFC 4180, UTF-8): a header row then the rows; text cells that begin with =, +, -, @ "
                       "are prefixed with an apostrophe. `X-Truncated: true` when the export row bound cut it.",
        "content": {"text/csv": {"schema": {"type": "string"}}}}
_PAGE = {"limit": {"type": "integer", "minimum": 1, "maximum": 1000}, "before": _ID}


def _also(operation: dict[str, Any], *refusals: tuple[str, str]) -> dict[str, Any]:
    """An operation with refusals of its own beside the common ones."""
    for status, meaning in refusals:
        operation["responses"][status] = {"description": meaning,
                                          "content": {"application/json": {"schema": _ERROR}}}
    return operation


def _person_only(operation: dict[str, Any]) -> dict[str, Any]:
    """A change of an account that an embedding secret's own account refuses (it changes with its secret)."""
    return _also(operation, ("403", "forbidden, or embedding_account: the account is an embedding secret's; "
                                    "change or revoke the secret instead"))


def _people(operation: dict[str, Any]) -> dict[str, Any]:
    operation["description"] = "People only: the accounts that embedding secrets run as are not listed."
    return operation


def _setup(operation: dict[str, Any]) -> dict[str, Any]:
    """The first-run setup's own refusals: 403 for a wrong or expired link, 410 once it is done."""
    return _also(operation, ("403", "setup_link_invalid: the link is wrong or has expired"),
                 ("410", "setup_done: an administrator exists; the setup is over"))


_SLOWED_DOWN = ("429", "too_many_attempts: repeated failed sign-ins for this account or address; Retry-After "
                       "says how many seconds to wait")
_JSON_ONLY = ("415", "unsupported_media_type: the body must be application/json")
_LINK_REFUSED = ("403", "password_link_invalid: the link is wrong, used or expired, or its account is deactivated")


_NULL_STR = {"type": ["string", "null"]}
_NULL_INT = {"type": ["integer", "null"]}


_COLUMN_REF = {"column": _STR, "from": {"enum": ["base", "join"], "default": "base"}}
_UNIT = {"enum": ["hour", "day", "week", "month", "quarter", "year"]}
_TABLE_REF = _object({"catalog": _STR, "schema": _STR, "table": _STR})
_RESULT_SCHEMAS: dict[str, Any] = {
    "Result": _object({
        "columns": {"type": "array", "items": _object({"name": _STR, "type": _STR})},
        "rows": {"type": "array", "items": {"type": "array"}},
        "row_count": _INT, "truncated": {"type": "boolean"}, "elapsed_ms": {"type": "number"},
        "question_id": _INT, "card_id": _INT,
        "cached": {"type": "boolean", "description": "Dashboard cards: whether the answer came from the result cache."},
        "cached_at": _STAMP}, optional=("question_id", "card_id", "cached", "cached_at")),
    "ResultColumns": _object({"columns": {"type": "array", "items": _object({"name": _STR, "type": _STR})}}),
    "FilterValues": _object({"values": {"type": "array", "items": {"type": ["string", "number", "boolean"]}},
                             "truncated": {"type": "boolean", "description": "More values than shown: search."}}),
    "DashboardCacheCounts": _object({"dashboards": {"type": "array", "items": _object({
        "dashboard_id": _INT, "name": _STR, "cache_ttl_seconds": _INT, "warm_up": {"type": "boolean"},
        "hits": _INT, "misses": _INT, "entries": _INT, "hit_ratio": {"type": ["number", "null"]}})}}),
    "TableColumn": _object({"name": _STR, "type": _STR, "masked": {"type": "boolean"}, "description": _NULL_STR}),
    "TableFreshness": _object({
        "source": {"enum": ["lake", "lake+postgres", "postgres"],
                   "description": "Where the table is read from: the lake's files, the lake and PostgreSQL for "
                                  "the days after postgres_from, or PostgreSQL."},
        "refreshed_at": {**_STR, "description": "When the lake's copy was last refreshed (ISO 8601, UTC)."},
        "newest_day": {**_STR, "description": "The newest day the lake holds (YYYY-MM-DD)."},
        "postgres_from": {**_STR, "description": "From this day on, rows come from PostgreSQL."},
        "warning": {"enum": ["not_in_lake", "older_shape", "unreadable"],
                    "description": "Why a table the lake should hold is read from PostgreSQL."}},
        optional=("refreshed_at", "newest_day", "postgres_from", "warning")),
    "Table": _object({"catalog": _STR, "schema": _STR, "table": _STR, "description": _NULL_STR,
                      "columns": {"type": "array", "items": _ref("TableColumn")},
                      "matched": {"enum": ["table", "columns"]}, "freshness": _ref("TableFreshness")},
                     optional=("columns", "matched", "freshness")),
    "TableList": _object({"tables": {"type": "array", "items": _ref("Table")}}),
    "DatasourceList": _object({"datasources": {"type": "array", "items": _object({"name": _STR, "tables": _INT})}}),
    "HistoryEntry": _object({
        "query_id": _INT, "user_id": _NULL_INT, "user_email": _NULL_STR,
        "origin": {"enum": ["ui", "api", "tool_server", "embed", "assistant"]}, "sql_text": _STR,
        "question_id": _NULL_INT, "started_at": _STAMP, "duration_ms": {"type": ["number", "null"]},
        "row_count": _NULL_INT, "status": {"enum": ["ok", "refused", "failed", "cancelled"]}, "error_code": _NULL_STR}),
    "HistoryList": _object({"queries": {"type": "array", "items": _ref("HistoryEntry")}}),
    "AuditEntry": _object({"entry_id": _INT, "at": _STAMP, "actor_id": _NULL_INT, "actor": _NULL_STR,
                           "action": _STR, "target": _NULL_STR, "details": {}}),
    "AuditList": _object({"entries": {"type": "array", "items": _ref("AuditEntry")}}),
    "Notice": _object({"code": _STR, "message": _STR, "details": _OBJECT}),
    "RuleCheck": _object({
        "valid": {"type": "boolean", "description": "false: the rule would grant nothing (see problems)."},
        "columns": {"type": "array", "items": _STR},
        "problems": {"type": "array", "items": _ref("Notice")},
        "warnings": {"type": "array", "description": "quoted_placeholder: a {{user.<attribute>}} inside quotes "
                                                     "compares with the literal text and matches nothing.",
                     "items": _ref("Notice")}}),
    "Preview": _object({
        "result": {"oneOf": [_ref("Result"), {"type": "null"}]},
        "refusal": {"oneOf": [_ref("Notice"), {"type": "null"}]},
        "decisions": {"type": "array", "items": _object({"table": _STR, "grants": {"type": "array", "items": _object({
            "group": _STR, "kind": {"enum": ["table_rule", "catalog"]}, "access": {"type": "boolean"},
            "row_filter": _NULL_STR, "hidden_columns": {"type": "array", "items": _STR},
            "masked_columns": {"type": "object", "additionalProperties": _STR}})}})}}),
    "Settings": _object({
        "default_locale": {"enum": ["en", "fr", "es"], "description": "The language of accounts created without one."},
        "sign_in_methods": _object({"password": {
            "type": "boolean", "description": "False: only the break-glass administrator signs in with a password."},
            "oidc": {"type": "boolean", "description": "Single sign-on (OpenID Connect) is configured (GET /settings/sso)."}}),
        **sharing_openapi.SETTINGS_FIELDS}),
    "Token": _object({"token_id": _INT, "user_id": _INT, "name": _STR, "created_at": _STAMP,
                      "last_used_at": {"type": ["string", "null"], "format": "date-time"},
                      "revoked_at": {"type": ["string", "null"], "format": "date-time"},
                      "state": {"enum": ["active", "revoked"]},
                      "owner_email": {"type": ["string", "null"], "description": "GET /tokens?all=true only."}},
                     optional=("owner_email",)),
    "TokenList": _object({"tokens": {"type": "array", "items": _ref("Token")}}),
    "PasswordLink": _object({
        "path": {"type": "string", "description": "The link to give the person: /set-password#<token>."},
        "token": _STR, "purpose": {"enum": ["invite", "reset"]}, "expires_at": _STAMP}),
    "ConnectionTest": _object({
        "ok": {"type": "boolean"},
        "tables": {"type": "integer", "description": "Tables (or databases, files) the source shows."},
        "error": {"type": "object", "required": ["code", "message", "details"],
                  "description": "Why the source cannot be reached; details.reason is one of unreachable, "
                                 "authentication_failed, database_not_found, path_not_found, unreadable, failed.",
                  "properties": {"code": _STR, "message": _STR, "details": _object({"reason": {"enum": [
                      "unreachable", "authentication_failed", "database_not_found", "path_not_found",
                      "unreadable", "failed"]}})}}}, optional=("tables", "error")),
    "Suggestions": _object({"suggestions": {"type": "array", "items": _object(
        {"label": _STR, "kind": _STR, "detail": _NULL_STR})}}),
    "FormattedSql": _object({"sql": _STR}),
    "Cancelling": _object({"statement_id": _STR}),
    "CompiledBuilder": _object({
        "sql": {"type": "string", "description": "Runnable: the values written as SQL literals, formatted."},
        "template": {"type": "string", "description": "The same statement with `{{variables}}`."},
        "variable_types": _VARIABLE_TYPES, "variables": _OBJECT}),
    "BuilderDefinition": {
        "type": "object", "required": ["table"],
        "description": "A question builder definition (see workbench_app/content/builder.py).",
        "properties": {
            "table": _TABLE_REF,
            "join": _object({"table": _TABLE_REF, "kind": {"enum": ["inner", "left"], "default": "inner"},
                             "on": {"type": "array", "minItems": 1, "maxItems": 10,
                                    "items": _object({"left": _STR, "right": _STR})}}, optional=("kind",)),
            "filters": {"type": "array", "maxItems": 50, "items": {
                "type": "object", "required": ["column", "operator"], "properties": {
                    **_COLUMN_REF, "operator": {"enum": [
                        "=", "!=", "<", "<=", ">", ">=", "is null", "is not null", "is empty", "is not empty",
                        "contains", "starts with", "in", "between", "relative"]},
                    "value": {"description": "A value; a list for in (non-empty) and between (two); "
                                             "{last, unit} or {current} for relative."}}}},
            "breakouts": {"type": "array", "maxItems": 20, "items": {"oneOf": [
                _STR, {"type": "object", "required": ["column"], "properties": {**_COLUMN_REF, "bucket": _UNIT}}]}},
            "aggregations": {"type": "array", "maxItems": 20, "items": {
                "type": "object", "required": ["function"], "properties": {
                    **_COLUMN_REF, "function": {"enum": ["count", "count_distinct", "sum", "avg", "min", "max"]}}}},
            "order_by": {"type": "array", "maxItems": 20, "items": {"type": "object", "properties": {
                **_COLUMN_REF, "alias": _STR, "direction": {"enum": ["asc", "desc"]}}}},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100_000}}},
}


def _csv(operation: dict[str, Any]) -> dict[str, Any]:
    operation["responses"]["200"] = _CSV
    return operation


def _paths() -> dict[str, Any]:
    op = _operation
    return {
        "/openapi.json": {"get": op("Get the API description", "meta")},
        "/auth/token": {"post": _also(op("Sign in for a token", "accounts", ok=201,
                                         result=_ref("NewToken"),
                                         body=model_body(SignIn)), _SLOWED_DOWN)},
        "/session": {
            "post": _also(op("Sign in to the web application", "accounts", ok=201,
                             result=_ref("Session"), body=_body({"email": _STRING, "password": _STRING},
                                                                ("email", "password"))), _SLOWED_DOWN, _JSON_ONLY),
            "get": op("Get the web session", "accounts", result=_ref("Session")),
            "delete": op("Sign out of the web application", "accounts", ok=204)},
        "/setup": {
            "get": _setup(op("Check the setup link", "accounts", result=_ref("SetupState"),
                             query={"token": {"type": "string"}})),
            "post": _also(_setup(op("Create the first administrator", "accounts", ok=201,
                                    result=_ref("Session"), body=_body(
                                        {"token": _STRING, "email": _STRING,
                                         "password": {**_STRING, "minLength": 10}, "display_name": _TEXT,
                                         "locale": {"enum": ["en", "fr", "es"]}},
                                        ("token", "email", "password", "locale")))), _JSON_ONLY)},
        "/me": {"get": op("Get the caller", "accounts", result=_ref("User")),
                "patch": op("Update my profile", "accounts", result=_ref("User"), body=model_body(ProfileChange))},
        "/users": {"get": _people(op("List users", "accounts", result=_ref("UserList"))),
                   "post": op("Create a user", "accounts", ok=201, result=_ref("User"), body=model_body(NewUser))},
        "/users/{user_id}": {"get": op("Get a user", "accounts", params=("user_id",), result=_ref("User")),
                             "patch": _person_only(op("Update a user", "accounts", params=("user_id",),
                                                      body=model_body(UserChange)))},
        "/users/{user_id}/password-link": {"post": _person_only(op(
            "Issue a password link", "accounts", ok=201, params=("user_id",), result=_ref("PasswordLink"),
            body=_body({"purpose": {"enum": ["invite", "reset"], "description": "reset when left out"}})))},
        "/password-link/check": {"post": _also(op(
            "Check a password link", "accounts", result=_object({"email": _STR, "purpose": {
                "enum": ["invite", "reset"]}}), body=_body({"token": _STRING}, ("token",))), _LINK_REFUSED, _JSON_ONLY)},
        "/password-link": {"post": _also(op(
            "Set a password with a link", "accounts", ok=201, result=_ref("Session"),
            body=_body({"token": _STRING, "password": {**_STRING, "minLength": 10}}, ("token", "password"))),
            _LINK_REFUSED, _JSON_ONLY)},
        "/users/{user_id}/attributes": {"put": _person_only(op(
            "Set a user's attributes", "accounts", params=("user_id",),
            body=model_body(UserAttributes)))},
        "/tokens": {"get": op("List my tokens", "tokens", result=_ref("TokenList"), query={"all": {
                        "type": "boolean", "description": "Administrators: everyone's tokens, with owner_email."}}),
                    "post": op("Create a token", "tokens", ok=201, result=_ref("NewToken"), body=model_body(TokenRequest))},
        "/settings": {"get": op("Get the settings", "settings", result=_ref("Settings")),
                      "patch": op("Update the settings", "settings", result=_ref("Settings"),
                                  body=model_body(SettingsChange))},
        "/tokens/{token_id}": {"delete": op("Revoke a token", "tokens", params=("token_id",))},
        "/groups": {"get": op("List groups", "permissions", result=_ref("GroupList")),
                    "post": op("Create a group", "permissions", ok=201, result=_ref("Group"),
                               body=model_body(NewGroup))},
        "/groups/{group_id}": {"get": op("Get a group", "permissions", params=("group_id",), result=_ref("Group")),
                               "delete": op("Delete a group", "permissions", ok=204, params=("group_id",))},
        "/groups/{group_id}/members/{user_id}": {
            "put": _person_only(op("Add a member", "permissions", params=("group_id", "user_id"), result=_ref("Group"))),
            "delete": _person_only(op("Remove a member", "permissions", params=("group_id", "user_id"),
                                      result=_ref("Group")))},
        "/groups/{group_id}/permissions": {"get": op("Get a group's permissions", "permissions", params=("group_id",))},
        "/groups/{group_id}/catalogs": {"put": op("Set a group's catalogs", "permissions", params=("group_id",),
                                                  body=model_body(CatalogGrants))},
        "/groups/{group_id}/rules": {"post": op("Set a table rule", "permissions", ok=201, params=("group_id",),
                                                body=model_body(TableRule))},
        "/rules/check": {"post": op("Check a table rule", "permissions", result=_ref("RuleCheck"),
                                    body=model_body(RuleToCheck))},
        "/users/{user_id}/preview": {"post": op("View as a person", "permissions", params=("user_id",),
                                                result=_ref("Preview"), body=model_body(PreviewStatement))},
        "/groups/{group_id}/rules/{rule_id}": {"delete": op("Delete a table rule", "permissions", ok=204,
                                                            params=("group_id", "rule_id"))},
        "/sources": {"get": op("List sources", "sources", result=_ref("SourceList")),
                     "post": op("Connect a source", "sources", ok=201, result=_ref("Source"),
                                body=model_body(NewSource))},
        "/sources/refresh": {"post": op("Refresh sources", "sources")},
        "/sources/test": {"post": op("Test a source before saving", "sources", result=_ref("ConnectionTest"),
                                     body=model_body(SourceProbe))},
        "/sources/{source_id}/test": {"post": op(
            "Test a saved source", "sources", params=("source_id",), result=_ref("ConnectionTest"),
            body=model_body(SourceRetest, required=False))},
        "/sources/{source_id}": {"get": op("Get a source", "sources", params=("source_id",), result=_ref("Source")),
                                 "patch": op("Update a source", "sources", params=("source_id",),
                                             result=_ref("Source"), body=model_body(SourceChange)),
                                 "delete": op("Remove a source", "sources", ok=204, params=("source_id",))},
        "/sql": {"post": op("Run SQL", "sql", body=model_body(SqlRun), result=_ref("Result"))},
        "/sql/csv": {"post": _csv(op("Download SQL as CSV", "sql", body=model_body(SqlDownload)))},
        "/sql/cancel": {"post": op(
            "Cancel a running statement", "sql", ok=202, result=_ref("Cancelling"),
            body=model_body(StatementCancel))},
        "/builder/run": {"post": op("Run a builder definition", "builder", body=model_body(BuilderRun), result=_ref("Result"))},
        "/builder/sql": {"post": op("Compile a builder definition to SQL", "builder", result=_ref("CompiledBuilder"),
                                    body=model_body(BuilderCompile))},
        "/sql/native": {"post": op("Run native SQL", "sql", result=_ref("Result"),
                                           body=model_body(NativeSql))},
        "/sql/format": {"post": op("Format SQL", "sql", result=_ref("FormattedSql"),
                                        body=model_body(SqlToFormat))},
        "/sql/autocomplete": {"post": op("Autocomplete SQL", "sql", result=_ref("Suggestions"),
                                                body=model_body(SqlAutocomplete))},
        "/datasources": {"get": op("List datasources", "schema", result=_ref("DatasourceList"))},
        "/schema": {"get": op("Browse the schema", "schema", result=_ref("TableList"), query={"catalog": _TEXT, "search": _TEXT})},
        "/schema/tables/{name}": {"get": {**op("Describe a table", "schema", result=_ref("Table")), "parameters": [
            {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 400}}]}},
        "/folders": {"get": op("List folders", "folders", result=_ref("FolderList")),
                     "post": op("Create a folder", "folders", ok=201, result=_ref("Folder"),
                                body=model_body(NewFolder))},
        "/folders/{folder_id}": {"get": op("Get a folder", "folders", params=("folder_id",), result=_ref("Folder")),
                                 "patch": op("Rename a folder", "folders", params=("folder_id",), result=_ref("Folder"),
                                             body=model_body(FolderName)),
                                 "delete": op("Delete a folder", "folders", ok=204, params=("folder_id",))},
        "/folders/{folder_id}/access/{group_id}": {"put": op("Share a folder", "folders",
                                                             params=("folder_id", "group_id"),
                                                             body=model_body(FolderAccess))},
        "/questions": {"get": op("List questions", "questions", result=_ref("QuestionList"), query={"folder_id": _ID, "search": _TEXT}),
                       "post": op("Create a question", "questions", ok=201, result=_ref("Question"),
                                  body=model_body(NewQuestion))},
        "/questions/{question_id}": {"get": op("Get a question", "questions", params=("question_id",),
                                               result=_ref("Question")),
                                     "patch": op("Update a question", "questions", params=("question_id",),
                                                 result=_ref("Question"),
                                                 body=model_body(QuestionChange)),
                                     "delete": op("Delete a question", "questions", ok=204, params=("question_id",))},
        "/questions/{question_id}/run": {"post": op("Run a question", "questions", params=("question_id",),
                                                    result=_ref("Result"),
                                                    body=_body({"variables": _OBJECT,
                                                                "row_limit": {"type": "integer", "minimum": 1}},
                                                               optional=True))},
        "/questions/{question_id}/columns": {"get": op(
            "List the columns of a question's result", "questions", params=("question_id",),
            result=_ref("ResultColumns"))},
        "/questions/{question_id}/csv": {"post": _csv(op(
            "Download a question as CSV", "questions", params=("question_id",),
            body=_body({"variables": _OBJECT, "row_limit": {"type": "integer", "minimum": 1}})))},
        "/models": {"get": op("List models", "models", result=_ref("ModelList")),
                    "post": op("Create a model", "models", ok=201, result=_ref("Model"), body=model_body(NewModel))},
        "/models/{model_id}": {"get": op("Get a model", "models", params=("model_id",), result=_ref("Model")),
                               "patch": op("Update a model", "models", params=("model_id",), result=_ref("Model"),
                                           body=model_body(ModelChange)),
                               "delete": op("Delete a model", "models", ok=204, params=("model_id",))},
        "/metrics": {"get": op("List metrics", "models", result=_ref("MetricList")),
                     "post": op("Create a metric", "models", ok=201, result=_ref("Metric"), body=model_body(NewMetric))},
        "/metrics/{metric_id}": {"get": op("Get a metric", "models", params=("metric_id",), result=_ref("Metric")),
                                 "delete": op("Delete a metric", "models", ok=204, params=("metric_id",))},
        "/metrics/{metric_id}/query": {"post": op("Query a metric", "models", params=("metric_id",),
                                                  result=_ref("Result"), body=_body(
                                                      {"dimensions": {"type": "array", "items": _STRING},
                                                       "row_limit": {"type": "integer", "minimum": 1}}, optional=True))},
        "/dashboards": {"get": op("List dashboards", "dashboards", result=_ref("DashboardList")),
                        "post": op("Create a dashboard", "dashboards", ok=201, body=model_body(NewDashboard),
                                   result=_ref("Dashboard"))},
        "/dashboard-cache": {"get": _also(op("Dashboard cache counts (administrators)", "dashboards",
                                              result=_ref("DashboardCacheCounts")),
                                           ("403", "forbidden: administrators only"))},
        "/dashboards/{dashboard_id}": {"get": op("Get a dashboard", "dashboards", params=("dashboard_id",),
                                                 result=_ref("Dashboard")),
                                       "put": op("Update a dashboard", "dashboards", params=("dashboard_id",),
                                                 body=model_body(DashboardChange), result=_ref("Dashboard")),
                                       "delete": op("Delete a dashboard", "dashboards", ok=204,
                                                    params=("dashboard_id",))},
        "/dashboards/{dashboard_id}/cards/{card_id}/run": {"post": op(
            "Run a dashboard card", "dashboards", params=("dashboard_id", "card_id"), result=_ref("Result"),
            body=_body({"filters": _OBJECT, "row_limit": {"type": "integer", "minimum": 1}}, optional=True))},
        "/dashboards/{dashboard_id}/filters/{filter_id}/values": {"get": op(
            "A one-of filter's values, read under the caller's rights (at most 200)", "dashboards",
            params=("dashboard_id", "filter_id"), result=_ref("FilterValues"),
            query={"search": {**_TEXT, "description": "Values containing this (case-insensitive)."}})},
        "/history": {"get": op("List query history", "records", result=_ref("HistoryList"), query={
            **_PAGE, "origin": {"enum": ["ui", "api", "tool_server", "embed", "assistant"]},
            "all": {"type": "boolean"}})},
        "/audit": {"get": op("List the audit log", "records", result=_ref("AuditList"), query={
            **_PAGE, "action": {**_TEXT, "description": "Actions starting with this (`sign_in`, `token.created`)."},
            "actor": {**_TEXT, "description": "Entries whose actor contains this (case-insensitive)."},
            "since": {"type": "string", "format": "date", "description": "From this UTC day."},
            "until": {"type": "string", "format": "date", "description": "Up to this UTC day, included."}})},
    }


def _area_fragments() -> list[tuple[str, dict[str, Any]]]:
    """Each area's part of the document (its `openapi_paths.py`, built with the document's own
    helpers), and the components generated from the answer and request models."""
    op = _operation
    return [
        ("assistant", {"paths": assistant_openapi.paths(op, _also), "components": {"schemas": {
            **assistant_openapi.SCHEMAS, **_model_schemas(*assistant_openapi.REQUESTS, mode="validation")}}}),
        ("themes", {"paths": themes_openapi.paths(op, _also), "components": {"schemas": {
            **themes_openapi.SCHEMAS, **_model_schemas(*themes_openapi.REQUESTS, mode="validation")}}}),
        ("printing", {"paths": printing_openapi.paths(op, _also)}),
        ("single_sign_on", {"paths": sso_openapi.paths(op, _also, _body), "components": {"schemas": sso_openapi.SCHEMAS}}),
        ("sharing", {"paths": sharing_openapi.paths(op, _also), "components": {"schemas": {
            **sharing_openapi.SCHEMAS, **_model_schemas(*sharing_openapi.REQUESTS, mode="validation")}}}),
        ("home", {"paths": home_openapi.paths(op, _also), "components": {"schemas": home_openapi.SCHEMAS}}),
        ("subscriptions", {"paths": subscriptions_openapi.paths(op, _also), "components": {"schemas": {
            **_model_schemas(*subscriptions_openapi.ANSWERS),
            **_model_schemas(*subscriptions_openapi.REQUESTS, mode="validation")}}}),
        ("answer models", {"components": {"schemas": _model_schemas(
            Dashboard, DashboardList, SharedDashboard, Model, ModelList, Metric, MetricList, Group, GroupList,
            Question, QuestionList, Folder, FolderList, Source, SourceList, User, UserList)}}),
        ("request models", {"components": {"schemas": _model_schemas(
            NewDashboard, DashboardChange, NewModel, ModelChange, NewMetric, NewGroup, NewQuestion, QuestionChange,
            NewFolder, FolderName, FolderAccess, SqlRun, SqlDownload, StatementCancel, NativeSql, SqlToFormat,
            SqlAutocomplete, BuilderCompile, BuilderRun, NewSource, SourceChange, SourceProbe, SourceRetest,
            CatalogGrants, TableRule, RuleToCheck, PreviewStatement, SignIn, ProfileChange, NewUser, UserChange,
            UserAttributes, TokenRequest, SettingsChange, mode="validation")}}),
    ]


def _with_uri_too_long(paths: dict[str, Any]) -> dict[str, Any]:
    """Every operation may get the HTTP server's 414, whichever module described it."""
    for operations in paths.values():
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:  # not a path-level list
                operation["responses"].setdefault("414", _URI_TOO_LONG)
    return paths


def _public_without_security(paths: dict[str, Any], app: Flask) -> dict[str, Any]:
    """`security: []` on the operations of the views marked public (public_views.py), and on no other."""
    for path, method in public_operations(app.url_map.iter_rules(), app.view_functions, SERVER_URL):
        paths[path][method]["security"] = []
    return paths


def document(app: Flask) -> dict[str, Any]:
    """The document of the API registered on `app` (which views are public is read from it): its
    own paths and components, then each area's, merged by the rule the collector's document follows
    too (a path or component described twice is an error)."""
    merged = _own_document()
    for source, fragment in _area_fragments():
        merge_fragment(merged, fragment, source)
    _public_without_security(_with_uri_too_long(merged["paths"]), app)
    return merged


def _own_document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Audience analytics workbench API", "version": "1.0.0",
                 "description": "Queries, saved content, sources and permissions of the analysis workbench. "
                                "Every statement runs under the token owner's permissions."},
        "servers": [{"url": SERVER_URL}],
        "security": [{"bearer": []}, {"session": [], "csrf": []}],
        "paths": _paths(),
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer",
                           "description": "An API token (`wbt_...`): POST /auth/token or POST /tokens."},
                "session": {"type": "apiKey", "in": "cookie", "name": "wb_session",
                            "description": "The web application's session cookie (POST /session)."},
                "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token",
                         "description": "With the session cookie, on every POST, PUT, PATCH and DELETE: the "
                                        "`csrf_token` of the session."}},
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {"error": {
                    "type": "object", "required": ["code", "message", "details"],
                    "properties": {"code": _STRING, "message": _STRING, "details": {}}}}},
                "Session": {"type": "object", "required": ["user", "csrf_token"],
                            "properties": {"user": _ref("User"), "csrf_token": _STRING}},
                "SetupState": {"type": "object", "required": ["state"], "properties": {"state": {"enum": ["open"]}}},
                "NewToken": {"type": "object", "required": ["token", "secret"],
                             "properties": {"token": _OBJECT, "secret": _STRING}},
                **_RESULT_SCHEMAS,
                "ColumnMask": {"type": "object", "required": ["kind"], "properties": {
                    "kind": {"enum": ["null", "hash", "partial", "expression"]},
                    "keep_first": {"type": "integer", "minimum": 0}, "keep_last": {"type": "integer", "minimum": 0},
                    "expression": _STRING}},
            },
        },
    }


@public
@blueprint.get("/openapi.json")
def openapi_document():
    return jsonify(document(current_app))
