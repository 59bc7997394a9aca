"""Second wall: DuckDB's own parser checks the exact text we are about to run.

The permission rewrite works on sqlglot's tree, but DuckDB executes text. If
sqlglot and DuckDB ever read the same text differently (a parser differential),
the rewrite could be checking one statement while DuckDB runs another. So the
final SQL is parsed once more by DuckDB itself (``json_serialize_sql``, which
parses without binding or executing anything) on a private, empty in-memory
database, and every relation and function in DuckDB's reading is compared with
allow-lists:

* exactly one statement, and a SELECT (``json_serialize_sql`` accepts nothing else);
* every base table is one the rewrite emitted (fully qualified, permitted) or one
  of the rewrite's own renamed CTEs;
* table functions and scalar/aggregate/window functions are allow-listed;
* relation types are the plain ones (no ``SHOW``/``DESCRIBE`` subqueries);
* every ``$parameter`` is one we bind.

Anything else raises :class:`EngineError` before the engine's connection sees it.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

import duckdb

from workbench_app.engine.errors import (
    FUNCTION_NOT_ALLOWED,
    STATEMENT_NOT_ALLOWED,
    SYNTAX_ERROR,
    TABLE_NOT_FOUND,
    VARIABLE_ERROR,
    EngineError,
)
from workbench_app.engine.function_allowlist import is_allowed_function, is_allowed_table_function

_ALLOWED_RELATION_TYPES = frozenset(
    {"BASE_TABLE", "SUBQUERY", "JOIN", "TABLE_FUNCTION", "EXPRESSION_LIST", "EMPTY", "PIVOT"}
)
# Schemas a built-in function may be qualified with by DuckDB's parser itself.
_BUILTIN_FUNCTION_SCHEMAS = frozenset({"", "main", "pg_catalog"})

_local = threading.local()


def _parser_connection() -> duckdb.DuckDBPyConnection:
    # One private, empty database per thread: it never holds a catalog or a
    # secret, so asking it to parse hostile text costs nothing.
    connection = getattr(_local, "connection", None)
    if connection is None:
        # One thread: parsing needs no parallelism, and handing the work to a
        # pool thread and waiting for it costs more than the parse itself.
        connection = duckdb.connect(":memory:", config={"enable_external_access": False, "threads": 1})
        # The only query it runs is json_serialize_sql over a constant: planning
        # it costs more than the parse we ask for, and optimizing it gains nothing.
        connection.execute("PRAGMA disable_optimizer")
        _local.connection = connection
        _local.prepared = set()
    return connection


def duckdb_can_read(text: str) -> bool:
    """Whether DuckDB's parser reads ``text`` whole: it stops at a NUL and takes UTF-8 only."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def _serialized(texts: Sequence[str]) -> tuple:
    """DuckDB's JSON reading of each text (``json_serialize_sql``), in one call.

    Through a statement prepared once per number of texts: DuckDB then skips
    binding and planning, which cost about as much as the parse itself. The
    texts are inlined as string literals rather than bound from Python, which
    costs several times more; doubling quotes is DuckDB's whole escaping for
    standard strings, so a text cannot run into the next, and this connection
    is an empty sandbox anyway.
    """
    connection = _parser_connection()
    name = f"wb_serialize_{len(texts)}"
    if len(texts) not in _local.prepared:
        columns = ", ".join(f"json_serialize_sql(${i}::VARCHAR)" for i in range(1, len(texts) + 1))
        connection.execute(f"PREPARE {name} AS SELECT {columns}")
        _local.prepared.add(len(texts))
    literals = ", ".join("'" + text.replace("'", "''") + "'" for text in texts)
    try:
        documents = connection.execute(f"EXECUTE {name}({literals})").fetchone()
    except (duckdb.Error, UnicodeError):
        # Not a verdict on the text (that comes back as JSON): something we did not foresee.
        # Refuse, without DuckDB's message, which quotes the rewritten statement.
        raise EngineError(STATEMENT_NOT_ALLOWED, "The statement could not be checked.") from None
    if documents is None or len(documents) != len(texts):
        raise EngineError(STATEMENT_NOT_ALLOWED, "The statement could not be checked.")
    return documents


@dataclass
class ParseFacts:
    """Everything DuckDB's parser found in one SQL text."""

    statement_count: int = 0
    base_tables: list[tuple[str, str, str]] = field(default_factory=list)
    table_functions: list[tuple[str, str, str]] = field(default_factory=list)  # (catalog, schema, name)
    functions: list[tuple[str, str, str]] = field(default_factory=list)  # (catalog, schema, name)
    relation_types: list[str] = field(default_factory=list)
    parameters: list[str] = field(default_factory=list)
    has_at_clause: bool = False
    #: Why DuckDB could not read the text (its facts are then empty).
    error: EngineError | None = None


