"""Running a domain operation from a form: its refusal becomes the form's error, naming the field."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import psycopg

from collector_app.database import transaction
from pipelines.admin.errors import AdminError


@dataclass(frozen=True)
class FormError:
    """A refusal shown above the form and beside its field (`field` as the domain names it)."""

    field: str | None
    message: str
    details: Any
    code: str = "validation_failed"

    @classmethod
    def of(cls, exc: AdminError) -> "FormError":
        details = exc.details if isinstance(exc.details, dict) else {}
        return cls(details.get("field"), exc.message, details, exc.code)

    def about(self, field: str) -> bool:
        """Whether the error is about this form field (`domains` covers `domains[2]`...)."""
        return self.field is not None and (self.field == field or self.field.startswith(field + "[")
                                           or self.field.startswith(field + "."))


def attempt(operation: Callable[[psycopg.Connection], Any]) -> tuple[Any, FormError | None]:
    """Run `operation(conn)` in one transaction: (its result, None), or (None, the refusal) with
    nothing written."""
    try:
        with transaction() as conn:
            return operation(conn), None
    except AdminError as exc:
        return None, FormError.of(exc)


def read(operation: Callable[[psycopg.Connection], Any]) -> Any:
    with transaction() as conn:
        return operation(conn)
