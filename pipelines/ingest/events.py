"""Decoding and checking one event: the types of `event_model.py`, then the rules types cannot say.

msgspec decodes an event into its `Struct` (`ServerEvent`, `BrowserEvent`) and checks types,
required fields, lengths, patterns and enums in compiled code. The rules below run after it, once,
in Python. A refused event gives an `EventRefused(code, message)`; the message names the field
and the rule, never the value, so that nothing sent (an IP address, a user agent) can come back
in a response or a log line.

When decoding fails, `_Refusals` walks the event's fields in the Struct's order, converting each
on its own to learn which rule it broke first, and maps msgspec's error to the code and message
the API has always answered (`invalid_type`, `too_long`, ...): the error path is rare, and the
answer stays the same whichever library checked.

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
- text that PostgreSQL cannot store (NUL, a lone surrogate) is refused;
- browser events: text past its limit (url, referrer, title, property values, item id and name)
  is cut to the limit instead. The page is what it is (a long title, a link with a long address,
  a long product name), its visitors cannot change it and nobody reads a beacon's answer: refusing
  would lose every event of such a page. A server caller reads the refusal and fixes its request.
"""
from __future__ import annotations

import math
import re
import socket
import typing
from datetime import datetime, timedelta, timezone
from typing import Any

import msgspec
from msgspec import UNSET, Raw

from pipelines.ingest.event_model import (MAX_AMOUNT, MAX_BROWSER_EVENTS_PER_REQUEST, MAX_EVENTS_PER_REQUEST,
                                          MAX_ITEM_TEXT_LENGTH, MAX_ITEMS, MAX_PROP_KEY_LENGTH,
                                          MAX_PROP_VALUE_LENGTH, MAX_PROPS, MAX_TITLE_LENGTH, MAX_URL_LENGTH,
                                          BrowserEvent, BrowserItem, Item, ServerEvent)
from pipelines.ingest.json_bodies import parse_json

__all__ = ["MAX_EVENTS_PER_REQUEST", "MAX_BROWSER_EVENTS_PER_REQUEST", "VISITOR_COOKIE", "EventRefused",
           "canonical_ip", "check_server_event", "check_browser_event", "browser_event_times"]

MAX_AGE = timedelta(hours=72)
MAX_CLOCK_SKEW = timedelta(minutes=5)
# The script sends what it queued at the latest when the page is hidden; older stamps are capped.
MAX_BATCH_SPAN = timedelta(minutes=30)
VISITOR_COOKIE = re.compile(r"[A-Za-z0-9_-]{22,64}")
CURRENCY = re.compile(r"[A-Z]{3}")
# PostgreSQL text cannot hold NUL, and a lone surrogate cannot be encoded as UTF-8: either would
# make the whole group commit fail, so they are refused at the edge.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# JSON writes both only as \u escapes: an event without one holds neither (see check_server_event).
_ESCAPE = b"\\u"
_MISSING = object()


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
    try:
        if ":" in value:
            return socket.inet_ntop(socket.AF_INET6, socket.inet_pton(socket.AF_INET6, value))
        packed = socket.inet_pton(socket.AF_INET, value)
    except (OSError, ValueError):
        return None
    return value if _IPV4_TEXT_IS_CANONICAL else socket.inet_ntop(socket.AF_INET, packed)


def _ipv4_text_is_canonical() -> bool:
    """Whether this C library's inet_pton takes IPv4 only in canonical form (four decimal numbers
    without leading zeros, as glibc's and musl's do): then an address it takes is its own canonical
    text, and inet_ntop (a third of the check's time) is skipped."""
    try:
        socket.inet_pton(socket.AF_INET, "01.2.3.4")
    except OSError:
        return True
    return False


_IPV4_TEXT_IS_CANONICAL = _ipv4_text_is_canonical()


# --- the rules types cannot say, each once

def _storable(field: str, value: str) -> None:
    # isascii() reads a flag of the string object: the common case skips the regular expression.
    if ("\x00" in value) if value.isascii() else _UNSTORABLE.search(value) is not None:
        raise EventRefused("invalid_value", f"{field} holds a character that cannot be stored")


def _name(kind: str, name) -> str:
    """The event's name once its type is known: `pageview` for a page view."""
    if kind == "pageview":
        if name is not UNSET:
            raise EventRefused("invalid_value", "name is only for type event")
        return "pageview"
    if name is UNSET:
        raise EventRefused("missing_field", "name is required when type is event")
    if name == "pageview":
        raise EventRefused("invalid_value", "name pageview is reserved: send type pageview instead")
    return name


def _occurred_at(at, now: datetime) -> datetime:
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


def _props_storable(props: dict) -> None:
    for key, value in props.items():
        if ("\x00" in key) if key.isascii() else _UNSTORABLE.search(key) is not None:
            raise EventRefused("invalid_value", f"property names must be 1 to {MAX_PROP_KEY_LENGTH} characters")
        if value.__class__ is str:
            _storable("a property value", value)


