"""The event model of the collector and its validation, per event.

A server event (spec table "Server event") and a browser event (the tracking script's payload,
collector_app/tracker/README.md) are checked field by field here. A refused event gives an
`EventRefused(code, message)`; the message names the field and the rule, never the value, so
that nothing sent (an IP address, a user agent) can come back in a response or a log line.

Rules beyond the spec (the spec leaves them open):

- event names: 1 to 64 characters among letters, digits and `_ . : -`; `pageview` is reserved;
- `at`: ISO 8601 with a time zone, at most 72 hours in the past, at most 5 minutes in the future;
- url and referrer: at most 2,048 characters, title 500, user agent 1,000, user id 200;
- props: at most 30, flat (string, finite number or boolean), keys at most 64 characters, string
  values at most 500; `transaction_id` a string, `value` a number, `currency` three letters;
- items: at most 50, each an object of id and name (strings of at most 200, one of them required),
  price and quantity (numbers);
- visitor: the `_vis` cookie value, 22 to 64 characters among letters, digits, `_` and `-`;
- null is never a value: "a missing field is omitted, never sent as null"; unknown fields refuse
  the event, so that a misspelt field is noticed instead of silently dropped;
- browser events: text past its limit (url, referrer, title, property values, item id and name)
  is cut to the limit instead. The page is what it is (a long title, a link with a long address,
  a long product name), its visitors cannot change it and nobody reads a beacon's answer: refusing
  would lose every event of such a page. A server caller reads the refusal and fixes its request.
"""
from __future__ import annotations

import functools
import math
import re
import socket
from datetime import datetime, timedelta, timezone
from typing import Any

MAX_EVENTS_PER_REQUEST = 100
MAX_BROWSER_EVENTS_PER_REQUEST = 50
MAX_AGE = timedelta(hours=72)
MAX_CLOCK_SKEW = timedelta(minutes=5)
# The script sends what it queued at the latest when the page is hidden; older stamps are capped.
MAX_BATCH_SPAN = timedelta(minutes=30)
MAX_URL_LENGTH = 2048
MAX_TITLE_LENGTH = 500
MAX_USER_AGENT_LENGTH = 1000
MAX_USER_ID_LENGTH = 200
MAX_PROPS = 30
MAX_PROP_KEY_LENGTH = 64
MAX_PROP_VALUE_LENGTH = 500
MAX_ITEMS = 50
MAX_ITEM_TEXT_LENGTH = 200
# Money and quantities beyond this are mistakes, and would not fit raw.events.revenue.
MAX_AMOUNT = 1e12

EVENT_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
VISITOR_COOKIE = re.compile(r"[A-Za-z0-9_-]{22,64}")
LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}")
CURRENCY = re.compile(r"[A-Z]{3}")
PAGE_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
SCREEN_CLASSES = frozenset({"mobile", "tablet", "desktop"})
# PostgreSQL text cannot hold NUL, and a lone surrogate cannot be encoded as UTF-8: either would
# make the whole group commit fail, so they are refused at the edge.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

SERVER_FIELDS = frozenset({"type", "name", "at", "url", "referrer", "title", "props", "items",
                           "visitor", "user_id", "ip", "user_agent", "language"})
BROWSER_FIELDS = frozenset({"type", "name", "url", "referrer", "title", "props", "items",
                            "language", "screen", "page_id", "ts"})
ITEM_FIELDS = frozenset({"id", "name", "price", "quantity"})


