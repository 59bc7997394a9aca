"""Failures of administration operations, mapped to HTTP statuses by the collector.

Kept free of Flask so that the CLI and the maintenance jobs can use the same functions.
"""
from __future__ import annotations

from typing import Any


class AdminError(Exception):
    """Base of refusals that carry a stable `code`, a message and structured `details`."""

    code = "invalid"

    def __init__(self, message: str, details: Any = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.details = details if details is not None else {}
        if code:
            self.code = code


class InvalidInput(AdminError):
    """A field is missing, of the wrong type, or out of range (HTTP 422)."""

    code = "validation_failed"


class NotFound(AdminError):
    """The site, key or record does not exist, or not under this site (HTTP 404)."""

    code = "not_found"


class Conflict(AdminError):
    """The request clashes with existing state, such as a duplicate name (HTTP 409)."""

    code = "conflict"
