"""The answers are exactly the models the OpenAPI document is generated from (each area's shapes.py):
every field the model names, of its type, and no other (the models forbid extra fields), for a
dashboard with every kind of card, tab and filter, a model, a metric, a group, a question, a folder,
a source and an account."""
from __future__ import annotations

import duckdb
from pydantic import BaseModel

from tests.workbench_api.conftest import Api, ok
from workbench_app.accounts.shapes import (Group, GroupList, NewToken, PasswordLink, PasswordLinkFor, Session, Settings,
                                           Token, TokenList, User, UserAttributesSet, UserList)
from workbench_app.content.shapes import (Dashboard, DashboardCacheCounts, DashboardList, FilterValues, Folder, FolderList,
                                          ListedMetric, Metric, MetricList, Model, ModelList, Question, QuestionList,
                                          ResultColumns)
from workbench_app.permissions.shapes import GroupPermissions, RuleCheck, SavedRule
from workbench_app.records.shapes import AuditList, HistoryList
from workbench_app.sharing.shapes import (EmbeddingSecretList, NewEmbeddingSecret, NewPublicLink, PublicLinkList,
                                          SharedDashboard)
from workbench_app.single_sign_on.shapes import SignOnOffer, SingleSignOnSettings
from workbench_app.sources.shapes import ConnectionTest, RefreshedSources, Source, SourceList
from workbench_app.statements.shapes import (Cancelling, CompiledBuilder, DatasourceList, FormattedSql, Preview, Result,
                                             Suggestions, Table, TableList)
from workbench_app.themes.shapes import EffectiveTheme, Theme, ThemeList


def _exactly(model: type[BaseModel], answer: dict) -> BaseModel:
    return model.model_validate(answer)  # a missing, extra or mistyped field, at any depth, raises here


def _full_dashboard(admin: Api) -> dict:
    question = ok(admin.post("/questions", {"name": "Views", "sql": "SELECT page, country, view_id FROM page_views "
                                            "WHERE true [[AND view_id >= {{since}}]]",
                                            "variables": {"since": "number"},
                                            "visualization": {"kind": "bar"}}), 201)
    return ok(admin.post("/dashboards", {
        "name": "Everything", "description": "Each kind of part", "auto_refresh_seconds": 60,
        "tabs": [{"key": "one", "name": "One"}, {"key": "two", "name": "Two"}],
        "cards": [{"key": "q", "tab": "one", "question_id": question["question_id"]},
                  {"key": "t", "tab": "two", "kind": "text", "text": "Notes"},
                  {"key": "h", "tab": "two", "kind": "heading", "text": "Section"}],
        "filters": [{"name": "Since", "type": "number", "default": 2, "links": [{"card": "q", "variable": "since"}]},
                    {"name": "Country", "type": "one_of", "required": True,
                     "values": {"table": "warehouse.analytics.page_views", "column": "country"},
                     "links": [{"card": "q", "column": "country"}]}]}), 201)


def test_a_dashboard_its_list_and_its_shared_view_are_their_models(app, admin):
    created = _exactly(Dashboard, _full_dashboard(admin))
    assert [card.kind for card in created.cards] == ["question", "text", "heading"]
    assert [item.type for item in created.filters] == ["number", "one_of"]
    path = f"/dashboards/{created.dashboard_id}"
    _exactly(Dashboard, ok(admin.get(path)))
    _exactly(Dashboard, ok(admin.put(path, {"name": "Renamed"})))
    listed = _exactly(DashboardList, ok(admin.get("/dashboards")))
    assert created.dashboard_id in [summary.dashboard_id for summary in listed.dashboards]
    ok(admin.patch("/settings", {"public_sharing": True}))
    link = ok(admin.post(f"{path}/public-links", {"allowed_filters": ["Since"]}), 201)
    shared = _exactly(SharedDashboard, ok(Api(app.test_client()).get(f"/public/{link['secret']}")))
    assert [item.settable for item in shared.filters] == [True, False] and shared.share.kind == "public_link"


def test_models_metrics_and_groups_are_their_models(admin, analyst):
    model = _exactly(Model, ok(admin.post("/models", {"name": "Views", "sql": "SELECT page, country FROM page_views"}),
                                201))
    _exactly(Model, ok(admin.patch(f"/models/{model.model_id}", {"description": "Every view"})))
    assert model.model_id in [item.model_id for item in _exactly(ModelList, ok(admin.get("/models"))).models]
    created = {"model_id": model.model_id, "name": "views_by_country", "aggregation": "count",
               "dimensions": ["country"]}
    metric = _exactly(Metric, ok(admin.post("/metrics", created), 201))
    _exactly(Metric, ok(admin.get(f"/metrics/{metric.metric_id}")))
    listed = _exactly(MetricList, ok(admin.get("/metrics"))).metrics
    assert ListedMetric(**{**metric.model_dump(), "model": "Views"}) in listed
    group = _exactly(Group, ok(admin.post("/groups", {"name": "Shapes"}), 201))
    user_id = analyst[0]
    assert _exactly(Group, ok(admin.put(f"/groups/{group.group_id}/members/{user_id}"))).members == [user_id]
    _exactly(Group, ok(admin.get(f"/groups/{group.group_id}")))
    assert group.group_id in [item.group_id for item in _exactly(GroupList, ok(admin.get("/groups"))).groups]