def parse_facts(sql: str) -> ParseFacts:
    """Parse ``sql`` with DuckDB and list its relations, functions and parameters."""
    facts = parse_facts_many([sql])[0]
    if facts.error is not None:
        raise facts.error
    return facts


def parse_facts_many(texts: Sequence[str]) -> list[ParseFacts]:
    """Parse several SQL texts, each on its own, in one call to DuckDB (one ParseFacts each).

    Each text is parsed on its own, so one cannot run into the next. A text
    DuckDB cannot read gets facts with ``error`` set rather than raising.
    """
    _self_test()
    return [_facts(json.loads(raw)) for raw in _serialized(texts)]


def _facts(document: dict) -> ParseFacts:
    if document.get("error"):
        message = str(document.get("error_message", ""))
        if "Only SELECT" in message:
            return ParseFacts(error=EngineError(STATEMENT_NOT_ALLOWED, "Only read statements (SELECT) are allowed."))
        return ParseFacts(error=EngineError(SYNTAX_ERROR, "Syntax error: the query could not be parsed."))
    facts = ParseFacts(statement_count=len(document.get("statements", [])))
    for statement in document.get("statements", []):
        _collect(statement, facts)
    return facts


# Relation types of DuckDB's serialized table references (TableReferenceType).
_RELATION_TYPES = frozenset(
    {
        "BASE_TABLE", "SUBQUERY", "JOIN", "TABLE_FUNCTION", "EXPRESSION_LIST", "EMPTY", "EMPTY_FROM",
        "PIVOT", "SHOW_REF", "COLUMN_DATA", "DELIM_GET", "CTE", "BOUND_TABLE_REF", "INVALID",
    }
)


def _collect(node: Any, facts: ParseFacts) -> None:
    """Record every relation, function call and parameter of a serialized statement.

    Written to fail closed if DuckDB's serialization changes: anything with a
    ``table_name`` counts as a table read, anything with a ``function_name`` as
    a call, and :func:`_self_test` refuses to run checks with a format in which
    known facts are not found.
    """
    stack = [node]
    push = stack.append
    while stack:
        current = stack.pop()
        if type(current) is list:
            for item in current:
                if type(item) is dict or type(item) is list:
                    push(item)
            continue
        if type(current) is not dict:
            continue
        kind = str(current.get("type", ""))
        if "class" not in current and kind in _RELATION_TYPES:
            facts.relation_types.append(kind)
            if current.get("at_clause"):
                facts.has_at_clause = True
            if kind == "TABLE_FUNCTION":
                function = current.get("function") or {}
                facts.table_functions.append(
                    (
                        str(function.get("catalog") or ""),
                        str(function.get("schema") or ""),
                        str(function.get("function_name", "")),
                    )
                )
                # Its arguments are expressions; the function itself is not a scalar call.
                stack.extend(function.get("children") or [])
                stack.extend(v for k, v in current.items() if k != "function")
                continue
        if "table_name" in current:
            facts.base_tables.append(
                (
                    str(current.get("catalog_name") or ""),
                    str(current.get("schema_name") or ""),
                    str(current.get("table_name") or ""),
                )
            )
        if current.get("class") == "PARAMETER" or kind == "VALUE_PARAMETER":
            facts.parameters.append(str(current.get("identifier", "")))
        if "function_name" in current:
            facts.functions.append(
                (
                    str(current.get("catalog") or ""),
                    str(current.get("schema") or ""),
                    str(current["function_name"]),
                )
            )
        for value in current.values():
            if type(value) is dict or type(value) is list:
                push(value)


_SELF_TEST_SQL = (
    "SELECT abs($p) FROM c.s.t AS x, range(1) AS r, (SELECT 1) AS q WHERE x.a IN (SELECT 1 FROM u)"
)
_self_test_passed = False


