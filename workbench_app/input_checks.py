"""Checks of request fields at the edge: each returns the value or raises a 400 `invalid_input`."""
from __future__ import annotations

import re
from typing import Any

from pipelines.admin.validation import whole_number
from pipelines.text_rules import has_unpaired_surrogate, storable
from workbench_app.errors import WorkbenchError, invalid, not_found

MAX_ID = 2**63 - 1
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MISSING = object()


def body_object(body: Any) -> dict[str, Any]:
    """A write's body: a JSON object, even when every field is optional (None: no body at all).
    Anything else is a 422 that changes nothing, never an empty update."""
    if not isinstance(body, dict):
        raise WorkbenchError(422, "invalid_body", "The request body must be a JSON object.")
    return body


def _present(body: dict, name: str, nullable: bool) -> bool:
    """Whether the field holds a value. Null counts as absent only where the OpenAPI document says
    the field is nullable; elsewhere it is refused, never silently turned into a default."""
    value = body.get(name, _MISSING)
    if value is _MISSING:
        return False
    if value is None:
        if not nullable:
            raise invalid(f"{name} may not be null.", field=name)
        return False
    return True


def text(body: dict, name: str, *, required: bool = False, default: str | None = None, max_length: int = 200,
         allow_empty: bool = True, nullable: bool = False) -> str | None:
    if not _present(body, name, nullable):
        if required:
            raise invalid(f"{name} is required.", field=name)
        return default
    value = body[name]
    if not isinstance(value, str):
        raise invalid(f"{name} must be a string.", field=name)
    if len(value) > max_length:
        raise invalid(f"{name} must be at most {max_length} characters.", field=name)
    if not allow_empty and not value.strip():
        raise invalid(f"{name} may not be empty.", field=name)
    if not storable(value):
        raise invalid(f"{name} may not contain NUL characters or unpaired surrogates.", field=name)
    return value


def unpaired_surrogate_at(value: Any, path: str = "") -> str | None:
    """Where a JSON value holds an unpaired surrogate (`a.b.0`), in a key or a string, else None.

    No UTF-8 text holds one, so the body is refused whole before any field is read: the fields that
    no check below reads (a card's text, a variable's value) would otherwise fail in the database."""
    if isinstance(value, str):
        return path or "body" if has_unpaired_surrogate(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if has_unpaired_surrogate(key):
                return where
            if (found := unpaired_surrogate_at(item, where)) is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if (found := unpaired_surrogate_at(item, f"{path}.{index}" if path else str(index))) is not None:
                return found
    return None


def single_query_value(args, name: str) -> str | None:
    """A query parameter given at most once (a repeated one is refused, never half read), or None."""
    values = args.getlist(name)
    if len(values) > 1:
        raise invalid(f"{name} may be given only once.", field=name)
    return values[0] if values else None


def query_text(args, name: str, *, max_length: int = 200) -> str | None:
    """A query parameter of at most `max_length` characters (its documented limit), or None."""
    value = single_query_value(args, name)
    if value is not None and (len(value) > max_length or not storable(value)):
        raise invalid(f"{name} must be at most {max_length} characters.", field=name)
    return value


def query_choice(args, name: str, choices: tuple[str, ...] | frozenset[str]) -> str | None:
    value = single_query_value(args, name)
    if value is not None and value not in choices:
        raise invalid(f"{name} must be one of {', '.join(sorted(choices))}.", field=name, allowed=sorted(choices))
    return value


def identifier(body: dict, name: str, *, required: bool = False, default: str | None = None) -> str | None:
    value = text(body, name, required=required, default=default, max_length=63)
    if value is not None and not _NAME.match(value):
        raise invalid(f"{name} must be a name made of letters, digits and underscores.", field=name)
    return value


def boolean(body: dict, name: str, default: bool | None = None) -> bool | None:
    if not _present(body, name, nullable=False):
        return default
    value = body[name]
    if not isinstance(value, bool):
        raise invalid(f"{name} must be true or false.", field=name)
    return value


def integer(body: dict, name: str, *, required: bool = False, default: int | None = None,
            minimum: int = 0, maximum: int = MAX_ID, nullable: bool = False) -> int | None:
    if not _present(body, name, nullable):
        if required:
            raise invalid(f"{name} is required.", field=name)
        return default
    value = whole_number(body[name])
    if value is None or not minimum <= value <= maximum:
        raise invalid(f"{name} must be a whole number between {minimum} and {maximum}.", field=name)
    return value


def string_list(body: dict, name: str, *, max_items: int = 500, max_length: int = 200,
                required: bool = False) -> list[str]:
    if not _present(body, name, nullable=False):
        if required:
            raise invalid(f"{name} is required.", field=name)
        return []
    value = body[name]
    if not isinstance(value, list) or len(value) > max_items or not all(
            isinstance(item, str) and 0 < len(item) <= max_length and storable(item) for item in value):
        raise invalid(f"{name} must be a list of non-empty strings.", field=name)
    return value


def mapping(body: dict, name: str, *, required: bool = False) -> dict[str, Any]:
    if not _present(body, name, nullable=False):
        if required:
            raise invalid(f"{name} is required.", field=name)
        return {}
    value = body[name]
    if not isinstance(value, dict):
        raise invalid(f"{name} must be a JSON object.", field=name)
    return value


def one_of(body: dict, name: str, choices: tuple[str, ...], *, required: bool = False,
           default: str | None = None, nullable: bool = False) -> str | None:
    value = text(body, name, required=required, default=default, nullable=nullable)
    if value is not None and value not in choices:
        raise invalid(f"{name} must be one of {', '.join(choices)}.", field=name, allowed=list(choices))
    return value


def path_id(value: Any, what: str) -> int:
    """An id from a URL: anything that is not a positive 64-bit integer is simply not found."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise not_found(what) from None
    if not 0 < number <= MAX_ID:
        raise not_found(what)
    return number