def test_questions_folders_sources_and_users_are_their_models(admin, analyst):
    folder = _exactly(Folder, ok(admin.post("/folders", {"name": "Shapes"}), 201))
    _exactly(Folder, ok(admin.put(
        f"/folders/{folder.folder_id}/access/{ok(admin.post('/groups', {'name': 'Readers'}), 201)['group_id']}",
        {"level": "view"})))
    shared = _exactly(Folder, ok(admin.get(f"/folders/{folder.folder_id}")))
    assert [grant.level for grant in shared.groups] == ["view"] and shared.personal is False
    listed = _exactly(FolderList, ok(admin.get("/folders"))).folders
    assert any(item.mine for item in listed)
    _exactly(Folder, ok(admin.patch(f"/folders/{folder.folder_id}", {"name": "Renamed"})))
    question = _exactly(Question, ok(admin.post("/questions", {"name": "Views", "folder_id": folder.folder_id,
                                                               "sql": "SELECT page FROM page_views"}), 201))
    built = _exactly(Question, ok(admin.post("/questions", {
        "name": "Built", "kind": "builder",
        "builder": {"table": {"catalog": "warehouse", "schema": "analytics", "table": "page_views"}}}), 201))
    assert question.builder is None and built.builder is not None
    _exactly(Question, ok(admin.patch(f"/questions/{question.question_id}", {"description": "Pages"})))
    _exactly(Question, ok(admin.get(f"/questions/{question.question_id}")))
    assert built.question_id in [item.question_id for item in _exactly(QuestionList, ok(admin.get("/questions"))).questions]
    sources = _exactly(SourceList, ok(admin.get("/sources"))).sources
    assert sources and _exactly(Source, ok(admin.get(f"/sources/{sources[0].source_id}"))).status == "attached"
    me = _exactly(User, ok(admin.get("/me")))
    assert me.attributes == {} and me.groups == []
    person = _exactly(User, ok(admin.get(f"/users/{analyst[0]}")))
    assert person.attributes == {"region": "EU"} and len(person.groups) == 1
    created = _exactly(User, ok(admin.post("/users", {"email": "shape@example.org"}), 201))
    assert created.attributes is None  # a new account's answer has neither attributes nor groups
    _exactly(User, ok(admin.patch(f"/users/{created.user_id}", {"display_name": "Shape"})))
    assert created.user_id in [item.user_id for item in _exactly(UserList, ok(admin.get("/users"))).users]


def test_the_history_and_the_audit_log_are_their_models(admin):
    ok(admin.post("/sql", {"sql": "SELECT 1 AS one"}))
    admin.post("/sql", {"sql": "SELECT * FROM nowhere"})
    statuses = {entry.status for entry in _exactly(HistoryList, ok(admin.get("/history?all=true"))).queries}
    assert {"ok", "refused"} <= statuses  # an unknown table is refused before it runs
    ok(admin.post("/groups", {"name": "Audited"}), 201)
    entries = _exactly(AuditList, ok(admin.get("/audit"))).entries
    assert any(entry.action == "permissions.group_created" for entry in entries)


def test_permissions_and_view_as_are_their_models(admin, analyst, eu_analysts):
    permissions = _exactly(GroupPermissions, ok(admin.get(f"/groups/{eu_analysts}/permissions")))
    assert permissions.table_rules[0].masked_columns["country"].kind == "hash"
    _exactly(GroupPermissions, ok(admin.put(f"/groups/{eu_analysts}/catalogs", {"catalogs": ["warehouse"]})))
    saved = _exactly(SavedRule, ok(admin.post(f"/groups/{eu_analysts}/rules", {
        "catalog": "warehouse", "schema": "analytics", "table": "page_views", "row_filter": "region = '{{user.region}}'",
        "masked_columns": {"page": {"kind": "partial", "keep_first": 1, "keep_last": 0}, "nothere": {"kind": "null"}}}),
        201))
    assert saved.warnings[0].code == "quoted_placeholder" and saved.problems
    checked = _exactly(RuleCheck, ok(admin.post("/rules/check", {"catalog": "warehouse", "schema": "analytics",
                                                                 "table": "page_views", "row_filter": "nope = 1"})))
    assert not checked.valid and checked.problems[0].code == "column_not_found"
    shown = _exactly(Preview, ok(admin.post(f"/users/{analyst[0]}/preview", {"sql": "SELECT * FROM page_views"})))
    assert shown.result is not None and shown.decisions[0].grants[0].kind == "table_rule"
    refused = _exactly(Preview, ok(admin.post(f"/users/{analyst[0]}/preview", {"sql": "SELECT nope FROM page_views"})))
    assert refused.result is None and refused.refusal is not None


