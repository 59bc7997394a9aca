"""The one SQL dialect of the workbench: DuckDB's, spoken through sqlglot.

Everything that reads or writes SQL text (the editor's formatter, the permission
rewrite, autocomplete) goes through these functions so that there is exactly one
parser and one generator configuration.
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError

from workbench_app.engine.errors import STATEMENT_NOT_ALLOWED, SYNTAX_ERROR, EngineError

DIALECT = "duckdb"
_DUCKDB = Dialect.get_or_raise(DIALECT)


def parse_statements(sql: str) -> list[exp.Expression]:
    """Parse SQL text into sqlglot trees; raise ``syntax_error`` if it does not parse."""
    try:
        trees = _DUCKDB.parse(sql)
    except (ParseError, TokenError) as error:
        raise _syntax_error(error) from None
    except RecursionError:
        raise EngineError(STATEMENT_NOT_ALLOWED, "The statement is nested too deeply.") from None
    return [tree for tree in trees if tree is not None]


# Statements that are refused whether or not sqlglot can parse them, recognised
# by their first word so that the refusal says why rather than "syntax error".
_NOT_READ_KEYWORDS = frozenset(
    """ALTER ATTACH CALL CHECKPOINT COMMENT COPY CREATE DEALLOCATE DELETE DETACH DROP EXECUTE EXPORT
    FORCE GRANT IMPORT INSERT INSTALL LOAD MERGE PRAGMA PREPARE RESET REVOKE SET TRUNCATE UPDATE USE
    VACUUM""".split()
)
_LEADING_NOISE = re.compile(r"\A(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.S)


def first_keyword(sql: str) -> str:
    """The statement's first word, upper-cased, after whitespace and comments."""
    rest = sql[_LEADING_NOISE.match(sql).end() :]
    match = re.match(r"[A-Za-z_]+", rest)
    return match.group(0).upper() if match else ""


def not_a_read_statement(sql: str) -> EngineError:
    """The refusal of a statement that is not a read query, naming its keyword as written
    (`DELETE`, `ATTACH`...) when it starts with one we know."""
    keyword = first_keyword(sql)
    if keyword in _NOT_READ_KEYWORDS:
        return EngineError(STATEMENT_NOT_ALLOWED, f"{keyword} is not allowed: only read statements (SELECT) can be run.")
    return EngineError(STATEMENT_NOT_ALLOWED, "Only read statements (SELECT) are allowed.")


def parse_single_statement(sql: str) -> exp.Expression:
    """Parse exactly one statement; several statements (``a; b``) are refused."""
    try:
        trees = parse_statements(sql)
    except EngineError as error:
        if error.code == SYNTAX_ERROR and first_keyword(sql) in _NOT_READ_KEYWORDS:
            raise not_a_read_statement(sql) from None
        raise
    if not trees:
        raise EngineError(SYNTAX_ERROR, "The query is empty.")
    if len(trees) > 1:
        raise EngineError(STATEMENT_NOT_ALLOWED, "Only one statement can be run at a time.")
    return trees[0]


def parse_expression(sql: str) -> exp.Expression:
    """Parse a single SQL expression (a row filter, a mask), not a statement."""
    try:
        return sqlglot.parse_one(sql, read=DIALECT, into=exp.Condition)
    except (ParseError, TokenError) as error:
        raise _syntax_error(error) from None


def render(tree: exp.Expression, pretty: bool = False) -> str:
    """Generate DuckDB SQL from a tree, which the generator may alter: render it last.

    Comments are dropped on purpose: the text we send to DuckDB must mean
    exactly what the tree means, and a comment re-emitted as ``/* ... */``
    is a place where the two could disagree. The tree is not copied first
    (half the cost of rendering); callers render a tree once and drop it.
    """
    return _DUCKDB.generate(tree, copy=False, pretty=pretty, comments=False)


def _syntax_error(error: Exception) -> EngineError:
    """A ``syntax_error`` whose details hold sqlglot's position (``{"line", "column"}``, 1-based) when known."""
    errors = getattr(error, "errors", None)
    if errors:
        first = errors[0]
        description = first.get("description") or "Invalid SQL"
        line, col = first.get("line"), first.get("col")
        if isinstance(line, int) and isinstance(col, int):
            return EngineError(SYNTAX_ERROR, f"Syntax error: {description} (line {line}, column {col}).",
                               {"line": line, "column": col})
        return EngineError(SYNTAX_ERROR, f"Syntax error: {description}.")
    return EngineError(SYNTAX_ERROR, "Syntax error: the query could not be parsed.")
