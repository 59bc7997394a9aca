"""The workbench's federated SQL engine and its permission layer.

Public API (everything else in this package is internal)::

    from workbench_app.engine import (
        WorkbenchEngine, EngineSettings, CatalogSource, QueryResult,
        UserContext, GroupPermissions, TableRule, ColumnMask,
        EngineError, format_sql, variable_names, native_sql_allowed,
    )

    engine = WorkbenchEngine(EngineSettings(default_catalog="warehouse", default_schema="analytics",
                                            mask_salt=secret))
    engine.attach_catalog(CatalogSource("warehouse", "postgres", dsn))
    user = UserContext("u1", groups=(GroupPermissions("analysts", frozenset({"warehouse"})),),
                       attributes={"region": "EU"})
    result = engine.run("SELECT count(*) FROM events WHERE day >= {{since}}", user,
                        variables={"since": "2026-01-01"}, variable_types={"since": "date"})

``WorkbenchEngine`` methods: ``run`` (execute as a user), ``rewrite`` (the SQL
that would run, for administrators' logs), ``complete`` (autocomplete),
``visible_catalogs`` / ``visible_tables`` / ``describe_table`` (what a user may
see), ``native_sql_allowed``, ``attach_catalog`` / ``detach_catalog`` /
``set_catalogs`` / ``refresh_schema`` (catalogs at run time), ``close``.
``QueryResult.as_json()`` gives rows in the one JSON form every caller should use.
Module functions: ``format_sql``, ``jsonable``, ``variable_names``, ``bind_variables``,
``rule_problems`` (why a rule grants nothing), ``native_sql_allowed``.

Every statement, from any entry point (SQL editor, saved questions, builder,
dashboards, API, tool server, assistant), must go through
:meth:`WorkbenchEngine.run`: it binds variables, applies the user's
permissions (see ``PERMISSIONS.md``) and only then executes. Refusals and
failures raise :class:`EngineError` with a stable ``code``.
"""

from workbench_app.engine.autocomplete import Completion
from workbench_app.engine.cancellation import Cancellation
from workbench_app.engine.catalog_schema import ColumnInfo, SchemaCatalog, TableInfo, TableName
from workbench_app.engine.dialect import DIALECT
from workbench_app.engine.duckdb_engine import CatalogSource, EngineSettings, QueryResult, WorkbenchEngine
from workbench_app.engine.errors import ERROR_CODES, EngineError
from workbench_app.engine.formatting import format_sql
from workbench_app.engine.permissions import (
    ColumnMask,
    GroupPermissions,
    TableRule,
    UserContext,
    VisibleColumn,
    native_sql_allowed,
    rule_problems,
    visible_schema,
)
from workbench_app.engine.result_values import jsonable, jsonable_rows
from workbench_app.engine.rewrite import RewriteOptions, RewrittenStatement, rewrite_statement
from workbench_app.engine.variables import (VARIABLE_TYPES, bind_variables, inline_values, substitute_placeholders,
                                            variable_names)

__all__ = [
    "DIALECT",
    "ERROR_CODES",
    "VARIABLE_TYPES",
    "substitute_placeholders",
    "Cancellation",
    "CatalogSource",
    "ColumnInfo",
    "ColumnMask",
    "Completion",
    "EngineError",
    "EngineSettings",
    "GroupPermissions",
    "QueryResult",
    "RewriteOptions",
    "RewrittenStatement",
    "SchemaCatalog",
    "TableInfo",
    "TableName",
    "TableRule",
    "UserContext",
    "VisibleColumn",
    "WorkbenchEngine",
    "bind_variables",
    "inline_values",
    "format_sql",
    "jsonable",
    "jsonable_rows",
    "native_sql_allowed",
    "rewrite_statement",
    "rule_problems",
    "variable_names",
    "visible_schema",
]
