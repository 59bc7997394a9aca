"""Autocomplete for the SQL editor: what the user may see, at the cursor.

Suggestions are catalogs, schemas, tables, columns, CTE names, functions and
keywords. Only tables and columns the user may read are ever suggested: the
list is built from :func:`permissions.visible_schema`, so a hidden table or
column cannot be discovered by typing its first letters.

The statement being typed is usually incomplete, so this works on the text
before the cursor with a light tokenizer rather than a full parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench_app.engine.catalog_schema import SchemaCatalog, TableInfo, candidate_names
from workbench_app.engine.function_allowlist import ALLOWED_FUNCTIONS, OPERATORS
from workbench_app.engine.permissions import UserContext, VisibleColumn, visible_schema

KEYWORDS = (
    "SELECT FROM WHERE GROUP BY ORDER HAVING LIMIT OFFSET JOIN LEFT RIGHT FULL INNER OUTER CROSS "
    "ON USING AS AND OR NOT IN IS NULL LIKE ILIKE BETWEEN CASE WHEN THEN ELSE END DISTINCT WITH "
    "UNION ALL EXCEPT INTERSECT OVER PARTITION QUALIFY ASC DESC LATERAL FILTER EXISTS CAST INTERVAL"
).split()
MAX_COMPLETION_TEXT = 200_000
_KIND_ORDER = {"column": 0, "table": 1, "cte": 1, "schema": 2, "catalog": 3, "function": 4, "keyword": 5}
_IDENT = r'(?:"(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_$]*)'
_CHAIN_AT_END = re.compile(rf"((?:{_IDENT}\s*\.\s*)*)(\"?[A-Za-z0-9_$]*)$")
_NOT_AN_ALIAS = "ON|USING|WHERE|JOIN|LEFT|RIGHT|FULL|INNER|CROSS|GROUP|ORDER|LIMIT|NATURAL|UNION|WINDOW|QUALIFY|HAVING"
# FROM/JOIN <name> [AS] <alias>: the tables a statement reads, with the names they go by.
_RELATION = re.compile(
    rf"\b(?:FROM|JOIN)\s+({_IDENT}(?:\s*\.\s*{_IDENT}){{0,2}})"
    rf"(?:\s+(?:AS\s+)?(?!(?:{_NOT_AN_ALIAS})\b)({_IDENT}))?",
    re.I,
)
_CTE = re.compile(
    rf"(?:\bWITH\s+(?:RECURSIVE\s+)?|,\s*)({_IDENT})\s*(?:\([^)]*\)\s*)?AS\s*(?:NOT\s+)?(?:MATERIALIZED\s*)?\(",
    re.I,
)
_CLAUSE = re.compile(
    r"\b(SELECT|FROM|JOIN|WHERE|GROUP|ORDER|HAVING|ON|USING|LIMIT|QUALIFY|WINDOW|BY|SET|AND|OR)\b", re.I
)


@dataclass(frozen=True)
class Completion:
    """One suggestion: ``kind`` is catalog, schema, table, cte, column, function or keyword."""

    label: str
    kind: str
    detail: str = ""


def _unquote(identifier: str) -> str:
    identifier = identifier.strip()
    if identifier.startswith('"') and identifier.endswith('"') and len(identifier) >= 2:
        return identifier[1:-1].replace('""', '"')
    return identifier


def _split_chain(chain: str) -> list[str]:
    return [_unquote(part) for part in re.findall(_IDENT, chain)]


def complete(
    sql: str,
    cursor: int,
    user: UserContext,
    schema: SchemaCatalog,
    default_catalog: str | None = None,
    default_schema: str | None = None,
    limit: int = 200,
) -> list[Completion]:
    """Suggestions for the word being typed at ``cursor`` (a character offset into ``sql``)."""
    if len(sql) > MAX_COMPLETION_TEXT:
        return []
    cursor = max(0, min(cursor, len(sql)))
    before = sql[:cursor]
    # The word being typed is short: look only at the end, whatever the text's length.
    match = _CHAIN_AT_END.search(before[-512:])
    if match:
        offset = len(before) - len(before[-512:])
        match_start = offset + match.start()
    qualifiers = _split_chain(match.group(1)) if match else []
    partial = _unquote(match.group(2)) if match else ""
    head = before[:match_start] if match else before

    visible = visible_schema(user, schema)
    by_key = {info.table.key: (info, columns) for info, columns in visible}
    in_relation = _in_relation_position(head)
    suggestions: list[Completion] = []

    if qualifiers:
        suggestions = _qualified(qualifiers, sql, visible, by_key, schema, default_catalog, default_schema)
    elif in_relation:
        suggestions = _relations(sql, visible, schema, default_catalog, default_schema)
    else:
        for info, columns in _tables_in_statement(sql, by_key, schema, default_catalog, default_schema).values():
            suggestions += [_column(c, info) for c in columns]
        suggestions += [Completion(name, "function") for name in sorted(ALLOWED_FUNCTIONS - OPERATORS)]
        suggestions += [Completion(word, "keyword") for word in KEYWORDS]

    lowered = partial.lower()
    seen: set[tuple[str, str]] = set()
    result = []
    for item in sorted(suggestions, key=lambda s: (_KIND_ORDER.get(s.kind, 9), s.label.lower())):
        if not item.label.lower().startswith(lowered) or (item.label.lower(), item.kind) in seen:
            continue
        seen.add((item.label.lower(), item.kind))
        result.append(item)
        if len(result) >= limit:
            break
    return result


def _in_relation_position(head: str) -> bool:
    clauses = _CLAUSE.findall(head)
    if not clauses:
        return False
    last = clauses[-1].upper()
    if last in ("FROM", "JOIN"):
        return True
    return False


def _column(column: VisibleColumn, info: TableInfo) -> Completion:
    detail = f"{column.data_type} · {info.table.name}" + (" · masked" if column.masked else "")
    return Completion(column.name, "column", detail)


def _relations(sql, visible, schema, default_catalog, default_schema) -> list[Completion]:
    items = [Completion(name, "cte") for name in (_unquote(m) for m in _CTE.findall(sql))]
    catalogs = sorted({info.table.catalog for info, _ in visible}, key=str.lower)
    items += [Completion(catalog, "catalog") for catalog in catalogs]
    if default_catalog:
        default_schema = default_schema or schema.default_schemas.get(default_catalog.lower())
        for info, _ in visible:
            if info.table.catalog.lower() != default_catalog.lower():
                continue
            items.append(Completion(info.table.schema, "schema", info.table.catalog))
            if default_schema and info.table.schema.lower() == default_schema.lower():
                items.append(Completion(info.table.name, "table", info.comment or str(info.table)))
    return items


def _qualified(qualifiers, sql, visible, by_key, schema, default_catalog, default_schema) -> list[Completion]:
    lowered = [q.lower() for q in qualifiers]
    items: list[Completion] = []
    # An alias or table of this statement: its columns.
    tables = _tables_in_statement(sql, by_key, schema, default_catalog, default_schema)
    if len(lowered) == 1 and lowered[0] in tables:
        info, columns = tables[lowered[0]]
        return [_column(c, info) for c in columns]
    for info, columns in visible:
        table = info.table
        catalog, schema_name, name = table.key
        if lowered == [catalog]:
            items.append(Completion(table.schema, "schema", table.catalog))
            if schema.default_schemas.get(catalog) == schema_name:
                items.append(Completion(table.name, "table", info.comment or str(table)))
        elif lowered == [catalog, schema_name] or (
            default_catalog and lowered == [schema_name] and catalog == default_catalog.lower()
        ):
            items.append(Completion(table.name, "table", info.comment or str(table)))
    # A fully written table name followed by a dot: its columns.
    for candidate in candidate_names(qualifiers, schema, default_catalog, default_schema):
        if candidate.key in by_key:
            info, columns = by_key[candidate.key]
            items += [_column(c, info) for c in columns]
            break
    return items


def _tables_in_statement(sql, by_key, schema, default_catalog, default_schema) -> dict:
    """Visible tables named in FROM/JOIN, keyed by the alias (or table name) they go by."""
    found: dict[str, tuple[TableInfo, list[VisibleColumn]]] = {}
    for reference, alias in _RELATION.findall(sql):
        parts = _split_chain(reference)
        for candidate in candidate_names(parts, schema, default_catalog, default_schema):
            if candidate.key in by_key:
                info, columns = by_key[candidate.key]
                found[(_unquote(alias) if alias else parts[-1]).lower()] = (info, columns)
                break
    return found