class EventRefused(ValueError):
    """One event is invalid: `code` is stable, `message` says which rule, never the value."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def canonical_ip(value: Any) -> str | None:
    """The address in its canonical text form (one spelling per address, so one daily hash), or
    None when `value` is not an IPv4 or IPv6 address. inet_pton is strict and fast."""
    if not isinstance(value, str) or len(value) > 45:
        return None
    for family in (socket.AF_INET, socket.AF_INET6) if ":" not in value else (socket.AF_INET6,):
        try:
            return socket.inet_ntop(family, socket.inet_pton(family, value))
        except (OSError, ValueError):
            continue
    return None


def _text(event: dict, field: str, limit: int, cut: bool = False) -> str | None:
    value = event.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        raise EventRefused("invalid_type", f"{field} must be a string")
    if not value:
        raise EventRefused("invalid_value", f"{field} must not be empty (omit it instead)")
    if len(value) > limit:
        if not cut:
            raise EventRefused("too_long", f"{field} must be at most {limit} characters")
        value = value[:limit]
    if _unstorable(value):
        raise EventRefused("invalid_value", f"{field} holds a character that cannot be stored")
    return value


def _unstorable(value: str) -> bool:
    # isascii() reads a flag of the string object: the common case skips the regular expression.
    return "\x00" in value if value.isascii() else _UNSTORABLE.search(value) is not None


def _number(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and math.isfinite(value))


def _amount(value: Any, field: str) -> float | int:
    if not _number(value):
        raise EventRefused("invalid_type", f"{field} must be a number")
    if abs(value) >= MAX_AMOUNT:
        raise EventRefused("invalid_value", f"{field} must be below {MAX_AMOUNT:.0e} in absolute value")
    return value


def _check_no_null(event: dict) -> None:
    if None not in event.values():
        return
    field = next(name for name, value in event.items() if value is None)
    raise EventRefused("null_value", f"{field} is null: omit a missing field instead")


def _check_known_fields(event: dict, known: frozenset[str]) -> None:
    if event.keys() <= known:
        return
    unknown = event.keys() - known
    if unknown:
        names = ", ".join(sorted(name[:64] for name in unknown)[:5])
        raise EventRefused("unknown_field", f"unknown field(s): {names}")


def _type_and_name(event: dict) -> tuple[str, str]:
    kind = event.get("type")
    if kind is None:
        raise EventRefused("missing_field", "type is required")
    if kind not in ("pageview", "event"):
        raise EventRefused("invalid_value", "type must be pageview or event")
    name = event.get("name")
    if kind == "pageview":
        if name is not None:
            raise EventRefused("invalid_value", "name is only for type event")
        return kind, "pageview"
    if name is None:
        raise EventRefused("missing_field", "name is required when type is event")
    if not isinstance(name, str):
        raise EventRefused("invalid_type", "name must be a string")
    if not EVENT_NAME.fullmatch(name):
        raise EventRefused("invalid_value",
                           "name must be 1 to 64 characters among letters, digits and _ . : -")
    if name == "pageview":
        raise EventRefused("invalid_value", "name pageview is reserved: send type pageview instead")
    return kind, name


def _props(event: dict, cut: bool = False) -> dict | None:
    props = event.get("props")
    if props is None:
        return None
    if not isinstance(props, dict):
        raise EventRefused("invalid_type", "props must be an object")
    if len(props) > MAX_PROPS:
        raise EventRefused("too_many", f"props may hold at most {MAX_PROPS} properties")
    shortened = {}
    for key, value in props.items():
        if not key or len(key) > MAX_PROP_KEY_LENGTH or _unstorable(key):
            raise EventRefused("invalid_value", f"property names must be 1 to {MAX_PROP_KEY_LENGTH} characters")
        if value is None:
            raise EventRefused("null_value", "props holds a null: omit a missing property instead")
        if isinstance(value, str):
            if len(value) > MAX_PROP_VALUE_LENGTH:
                if not cut:
                    raise EventRefused("too_long", f"property values must be at most {MAX_PROP_VALUE_LENGTH} characters")
                shortened[key] = value[:MAX_PROP_VALUE_LENGTH]
            if _unstorable(value):
                raise EventRefused("invalid_value", "a property value holds a character that cannot be stored")
        elif not (isinstance(value, bool) or _number(value)):
            raise EventRefused("invalid_type", "property values must be strings, finite numbers or booleans (props are flat)")
    if "transaction_id" in props and not isinstance(props["transaction_id"], str):
        raise EventRefused("invalid_type", "props.transaction_id must be a string")
    if "value" in props:
        _amount(props["value"], "props.value")
    if "currency" in props and not (isinstance(props["currency"], str) and CURRENCY.fullmatch(props["currency"])):
        raise EventRefused("invalid_value", "props.currency must be three capital letters (ISO 4217)")
    return {**props, **shortened} if shortened else props


def _items(event: dict, cut: bool = False) -> list | None:
    items = event.get("items")
    if items is None:
        return None
    if not isinstance(items, list):
        raise EventRefused("invalid_type", "items must be an array")
    if len(items) > MAX_ITEMS:
        raise EventRefused("too_many", f"items may hold at most {MAX_ITEMS} entries")
    checked = []
    for item in items:
        if not isinstance(item, dict):
            raise EventRefused("invalid_type", "each item must be an object")
        _check_known_fields_of_item(item)
        for field in ("id", "name"):
            value = _text(item, field, MAX_ITEM_TEXT_LENGTH, cut)
            if value is not None and len(value) < len(item[field]):
                item = {**item, field: value}
        if "id" not in item and "name" not in item:
            raise EventRefused("missing_field", "each item needs an id or a name")
        for field in ("price", "quantity"):
            if field in item:
                _amount(item[field], f"item {field}")
        checked.append(item)
    return checked


def _check_known_fields_of_item(item: dict) -> None:
    for field, value in item.items():
        if field not in ITEM_FIELDS:
            raise EventRefused("unknown_field", f"unknown item field: {field[:64]} (allowed: id, name, price, quantity)")
        if value is None:
            raise EventRefused("null_value", f"item {field} is null: omit a missing field instead")


def _occurred_at(event: dict, now: datetime) -> datetime:
    at = event.get("at")
    if at is None:
        return now
    if not isinstance(at, str) or len(at) > 40:
        raise EventRefused("invalid_type", "at must be an ISO 8601 date and time string")
    try:
        moment = datetime.fromisoformat(at)
    except ValueError:
        raise EventRefused("invalid_value", "at must be an ISO 8601 date and time") from None
    if moment.tzinfo is None:
        raise EventRefused("invalid_value", "at must carry a time zone (Z or an offset)")
    if moment < now - MAX_AGE:
        raise EventRefused("too_old", "at is more than 72 hours in the past")
    if moment > now + MAX_CLOCK_SKEW:
        raise EventRefused("in_future", "at is more than 5 minutes in the future")
    return moment.astimezone(timezone.utc)


def _page_fields(event: dict, cut: bool = False) -> dict:
    return {
        "url": _text(event, "url", MAX_URL_LENGTH, cut),
        "referrer": _text(event, "referrer", MAX_URL_LENGTH, cut),
        "title": _text(event, "title", MAX_TITLE_LENGTH, cut),
    }


def _language(event: dict) -> str | None:
    language = event.get("language")
    if language is None:
        return None
    if not isinstance(language, str) or len(language) > 35 or not _is_language_tag(language):
        raise EventRefused("invalid_value", "language must be a language tag such as fr or fr-FR")
    return language


@functools.lru_cache(maxsize=1024)
def _is_language_tag(tag: str) -> bool:
    # A site's visitors speak a handful of languages: the match is cached like the page URLs.
    return LANGUAGE.fullmatch(tag) is not None


def _visitor(event: dict) -> str | None:
    visitor = event.get("visitor")
    if visitor is not None and not (isinstance(visitor, str) and VISITOR_COOKIE.fullmatch(visitor)):
        raise EventRefused("invalid_value", "visitor must be the _vis cookie value (22 to 64 letters, digits, _ or -)")
    return visitor


def _user_id(event: dict, accept_user_id: bool) -> str | None:
    user_id = _text(event, "user_id", MAX_USER_ID_LENGTH)
    if user_id is not None and not accept_user_id:
        raise EventRefused("user_id_not_accepted", "this site does not accept signed-in visitors: omit user_id")
    return user_id


def _ip(event: dict) -> str | None:
    ip = event.get("ip")
    if ip is None:
        return None
    canonical = canonical_ip(ip)
    if canonical is None:
        raise EventRefused("invalid_value", "ip must be an IPv4 or IPv6 address")
    return canonical


def validate_server_event(event: Any, *, now: datetime, accept_user_id: bool) -> dict:
    """Check one event of `POST /collect/server`; returns its fields (ip and user_agent included,
    for the caller to derive the visitor and drop), or raises EventRefused."""
    if not isinstance(event, dict):
        raise EventRefused("invalid_type", "an event must be an object")
    _check_no_null(event)
    _check_known_fields(event, SERVER_FIELDS)
    kind, name = _type_and_name(event)
    # One dict literal, checked left to right (the first broken rule is the one reported): this
    # runs for every event of every batch, and building the fields in steps cost a microsecond.
    return {"type": kind, "name": name, "occurred_at": _occurred_at(event, now) if "at" in event else now,
            "url": _text(event, "url", MAX_URL_LENGTH), "referrer": _text(event, "referrer", MAX_URL_LENGTH),
            "title": _text(event, "title", MAX_TITLE_LENGTH), "props": _props(event) if "props" in event else None,
            "items": _items(event) if "items" in event else None, "language": _language(event),
            "visitor": _visitor(event), "user_id": _user_id(event, accept_user_id), "ip": _ip(event),
            "user_agent": _text(event, "user_agent", MAX_USER_AGENT_LENGTH)}


def browser_event_times(events: list, now: datetime) -> list[datetime]:
    """The time of each event of one beacon: the time of receipt, less how much earlier than the
    beacon's latest event the script stamped it (`ts`, capped at MAX_BATCH_SPAN).

    A visitor's clock is not to be trusted, but its offset cancels out of the differences: events
    keep their order and spacing within a beacon (a click, then the page leave) while the times
    stay on the server's clock. Events without a usable `ts` are placed at the time of receipt.
    """
    stamps = [event.get("ts") if isinstance(event, dict) and _number(event.get("ts")) else None
              for event in events]
    latest = max((ts for ts in stamps if ts is not None), default=None)
    span_ms = MAX_BATCH_SPAN.total_seconds() * 1000
    return [now if ts is None or ts >= latest else now - timedelta(milliseconds=min(latest - ts, span_ms))
            for ts in stamps]


def validate_browser_event(event: Any, *, occurred_at: datetime) -> dict:
    """Check one event of the tracking script's payload; returns its fields, or raises EventRefused.

    The event time is `occurred_at`, on the server's clock (see `browser_event_times`). Text past
    its limit is cut, not refused (see the module's docstring).
    """
    if not isinstance(event, dict):
        raise EventRefused("invalid_type", "an event must be an object")
    _check_no_null(event)
    _check_known_fields(event, BROWSER_FIELDS)
    kind, name = _type_and_name(event)
    screen = event.get("screen")
    if screen is not None and screen not in SCREEN_CLASSES:
        raise EventRefused("invalid_value", "screen must be mobile, tablet or desktop")
    page_id = event.get("page_id")
    if page_id is not None and not (isinstance(page_id, str) and PAGE_ID.fullmatch(page_id)):
        raise EventRefused("invalid_value", "page_id must be 8 to 64 letters, digits, _ or -")
    if "ts" in event and not _number(event["ts"]):
        raise EventRefused("invalid_type", "ts must be a number (milliseconds since the epoch)")
    return {"type": kind, "name": name, "occurred_at": occurred_at, **_page_fields(event, cut=True),
            "props": _props(event, cut=True), "items": _items(event, cut=True), "language": _language(event),
            "screen": screen, "page_id": page_id}