def test_the_statement_paths_answers_are_their_models(admin):
    result = _exactly(Result, ok(admin.post("/sql", {"sql": "SELECT page, count(*) AS views FROM page_views GROUP BY 1",
                                                     "row_limit": 1})))
    assert result.truncated and result.columns[1].name == "views"
    compiled = _exactly(CompiledBuilder, ok(admin.post("/builder/sql", {"builder": {
        "table": {"catalog": "warehouse", "schema": "analytics", "table": "page_views"}}})))
    _exactly(Result, ok(admin.post("/builder/run", {"builder": {
        "table": {"catalog": "warehouse", "schema": "analytics", "table": "page_views"}}})))
    assert "page_views" in compiled.sql
    question = ok(admin.post("/questions", {"name": "Count", "sql": "SELECT count(*) AS n FROM page_views"}), 201)
    assert _exactly(Result, ok(admin.post(f"/questions/{question['question_id']}/run"))).question_id
    dashboard = ok(admin.post("/dashboards", {"name": "Shapes", "cards": [
        {"key": "q", "question_id": question["question_id"]}]}), 201)
    run = f"/dashboards/{dashboard['dashboard_id']}/cards/{dashboard['cards'][0]['card_id']}/run"
    assert _exactly(Result, ok(admin.post(run))).cached is False
    assert _exactly(Result, ok(admin.post(run))).cached_at is not None
    tables = _exactly(TableList, ok(admin.get("/schema", query_string={"search": "country"}))).tables
    assert tables and tables[0].matched
    described = _exactly(Table, ok(admin.get("/schema/tables/warehouse.analytics.page_views")))
    assert described.columns
    assert _exactly(DatasourceList, ok(admin.get("/datasources"))).datasources
    assert _exactly(Suggestions, ok(admin.post("/sql/autocomplete", {"sql": "SELECT * FROM pa", "cursor": 16})))
    assert _exactly(FormattedSql, ok(admin.post("/sql/format", {"sql": "select 1"}))).sql
    assert _exactly(Cancelling, ok(admin.post("/sql/cancel", {"statement_id": "nothing-running"}), 202))


def test_themes_are_their_models(admin):
    theme = _exactly(Theme, ok(admin.post("/themes", {"name": "Shapes", "settings": {"font": "inter"}}), 201))
    assert theme.resolved["font"] == "inter" and "colors" in theme.resolved
    _exactly(Theme, ok(admin.get(f"/themes/{theme.theme_id}")))
    assert theme.theme_id in [item.theme_id for item in _exactly(ThemeList, ok(admin.get("/themes"))).themes]
    folder = ok(admin.post("/folders", {"name": "Themed"}), 201)
    applied = _exactly(EffectiveTheme, ok(admin.put(f"/folders/{folder['folder_id']}/theme",
                                                    {"theme_id": theme.theme_id})))
    assert applied.source.kind == "folder"
    question = ok(admin.post("/questions", {"name": "Q", "folder_id": folder["folder_id"], "sql": "SELECT 1"}), 201)
    assert _exactly(EffectiveTheme, ok(admin.get(f"/questions/{question['question_id']}/theme"))).theme_id
    dashboard = ok(admin.post("/dashboards", {"name": "Plain"}), 201)
    assert _exactly(EffectiveTheme, ok(admin.get(f"/dashboards/{dashboard['dashboard_id']}/theme"))).theme_id is None


def test_the_single_sign_on_settings_and_offer_are_their_models(app, admin):
    assert _exactly(SignOnOffer, ok(Api(app.test_client()).get("/sso"))).enabled is False
    assert _exactly(SingleSignOnSettings, ok(admin.get("/settings/sso"))).source == "none"
    changed = _exactly(SingleSignOnSettings, ok(admin.patch("/settings/sso", {
        "issuer": "https://login.example.org", "client_id": "workbench", "client_secret": "s3cret",
        "group_mapping": {"staff": "Analysts"}, "attribute_claims": {"region": "region"}})))
    assert changed.client_secret_set and changed.group_mapping == {"staff": "Analysts"}


