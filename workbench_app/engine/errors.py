"""The one exception type the workbench engine raises, with stable error codes.

Callers (HTTP API, tool server, UI) turn an :class:`EngineError` into
``{"error": {"code", "message"}}``. Messages are written for the end user and
never name a table, column or catalog that the user may not see.
"""

from __future__ import annotations

# Stable codes: the API documents them, so they are never renamed.
SYNTAX_ERROR = "syntax_error"
STATEMENT_NOT_ALLOWED = "statement_not_allowed"
TABLE_NOT_FOUND = "table_not_found"
COLUMN_NOT_FOUND = "column_not_found"
FUNCTION_NOT_ALLOWED = "function_not_allowed"
PERMISSION_DENIED = "permission_denied"
VARIABLE_ERROR = "variable_error"
QUERY_TIMEOUT = "query_timeout"
QUERY_CANCELLED = "query_cancelled"
MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded"
QUERY_FAILED = "query_failed"
CATALOG_ERROR = "catalog_error"

ERROR_CODES = frozenset(
    {
        SYNTAX_ERROR,
        STATEMENT_NOT_ALLOWED,
        TABLE_NOT_FOUND,
        COLUMN_NOT_FOUND,
        FUNCTION_NOT_ALLOWED,
        PERMISSION_DENIED,
        VARIABLE_ERROR,
        QUERY_TIMEOUT,
        QUERY_CANCELLED,
        MEMORY_LIMIT_EXCEEDED,
        QUERY_FAILED,
        CATALOG_ERROR,
    }
)


class EngineError(Exception):
    """A refused or failed statement: ``code`` is stable, ``message`` is for people."""

    def __init__(self, code: str, message: str, details: dict | None = None):
        if code not in ERROR_CODES:
            raise ValueError(f"unknown engine error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        # Where the screen should point: {"variable": name} or {"line": n, "column": n}.
        self.details = details or {}

    def as_dict(self) -> dict[str, str]:
        """The error in the ``{"code", "message"}`` shape used by the API."""
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"EngineError({self.code!r}, {self.message!r})"
