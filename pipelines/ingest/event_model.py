"""The event, defined once: the server event, the browser event and their parts (props, items) as
msgspec `Struct`s.

The same definitions serve three readers:

- decoding: msgspec decodes a request's JSON into them and checks types, required fields, lengths,
  patterns and enums in compiled code, in one pass (`pipelines/ingest/events.py` drives it);
- the OpenAPI document of the collector: `schema_components` gives its event components
  (`collector_app/openapi/document.py`), so the document cannot disagree with what is accepted;
- the rules that a type cannot say (at most 72 hours back, `user_id` only where the site accepts
  it, an item needs an id or a name, ...) are in `events.py`, once, and run after decoding.

An absent field is `UNSET` (falsy), never None: "a missing field is omitted, never sent as null",
so no field's type admits null and a null is refused like any other wrong type.

Patterns end in `$(?!\\n)`: they are searched (by msgspec, and by JSON Schema validators), and with
Python's `re` a `$` alone also matches before a final newline. The lookahead means the same in
ECMAScript's dialect, JSON Schema's, where it changes nothing: the document shows them as they are.
"""
from __future__ import annotations

import sys
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType

MAX_EVENTS_PER_REQUEST = 100
MAX_BROWSER_EVENTS_PER_REQUEST = 50
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
_LARGEST_FLOAT = sys.float_info.max


def _matching(core: str, **meta) -> Any:
    """Text that matches the regular expression `core` as a whole (see the module's docstring)."""
    return Annotated[str, Meta(pattern=f"^{core}{END_OF_TEXT}", **meta)]


END_OF_TEXT = "$(?!\\n)"
EVENT_NAME = "[A-Za-z0-9_.:-]{1,64}"
VISITOR_COOKIE = "[A-Za-z0-9_-]{22,64}"
LANGUAGE = "[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}"
PAGE_ID = "[A-Za-z0-9_-]{8,64}"


def _text(limit: int | None, description: str | None = None) -> Any:
    """Text of 1 to `limit` characters (no upper limit for None: browser text is cut, not refused)."""
    return Annotated[str, Meta(min_length=1, max_length=limit, description=description)]


# A number that fits raw.events.revenue: finite, below MAX_AMOUNT in absolute value.
Amount = (Annotated[int, Meta(gt=-int(MAX_AMOUNT), lt=int(MAX_AMOUNT))]
          | Annotated[float, Meta(gt=-MAX_AMOUNT, lt=MAX_AMOUNT)])
# JSON cannot write NaN or Infinity, but 1e999 reads as infinity: the bounds keep numbers finite.
FiniteNumber = int | Annotated[float, Meta(ge=-_LARGEST_FLOAT, le=_LARGEST_FLOAT)]
PropName = Annotated[str, Meta(min_length=1, max_length=MAX_PROP_KEY_LENGTH)]
EventName = _matching(EVENT_NAME, description="Required when type is event; pageview is reserved (send type "
                                               "pageview).")
Language = _matching(LANGUAGE, max_length=35, description="A language tag such as fr or fr-FR.")
VisitorCookie = _matching(VISITOR_COOKIE, description="Value of the visitor's _vis cookie.")
EventType = Literal["pageview", "event"]
_PROPS_DESCRIPTION = ("Flat properties (string, finite number or boolean); commerce: transaction_id (string), "
                      "value (number, below 1e12 in absolute value), currency (three capital letters, ISO 4217).")
Props = Annotated[dict[PropName, Annotated[str, Meta(max_length=MAX_PROP_VALUE_LENGTH)] | FiniteNumber | bool],
                  Meta(max_length=MAX_PROPS, description=_PROPS_DESCRIPTION)]
# The script's page may hold longer text than the limits: it is cut instead (events.py).
BrowserProps = Annotated[dict[PropName, str | FiniteNumber | bool], Meta(max_length=MAX_PROPS)]


# gc=False: a hundred events per request are not tracked by the garbage collector (0.3 us each, and
# fewer collections). Safe as long as no event refers back to itself: its fields are text, numbers,
# dicts of those, and items, which are alike.
_EVENT_PART = {"forbid_unknown_fields": True, "omit_defaults": True, "gc": False}


class Item(Struct, **_EVENT_PART):
    """A product of a commerce event: an id or a name at least."""

    id: _text(MAX_ITEM_TEXT_LENGTH) | UnsetType = UNSET
    name: _text(MAX_ITEM_TEXT_LENGTH) | UnsetType = UNSET
    price: Amount | UnsetType = UNSET
    quantity: Amount | UnsetType = UNSET


class BrowserItem(Struct, **_EVENT_PART):
    """An item as the tracking script sends it: id and name past 200 characters are cut."""

    id: _text(None) | UnsetType = UNSET
    name: _text(None) | UnsetType = UNSET
    price: Amount | UnsetType = UNSET
    quantity: Amount | UnsetType = UNSET