def _commerce(props: dict) -> None:
    """The properties a commerce event gives a meaning to."""
    if "transaction_id" in props and not isinstance(props["transaction_id"], str):
        raise EventRefused("invalid_type", "props.transaction_id must be a string")
    if "value" in props:
        _amount(props["value"], "props.value")
    if "currency" in props and not (isinstance(props["currency"], str) and CURRENCY.fullmatch(props["currency"])):
        raise EventRefused("invalid_value", "props.currency must be three capital letters (ISO 4217)")


def _amount(value, field: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise EventRefused("invalid_type", f"{field} must be a number")
    if abs(value) >= MAX_AMOUNT:
        raise EventRefused("invalid_value", f"{field} must be below {MAX_AMOUNT:.0e} in absolute value")


def _item(item, escaped: bool) -> None:
    if escaped:
        if item.id:
            _storable("id", item.id)
        if item.name:
            _storable("name", item.name)
    if item.id is UNSET and item.name is UNSET:
        raise EventRefused("missing_field", "each item needs an id or a name")


def _user_id_accepted(accept_user_id: bool) -> None:
    if not accept_user_id:
        raise EventRefused("user_id_not_accepted", "this site does not accept signed-in visitors: omit user_id")


def _ip(ip) -> str:
    canonical = canonical_ip(ip)
    if canonical is None:
        raise EventRefused("invalid_value", "ip must be an IPv4 or IPv6 address")
    return canonical


def _cut(text: str, limit: int) -> str:
    return text[:limit] if len(text) > limit else text


# --- decoding

_server_decoder = msgspec.json.Decoder(ServerEvent)


def _decoded(event, struct: type, decoder: msgspec.json.Decoder | None, escapes: bool = True):
    """The event as its Struct, and whether it may hold a NUL or a surrogate; None when the types
    refuse it. A Raw is decoded from its JSON, anything else converted from Python objects."""
    try:
        if decoder is not None and isinstance(event, Raw):
            return decoder.decode(event), escapes and _ESCAPE in bytes(event)
        return msgspec.convert(event, struct), True
    except (msgspec.ValidationError, msgspec.DecodeError, UnicodeError):
        return None, True


def _python_value(event):
    """A Raw as Python objects (for the error path; the strict reading of every request body)."""
    if not isinstance(event, Raw):
        return event
    try:
        return parse_json(bytes(event))
    except ValueError:
        return _MISSING


def check_server_event(event, *, now: datetime, accept_user_id: bool,
                       escapes: bool = True) -> tuple[ServerEvent, datetime]:
    """Decode and check one event of `POST /collect/server` (undecoded JSON as a `msgspec.Raw`, or
    Python objects); returns it, with its name set and its address canonical, and its time. The
    caller derives the visitor from ip and user_agent, and drops them. Raises EventRefused.
    `escapes` False: the request's body holds no \\u escape, so no Raw event of it holds a NUL or
    a surrogate, and their strings need no look."""
    if event.__class__ is Raw:  # a request body's event: `_decoded` inline (a call less per event)
        try:
            decoded = _server_decoder.decode(event)
        except (msgspec.ValidationError, msgspec.DecodeError, UnicodeError):
            decoded = None
        escaped = escapes and _ESCAPE in bytes(event)
    else:
        decoded, escaped = _decoded(event, ServerEvent, _server_decoder, escapes)
    if decoded is None:
        raise _SERVER_REFUSALS.of(_python_value(event), now=now, accept_user_id=accept_user_id)
    # Each rule in the order of the Struct's fields (`_Refusals` reports in that order too).
    if decoded.type == "pageview" and decoded.name is UNSET:  # `_name`'s commonest case, inline
        decoded.name = "pageview"
    else:
        decoded.name = _name(decoded.type, decoded.name)
    occurred_at = now if decoded.at is UNSET else _occurred_at(decoded.at, now)
    if escaped:
        for field in ("url", "referrer", "title"):
            value = getattr(decoded, field)
            if value:
                _storable(field, value)
    props = decoded.props
    if props:
        if escaped:
            _props_storable(props)
        _commerce(props)
    if decoded.items:
        for item in decoded.items:
            _item(item, escaped)
    if decoded.user_id:
        if escaped:
            _storable("user_id", decoded.user_id)
        _user_id_accepted(accept_user_id)
    if decoded.ip is not UNSET:
        decoded.ip = _ip(decoded.ip)
    if escaped and decoded.user_agent:
        _storable("user_agent", decoded.user_agent)
    return decoded, occurred_at


def check_browser_event(event) -> BrowserEvent:
    """Decode and check one event of the tracking script's payload (Python objects); returns it,
    with its name set and its text cut to the limits, or raises EventRefused. Its time is
    `browser_event_times`'."""
    decoded, _ = _decoded(event, BrowserEvent, None)
    if decoded is None:
        raise _BROWSER_REFUSALS.of(event)
    decoded.name = _name(decoded.type, decoded.name)
    for field, limit in (("url", MAX_URL_LENGTH), ("referrer", MAX_URL_LENGTH), ("title", MAX_TITLE_LENGTH)):
        value = getattr(decoded, field)
        if value:
            _storable(field, value)
            if len(value) > limit:
                setattr(decoded, field, value[:limit])
    props = decoded.props
    if props:
        _props_storable(props)
        _commerce(props)
        decoded.props = {key: _cut(value, MAX_PROP_VALUE_LENGTH) if value.__class__ is str else value
                         for key, value in props.items()}
    for item in decoded.items or ():
        _item(item, True)
        if item.id:
            item.id = _cut(item.id, MAX_ITEM_TEXT_LENGTH)
        if item.name:
            item.name = _cut(item.name, MAX_ITEM_TEXT_LENGTH)
    return decoded


def browser_event_times(events: list, now: datetime) -> list[datetime]:
    """The time of each event of one beacon: the time of receipt, less how much earlier than the
    beacon's latest event the script stamped it (`ts`, capped at MAX_BATCH_SPAN).

    A visitor's clock is not to be trusted, but its offset cancels out of the differences: events
    keep their order and spacing within a beacon (a click, then the page leave) while the times
    stay on the server's clock. Events without a usable `ts` are placed at the time of receipt.
    """
    stamps = [event.get("ts") if isinstance(event, dict) and _finite(event.get("ts")) else None
              for event in events]
    latest = max((ts for ts in stamps if ts is not None), default=None)
    span_ms = MAX_BATCH_SPAN.total_seconds() * 1000
    return [now if ts is None or ts >= latest else now - timedelta(milliseconds=min(latest - ts, span_ms))
            for ts in stamps]


def _finite(value) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and math.isfinite(value))


