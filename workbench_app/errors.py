"""The workbench's one refusal type, turned into `{"error": {"code", "message", "details"}}`.

Domain modules (accounts, sources, content) raise it with an HTTP status, so the API and the
agent tool server answer the same refusal the same way.
"""
from __future__ import annotations

from typing import Any


class WorkbenchError(Exception):
    """A refused request: `status` for HTTP, `code` stable, `message` for people."""

    def __init__(self, status: int, code: str, message: str, details: Any = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details if details is not None else {}

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "details": self.details}


def invalid(message: str, **details: Any) -> WorkbenchError:
    return WorkbenchError(400, "invalid_input", message, details)


def not_found(what: str) -> WorkbenchError:
    return WorkbenchError(404, "not_found", f"{what} not found.")


def forbidden(message: str = "You may not do this.") -> WorkbenchError:
    return WorkbenchError(403, "forbidden", message)


def conflict(message: str, **details: Any) -> WorkbenchError:
    return WorkbenchError(409, "conflict", message, details)


def unavailable(message: str = "The workbench database is unavailable; try again shortly.") -> WorkbenchError:
    return WorkbenchError(503, "database_unavailable", message)