class ServerEvent(Struct, **_EVENT_PART):
    """A missing field is omitted, never null. Without visitor and without ip/user_agent the event is
    stored without a visitor (visitor_kind none). Fields are checked in this order: the first rule
    an event breaks is the one reported."""

    type: EventType
    name: EventName | UnsetType = UNSET
    at: Annotated[str, Meta(max_length=40, extra_json_schema={"format": "date-time"}, description=(
        "ISO 8601 with a time zone; at most 72 hours in the past, at most 5 minutes ahead; default now."))] \
        | UnsetType = UNSET
    url: _text(MAX_URL_LENGTH) | UnsetType = UNSET
    referrer: _text(MAX_URL_LENGTH) | UnsetType = UNSET
    title: _text(MAX_TITLE_LENGTH) | UnsetType = UNSET
    props: Props | UnsetType = UNSET
    items: Annotated[list[Item], Meta(max_length=MAX_ITEMS)] | UnsetType = UNSET
    language: Language | UnsetType = UNSET
    visitor: VisitorCookie | UnsetType = UNSET
    user_id: _text(MAX_USER_ID_LENGTH, "Only for sites that accept signed-in visitors; refused otherwise.") \
        | UnsetType = UNSET
    ip: Annotated[str, Meta(description="IPv4 or IPv6; used for the daily hash and the country, then discarded.")] \
        | UnsetType = UNSET
    user_agent: _text(MAX_USER_AGENT_LENGTH, "Used for the daily hash and reduced to browser, OS and device class.") \
        | UnsetType = UNSET


class BrowserEvent(Struct, **_EVENT_PART):
    """An event of the tracking script (collector_app/tracker/README.md). Text past the server
    event's limits (url, referrer, title, property values, item id and name) is cut, not refused."""

    type: EventType
    name: EventName | UnsetType = UNSET
    screen: Literal["mobile", "tablet", "desktop"] | UnsetType = UNSET
    page_id: _matching(PAGE_ID, description="The page view's id, shared by its events.") | UnsetType = UNSET
    ts: Annotated[FiniteNumber, Meta(description=(
        "The page's clock, epoch milliseconds. Only differences within one request count: each event is stored "
        "at the time of receipt less how much earlier than the request's latest event it was stamped "
        "(at most 30 minutes)."))] | UnsetType = UNSET
    url: _text(None) | UnsetType = UNSET
    referrer: _text(None) | UnsetType = UNSET
    title: _text(None) | UnsetType = UNSET
    props: BrowserProps | UnsetType = UNSET
    items: Annotated[list[BrowserItem], Meta(max_length=MAX_ITEMS)] | UnsetType = UNSET
    language: Language | UnsetType = UNSET


class ServerBatch(Struct, forbid_unknown_fields=True):
    """The body of POST /collect/server. Each event is decoded on its own (a refused event does not
    refuse the batch): here they stay undecoded JSON."""

    events: Annotated[list[Raw], Meta(min_length=1, max_length=MAX_EVENTS_PER_REQUEST)]


class BrowserBatch(Struct, forbid_unknown_fields=True):
    """The body of POST /collect, sent by the tracking script (as text/plain to avoid a CORS
    preflight). The beacon reads the site first (an unknown site or origin is refused before the
    shape is looked at), then this shape; each event is checked on its own."""

    site: Annotated[str, Meta(extra_json_schema={"format": "uuid"}, description="The site's id.")]
    events: Annotated[list[BrowserEvent], Meta(min_length=1, max_length=MAX_BROWSER_EVENTS_PER_REQUEST)]
    visitor: VisitorCookie | UnsetType = UNSET


# The document's view of a server batch: its events are ServerEvents (decoded one by one later).
class _ServerBatchDocument(Struct, forbid_unknown_fields=True):
    """The body of POST /collect/server: each event is checked on its own, and a refused one is
    listed in the answer while the others are stored."""

    events: Annotated[list[ServerEvent], Meta(min_length=1, max_length=MAX_EVENTS_PER_REQUEST)]


def schema_components() -> dict[str, dict]:
    """The OpenAPI 3.1 schemas of the event model, by component name, as msgspec generates them from
    the Structs above: ServerBatch, ServerEvent, Item, BrowserBatch, BrowserEvent, BrowserItem."""
    _, components = msgspec.json.schema_components(
        [_ServerBatchDocument, BrowserBatch], ref_template="#/components/schemas/{name}")
    components["ServerBatch"] = components.pop(_ServerBatchDocument.__name__)
    components["ServerBatch"]["title"] = "ServerBatch"
    for schema in components.values():  # docstrings as one paragraph
        if "description" in schema:
            schema["description"] = " ".join(schema["description"].split())
    return components