# --- the error path: which rule an event broke first, in the API's words

# How each field is checked, by the kind of its rules; types come from the Struct.
_SERVER_FIELDS = {"type": "enum", "name": "name", "at": "at", "url": "text", "referrer": "text", "title": "text",
                  "props": "props", "items": "items", "language": "enum", "visitor": "enum", "user_id": "user_id",
                  "ip": "ip", "user_agent": "text"}
_BROWSER_FIELDS = {"type": "enum", "name": "name", "screen": "enum", "page_id": "enum", "ts": "number",
                   "url": "text", "referrer": "text", "title": "text", "props": "props", "items": "items",
                   "language": "enum"}
# The one message of a field whose every failure is an invalid value.
_INVALID = {
    "type": "type must be pageview or event",
    "language": "language must be a language tag such as fr or fr-FR",
    "visitor": "visitor must be the _vis cookie value (22 to 64 letters, digits, _ or -)",
    "screen": "screen must be mobile, tablet or desktop",
    "page_id": "page_id must be 8 to 64 letters, digits, _ or -",
}
_AT_MOST = re.compile(r"of length <= (\d+)")


def _problem(value, hint) -> str | None:
    """msgspec's complaint about `value` as the type `hint`, or None when it fits."""
    try:
        msgspec.convert(value, hint)
    except msgspec.ValidationError as error:
        return str(error)
    except UnicodeError:
        # A lone surrogate, which msgspec cannot encode: judged as another character outside every
        # pattern and enum (of the same length); the rule of storable text reports it otherwise.
        return _problem(_without_surrogates(value), hint)
    return None


def _without_surrogates(value):
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_without_surrogates(key): _without_surrogates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    return value


def _is_type_error(problem: str) -> bool:
    return ", got `" in problem


