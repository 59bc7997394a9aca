"""Field checks shared by the admin operations: each failure names its field in `details`."""
from __future__ import annotations

import re
from typing import Any, Iterable

from pipelines.admin.errors import InvalidInput
from pipelines.text_rules import single_line as _single_line, storable  # noqa: F401  (storable: read from here too)

IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]{0,62}$")


def require_object(body: Any, what: str = "body") -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InvalidInput(f"the {what} must be a JSON object", {"field": what})
    return body


def reject_unknown(body: dict[str, Any], allowed: Iterable[str], where: str = "") -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise InvalidInput(f"unknown field{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}",
                           {"field": where + unknown[0], "unknown": unknown})


def reject_nulls(body: dict[str, Any], where: str = "") -> None:
    """For bodies whose fields are read without the helpers below: none of them may be null."""
    for field, value in body.items():
        if value is None:
            raise InvalidInput(f"{field} may not be null", {"field": where + field})


def _present(body: dict[str, Any], field: str, where: str, nullable: bool) -> bool:
    """Whether the field holds a value. Null is refused unless the schema documents the field as
    nullable (then it counts as absent): a client must never see null silently become a default."""
    if field not in body:
        return False
    if body[field] is None:
        if not nullable:
            raise InvalidInput(f"{field} may not be null", {"field": where + field})
        return False
    return True


def text(body: dict[str, Any], field: str, *, required: bool = False, default: str | None = None,
         min_length: int = 0, max_length: int = 200, where: str = "", strip: bool = True,
         single_line: bool = True, nullable: bool = False) -> str | None:
    """A string field (stripped), or `default` when absent and not required."""
    if not _present(body, field, where, nullable):
        if required:
            raise InvalidInput(f"{field} is required", {"field": where + field})
        return default
    value = body[field]
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string", {"field": where + field})
    # The limit counts what was sent, as the OpenAPI document's maxLength does (found by fuzzing: a
    # label of 201 characters whose first was a space was accepted).
    if len(value) > max_length:
        raise InvalidInput(f"{field} must have {min_length} to {max_length} characters", {"field": where + field})
    if strip:
        value = value.strip()
    if single_line and not _single_line(value):
        raise InvalidInput(f"{field} must not contain control characters", {"field": where + field})
    if not storable(value):
        raise InvalidInput(f"{field} must be text without NUL characters or unpaired surrogates",
                           {"field": where + field})
    if not min_length <= len(value) <= max_length:
        raise InvalidInput(f"{field} must have {min_length} to {max_length} characters", {"field": where + field})
    return value


def identifier(body: dict[str, Any], field: str, *, required: bool = True, where: str = "",
               pattern: re.Pattern = IDENTIFIER, rule: str = "a lowercase letter, then up to 62 lowercase letters, digits or _") -> str | None:
    value = text(body, field, required=required, max_length=63, where=where)
    if value is None:
        return None
    if not pattern.match(value):
        raise InvalidInput(f"{field} must be {rule}", {"field": where + field})
    return value


def boolean(body: dict[str, Any], field: str, *, default: bool | None = None, where: str = "") -> bool | None:
    if not _present(body, field, where, nullable=False):
        return default
    value = body[field]
    if not isinstance(value, bool):
        raise InvalidInput(f"{field} must be true or false", {"field": where + field})
    return value


def whole_number(value: Any) -> int | None:
    """An int, or None. JSON Schema counts 110.0 as an integer, so a generated client may send it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def integer(body: dict[str, Any], field: str, *, minimum: int, maximum: int, default: int | None = None,
            where: str = "", nullable: bool = False) -> int | None:
    if not _present(body, field, where, nullable):
        return default
    value = whole_number(body[field])
    if value is None or not minimum <= value <= maximum:
        raise InvalidInput(f"{field} must be a whole number from {minimum} to {maximum}", {"field": where + field})
    return value


def choice(body: dict[str, Any], field: str, choices: Iterable[str], *, default: str | None = None,
           required: bool = False, where: str = "", nullable: bool = False) -> str | None:
    choices = tuple(choices)
    if not _present(body, field, where, nullable):
        if required:
            raise InvalidInput(f"{field} is required", {"field": where + field})
        return default
    value = body[field]
    if value not in choices:
        raise InvalidInput(f"{field} must be one of {', '.join(choices)}", {"field": where + field, "allowed": list(choices)})
    return value