def _self_test() -> None:
    """Refuse to check anything if this DuckDB serializes statements in a way we do not read."""
    global _self_test_passed
    if _self_test_passed:
        return
    facts = ParseFacts()
    document = json.loads(_serialized([_SELF_TEST_SQL])[0])
    for statement in document.get("statements", []):
        _collect(statement, facts)
    understood = (
        sorted(facts.base_tables) == [("", "", "u"), ("c", "s", "t")]
        and facts.table_functions == [("", "", "range")]
        and ("", "", "abs") in facts.functions
        and facts.parameters == ["p"]
        and {"BASE_TABLE", "SUBQUERY", "TABLE_FUNCTION", "JOIN"} <= set(facts.relation_types)
    )
    if not understood:
        raise EngineError(STATEMENT_NOT_ALLOWED, "The SQL checker does not understand this DuckDB version.")
    _self_test_passed = True


def check_final_statement(
    sql: str,
    allowed_tables: Mapping[tuple[str, str, str], int],
    allowed_cte_names: Iterable[str],
    allowed_parameters: Iterable[str],
) -> None:
    """Refuse ``sql`` unless DuckDB's reading of it only touches what we allowed.

    ``allowed_tables`` counts how many times the rewrite referenced each real
    table (once per projection): DuckDB must find exactly as many references,
    so a table cannot be read a second time outside its filtered projection.
    """
    check_statement_facts(parse_facts(sql), allowed_tables, allowed_cte_names, allowed_parameters)


def check_statement_facts(
    facts: ParseFacts,
    allowed_tables: Mapping[tuple[str, str, str], int],
    allowed_cte_names: Iterable[str],
    allowed_parameters: Iterable[str],
) -> None:
    """:func:`check_final_statement` on facts already read by :func:`parse_facts_many`."""
    if facts.error is not None:
        raise facts.error
    if facts.statement_count != 1:
        raise EngineError(STATEMENT_NOT_ALLOWED, "Only one statement can be run at a time.")
    expected = Counter({tuple(p.lower() for p in key): n for key, n in allowed_tables.items()})
    ctes = {name.lower() for name in allowed_cte_names}
    if not facts.relation_types:
        # Every SELECT has a FROM, even an empty one: finding none means we misread it.
        raise EngineError(STATEMENT_NOT_ALLOWED, "The statement could not be checked.")
    for kind in facts.relation_types:
        if kind not in _ALLOWED_RELATION_TYPES:
            raise EngineError(STATEMENT_NOT_ALLOWED, "This kind of statement is not allowed.")
    if facts.has_at_clause:
        raise EngineError(STATEMENT_NOT_ALLOWED, "Time travel (AT ...) is not allowed.")
    found: Counter = Counter()
    for catalog, schema, name in facts.base_tables:
        if not catalog and not schema and name.lower() in ctes:
            continue
        found[(catalog.lower(), schema.lower(), name.lower())] += 1
    if found != expected:
        raise EngineError(TABLE_NOT_FOUND, "Table not found.")
    for catalog, schema, name in facts.table_functions:
        # A qualified call could reach a macro stored in an attached database.
        if catalog or schema.lower() not in _BUILTIN_FUNCTION_SCHEMAS or not is_allowed_table_function(name):
            raise EngineError(FUNCTION_NOT_ALLOWED, f"Table function {name!r} is not allowed.")
    _check_functions(facts)
    parameters = set(allowed_parameters)
    for name in facts.parameters:
        if name not in parameters:
            raise EngineError(VARIABLE_ERROR, "Unknown query parameter.")


def _check_functions(facts: ParseFacts) -> None:
    for catalog, schema, name in facts.functions:
        if catalog or schema.lower() not in _BUILTIN_FUNCTION_SCHEMAS or not is_allowed_function(name):
            raise EngineError(FUNCTION_NOT_ALLOWED, f"Function {name!r} is not allowed.")


def expression_statement(expression_sql: str) -> str:
    """The text DuckDB parses to check an admin-written expression (row filter, mask)."""
    return f"SELECT {expression_sql}"


def expression_refusal(facts: ParseFacts) -> EngineError | None:
    """Why an expression parsed as :func:`expression_statement` may not be used, or None.

    The expression must call allow-listed functions only, and contain no
    relation: rules read the row they filter and nothing else.
    """
    if facts.error is not None:
        return facts.error
    if facts.statement_count != 1 or facts.base_tables or set(facts.relation_types) - {"EMPTY", "EMPTY_FROM"}:
        return EngineError(STATEMENT_NOT_ALLOWED, "A rule expression may not read other tables.")
    try:
        _check_functions(facts)
    except EngineError as error:
        return error
    return None


def check_expression_functions(expression_sql: str) -> None:
    """Refuse an admin-written expression (row filter, mask) that calls a non-allowed function."""
    refusal = expression_refusal(parse_facts_many([expression_statement(expression_sql)])[0])
    if refusal is not None:
        raise refusal