class _Refusals:
    """The first rule an event breaks, found field by field (see the module's docstring)."""

    def __init__(self, struct: type, item: type, kinds: dict[str, str]):
        self.kinds, self.item = kinds, item
        self.hints = typing.get_type_hints(struct, include_extras=True)
        self.item_hints = typing.get_type_hints(item, include_extras=True)

    def of(self, event, now: datetime | None = None, accept_user_id: bool = False) -> EventRefused:
        try:
            self._check(event, now, accept_user_id)
        except EventRefused as refused:
            return refused
        # The types refused what no rule names (not expected): refuse it all the same.
        return EventRefused("invalid_value", "the event does not match the event schema")

    def _check(self, event, now, accept_user_id) -> None:
        if not isinstance(event, dict):
            raise EventRefused("invalid_type", "an event must be an object")
        if None in event.values():
            field = next(name for name, value in event.items() if value is None)
            raise EventRefused("null_value", f"{field} is null: omit a missing field instead")
        unknown = event.keys() - self.kinds.keys()
        if unknown:
            names = ", ".join(sorted(name[:64] for name in unknown)[:5])
            raise EventRefused("unknown_field", f"unknown field(s): {names}")
        kind = event.get("type", _MISSING)
        for field, rule in self.kinds.items():
            value = event.get(field, _MISSING)
            if field == "name":
                if _name(kind, UNSET if value is _MISSING else value) is value:
                    self._typed(field, rule, value)
            elif value is _MISSING:
                if field == "type":
                    raise EventRefused("missing_field", "type is required")
            elif rule == "at":
                _occurred_at(value, now)
            elif rule == "ip":
                _ip(value)
            else:
                self._typed(field, rule, value)
                if rule in ("text", "user_id"):
                    _storable(field, value)
                if rule == "user_id":
                    _user_id_accepted(accept_user_id)

    def _typed(self, field: str, rule: str, value) -> None:
        if rule == "props":
            return self._props(value)
        if rule == "items":
            return self._items(value)
        problem = _problem(value, self.hints[field])
        if problem is None:
            return
        if rule == "enum":
            raise EventRefused("invalid_value", _INVALID[field])
        if rule == "name":
            if _is_type_error(problem):
                raise EventRefused("invalid_type", "name must be a string")
            raise EventRefused("invalid_value", "name must be 1 to 64 characters among letters, digits and _ . : -")
        if rule == "number":
            raise EventRefused("invalid_type", f"{field} must be a number (milliseconds since the epoch)")
        raise _text_refusal(field, problem)

    def _props(self, props) -> None:
        hint = typing.get_args(self.hints["props"])[0]  # Props | UnsetType
        problem = _problem(props, hint)
        if problem is None:
            _props_storable(props)
            return _commerce(props)
        if not isinstance(props, dict):
            raise EventRefused("invalid_type", "props must be an object")
        if len(props) > MAX_PROPS:
            raise EventRefused("too_many", f"props may hold at most {MAX_PROPS} properties")
        key_hint, value_hint = typing.get_args(typing.get_args(hint)[0])
        for key, value in props.items():
            if _problem(key, key_hint) is not None or _UNSTORABLE.search(key):
                raise EventRefused("invalid_value", f"property names must be 1 to {MAX_PROP_KEY_LENGTH} characters")
            if value is None:
                raise EventRefused("null_value", "props holds a null: omit a missing property instead")
            problem = _problem(value, value_hint)
            if problem is not None and _AT_MOST.search(problem):
                raise EventRefused("too_long", f"property values must be at most {MAX_PROP_VALUE_LENGTH} characters")
            if isinstance(value, str):
                _storable("a property value", value)
            if problem is not None:
                raise EventRefused("invalid_type",
                                   "property values must be strings, finite numbers or booleans (props are flat)")
        _commerce(props)

    def _items(self, items) -> None:
        hints = self.item_hints
        if not isinstance(items, list):
            raise EventRefused("invalid_type", "items must be an array")
        problem = _problem(items, typing.get_args(self.hints["items"])[0])
        if problem is None:
            for item in msgspec.convert(items, list[self.item]):
                _item(item, True)
            return
        if len(items) > MAX_ITEMS:
            raise EventRefused("too_many", f"items may hold at most {MAX_ITEMS} entries")
        for item in items:
            if not isinstance(item, dict):
                raise EventRefused("invalid_type", "each item must be an object")
            for field, value in item.items():
                if field not in hints:
                    raise EventRefused("unknown_field",
                                       f"unknown item field: {field[:64]} (allowed: id, name, price, quantity)")
                if value is None:
                    raise EventRefused("null_value", f"item {field} is null: omit a missing field instead")
            for field in ("id", "name"):
                if field in item:
                    problem = _problem(item[field], hints[field])
                    if problem is not None:
                        raise _text_refusal(field, problem)
                    _storable(field, item[field])
            if "id" not in item and "name" not in item:
                raise EventRefused("missing_field", "each item needs an id or a name")
            for field in ("price", "quantity"):
                if field in item and _problem(item[field], hints[field]) is not None:
                    _amount(item[field], f"item {field}")


def _text_refusal(field: str, problem: str) -> EventRefused:
    """msgspec's complaint about a text field, in the API's words."""
    if _is_type_error(problem):
        return EventRefused("invalid_type", f"{field} must be a string")
    at_most = _AT_MOST.search(problem)
    if at_most:
        return EventRefused("too_long", f"{field} must be at most {at_most.group(1)} characters")
    return EventRefused("invalid_value", f"{field} must not be empty (omit it instead)")


_SERVER_REFUSALS = _Refusals(ServerEvent, Item, _SERVER_FIELDS)
_BROWSER_REFUSALS = _Refusals(BrowserEvent, BrowserItem, _BROWSER_FIELDS)
