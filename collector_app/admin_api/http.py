"""Request parsing and JSON rendering shared by the admin routes."""
from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal
from typing import Any

from flask import Response, g, request

from collector_app.errors import ApiError
from pipelines.admin.errors import InvalidInput
from pipelines.admin.validation import require_object


def to_json(value: Any) -> Any:
    """Database values as JSON: ISO 8601 times, UUID strings, numbers for decimals."""
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def respond(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(to_json(value), ensure_ascii=False), status=status, headers=headers,
                    mimetype="application/json")


def no_content() -> Response:
    return Response(status=204)


def json_body() -> dict[str, Any]:
    """The request body, a JSON object (any content type is tried): 400 `invalid_json` when it is
    not JSON, 422 when it is missing or not an object (even where every field is optional)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise InvalidInput("the request needs a JSON object as its body", {"field": "body"})
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(400, "invalid_json", "The request body is not valid JSON.") from None
    return require_object(body)


def actor() -> str:
    return g.admin.actor


def _single_arg(name: str) -> str | None:
    """A query parameter given at most once: a repeated one is refused, never half read."""
    values = request.args.getlist(name)
    if len(values) > 1:
        raise ApiError(400, "invalid_parameter", f"{name} may be given only once", {"parameter": name})
    return values[0] if values else None


def int_arg(name: str, *, default: int, minimum: int, maximum: int) -> int:
    raw = _single_arg(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not minimum <= value <= maximum:
        raise ApiError(400, "invalid_parameter", f"{name} must be a whole number from {minimum} to {maximum}",
                       {"parameter": name})
    return value


def text_arg(name: str, *, max_length: int = 200) -> str | None:
    raw = _single_arg(name)
    if raw is None or raw == "":
        return None
    if len(raw) > max_length or "\x00" in raw:
        raise ApiError(400, "invalid_parameter", f"{name} must have at most {max_length} characters",
                       {"parameter": name})
    return raw


def datetime_arg(name: str) -> dt.datetime | None:
    raw = _single_arg(name)
    if raw is None:
        return None
    try:
        # A "+" of an offset left unencoded in a query string arrives as a space.
        value = dt.datetime.fromisoformat(raw.strip().replace(" ", "+"))
    except ValueError:
        raise ApiError(400, "invalid_parameter", f"{name} must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z",
                       {"parameter": name}) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    if not dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) <= value <= dt.datetime(9999, 1, 1, tzinfo=dt.timezone.utc):
        raise ApiError(400, "invalid_parameter", f"{name} is out of range", {"parameter": name})
    return value


def date_arg(name: str) -> dt.date | None:
    raw = _single_arg(name)
    if raw is None:
        return None
    try:
        if len(raw) != 10:
            raise ValueError
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise ApiError(400, "invalid_parameter", f"{name} must be a date as YYYY-MM-DD", {"parameter": name}) from None