def test_a_sources_connection_test_and_a_refresh_are_their_models(admin, tmp_path):
    failed = _exactly(ConnectionTest, ok(admin.post("/sources/test", {
        "kind": "postgres", "options": {"host": "127.0.0.1", "port": 1, "database": "nothing", "user": "nobody"}})))
    assert failed.ok is False and failed.error.details.reason == "unreachable"
    database = tmp_path / "shapes.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute("CREATE TABLE visits (day DATE)")
    reached = _exactly(ConnectionTest, ok(admin.post("/sources/test", {"kind": "duckdb", "options": {
        "path": str(database)}})))
    assert reached.ok and reached.tables == 1 and reached.error is None
    assert _exactly(RefreshedSources, ok(admin.post("/sources/refresh"))).version >= 1


def test_public_links_and_embedding_secrets_are_their_models(admin, eu_analysts):
    dashboard = ok(admin.post("/dashboards", {"name": "Shared"}), 201)
    links = f"/dashboards/{dashboard['dashboard_id']}/public-links"
    ok(admin.patch("/settings", {"public_sharing": True}))
    created = _exactly(NewPublicLink, ok(admin.post(links, {"allowed_filters": []}), 201))
    assert created.path.endswith(created.secret) and created.link.revoked_at is None
    listed = _exactly(PublicLinkList, ok(admin.get(links)))
    assert listed.public_sharing and [link.link_id for link in listed.links] == [created.link.link_id]
    secret = _exactly(NewEmbeddingSecret, ok(admin.post("/embedding-secrets", {"name": "Portal",
                                                                               "group_id": eu_analysts}), 201))
    assert secret.embedding_secret.group_name == "EU analysts"
    assert _exactly(EmbeddingSecretList, ok(admin.get("/embedding-secrets"))).secrets


def test_a_questions_columns_a_filters_values_and_the_cache_counts_are_their_models(admin):
    question = ok(admin.post("/questions", {"name": "Pages", "sql": "SELECT page, country FROM page_views"}), 201)
    columns = _exactly(ResultColumns, ok(admin.get(f"/questions/{question['question_id']}/columns"))).columns
    assert [column.name for column in columns] == ["page", "country"]
    dashboard = ok(admin.post("/dashboards", {"name": "Counted", "cards": [{"key": "q", "question_id": question["question_id"]}],
                                              "filters": [{"name": "Country", "type": "one_of",
                                                           "values": {"table": "warehouse.analytics.page_views",
                                                                      "column": "country"},
                                                           "links": [{"card": "q", "column": "country"}]}]}), 201)
    values = _exactly(FilterValues, ok(admin.get(
        f"/dashboards/{dashboard['dashboard_id']}/filters/{dashboard['filters'][0]['filter_id']}/values")))
    assert values.values and values.truncated is False
    counts = _exactly(DashboardCacheCounts, ok(admin.get("/dashboard-cache"))).dashboards
    assert dashboard["dashboard_id"] in [count.dashboard_id for count in counts]


def test_sessions_tokens_password_links_attributes_and_settings_are_their_models(app, admin, analyst):
    user_id, _ = analyst
    settings = _exactly(Settings, ok(admin.get("/settings")))
    assert settings.sign_in_methods.password and settings.public_sharing is False
    assert _exactly(Settings, ok(admin.patch("/settings", {"default_locale": "fr"}))).default_locale == "fr"
    assert _exactly(UserAttributesSet, ok(admin.put(f"/users/{user_id}/attributes",
                                                    {"attributes": {"region": "US"}}))).attributes == {"region": "US"}
    created = _exactly(NewToken, ok(admin.post("/tokens", {"name": "Shapes"}), 201))
    assert created.secret.startswith("wbt_") and created.token.state == "active"
    everyone = _exactly(TokenList, ok(admin.get("/tokens", query_string={"all": "true"}))).tokens
    assert all(token.owner_email for token in everyone)
    assert _exactly(Token, ok(admin.delete(f"/tokens/{created.token.token_id}"))).state == "revoked"
    signed_in = _exactly(NewToken, ok(Api(app.test_client()).post("/auth/token", {
        "email": "analyst@example.org", "password": "a long enough password"}), 201))
    assert signed_in.token.user_id == user_id
    link = _exactly(PasswordLink, ok(admin.post(f"/users/{user_id}/password-link", {"purpose": "reset"}), 201))
    browser = Api(app.test_client())
    assert _exactly(PasswordLinkFor, ok(browser.post("/password-link/check", {"token": link.token}))).purpose == "reset"
    session = _exactly(Session, ok(browser.post("/password-link", {"token": link.token,
                                                                    "password": "another long password"}), 201))
    assert session.user.user_id == user_id and session.csrf_token
    assert _exactly(Session, ok(browser.get("/session"))).user.email == "analyst@example.org"
