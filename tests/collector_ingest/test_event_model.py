"""The event model defined once (pipelines/ingest/event_model.py): msgspec decodes and checks, and
a refused event still answers the code and message the API answered before msgspec (the hand-written
checks), the first broken rule in field order; the OpenAPI document's event schemas are generated
from the same Structs and agree with the decoder."""
from __future__ import annotations

import json

import hmac
import hashlib
import msgspec
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from collector_app.openapi import openapi_document
from pipelines.ingest.event_model import BrowserEvent, ServerEvent, schema_components
from pipelines.ingest.visitors import visitor_hash
from tests.collector_ingest.conftest import events_of
from tests.collector_ingest.test_server_events import INVALID_EVENTS

# Events that break more than one rule, or break one where msgspec's words differ from the API's:
# the code and message are those of the hand-written checks that came before (measured on them).
# Text instead of an object where JSON holds what Python's json would not write (1e400).
REFUSALS = [
    ({"type": "pageview", "name": 5}, "invalid_value", "name is only for type event"),
    ({"type": "event", "name": "signup\n"}, "invalid_value",
     "name must be 1 to 64 characters among letters, digits and _ . : -"),
    ({"type": "pageview", "language": "fr\n"}, "invalid_value", "language must be a language tag such as fr or fr-FR"),
    ({"type": "pageview", "visitor": "0123456789abcdefghijklmnop\n"}, "invalid_value",
     "visitor must be the _vis cookie value (22 to 64 letters, digits, _ or -)"),
    ({"type": "pageview", "url": 5, "props": []}, "invalid_type", "url must be a string"),
    ({"type": "pageview", "title": "a\x00b", "props": {"x": {}}}, "invalid_value",
     "title holds a character that cannot be stored"),
    ({"type": "pageview", "at": "yesterday", "url": 5}, "invalid_value", "at must be an ISO 8601 date and time"),
    ({"type": "pageview", "props": {"a": "b\x00", "c": []}}, "invalid_value",
     "a property value holds a character that cannot be stored"),
    ('{"type": "pageview", "props": {"a": 1e400}}', "invalid_type",
     "property values must be strings, finite numbers or booleans (props are flat)"),
    ({"type": "pageview", "props": {"value": True}}, "invalid_type", "props.value must be a number"),
    ({"type": "pageview", "props": {"value": 1e12}}, "invalid_value", "props.value must be below 1e+12 in absolute value"),
    ({"type": "pageview", "props": {"currency": "EUR", "value": "9"}}, "invalid_type", "props.value must be a number"),
    ({"type": "pageview", "items": [{"id": "a"}, {"colour": None}]}, "unknown_field",
     "unknown item field: colour (allowed: id, name, price, quantity)"),
    ({"type": "pageview", "items": [{"name": None, "colour": 1}]}, "null_value",
     "item name is null: omit a missing field instead"),
    ('{"type": "pageview", "items": [{"price": 1e400, "id": "a"}]}', "invalid_type", "item price must be a number"),
    ({"type": "pageview", "items": [{"id": "", "name": "x"}]}, "invalid_value", "id must not be empty (omit it instead)"),
    ({"type": "pageview", "items": [{"id": 5}]}, "invalid_type", "id must be a string"),
    ({"type": "pageview", "items": [{"quantity": -1e12, "name": "n"}]}, "invalid_value",
     "item quantity must be below 1e+12 in absolute value"),
    ({"type": "pageview", "items": [1, {"id": 1}] * 26}, "too_many", "items may hold at most 50 entries"),
    ({"type": "pageview", "user_id": "", "ip": "x"}, "invalid_value", "user_id must not be empty (omit it instead)"),
    ({"type": "pageview", "user_id": "u\x00"}, "invalid_value", "user_id holds a character that cannot be stored"),
    ({"type": "pageview", "ip": "", "user_agent": 5}, "invalid_value", "ip must be an IPv4 or IPv6 address"),
    ({"type": "pageview", "user_agent": ""}, "invalid_value", "user_agent must not be empty (omit it instead)"),
    ({"type": "pageview", "zz": None, "aa": 1}, "null_value", "zz is null: omit a missing field instead"),
    ({"type": None, "zz": 1}, "null_value", "type is null: omit a missing field instead"),
    ({"zz": 1, "yy": 2, "type": "x"}, "unknown_field", "unknown field(s): yy, zz"),
    ({"type": "event", "name": "pageview", "url": ""}, "invalid_value",
     "name pageview is reserved: send type pageview instead"),
    ({"type": "view", "name": 5}, "invalid_value", "type must be pageview or event"),
    ({"type": "pageview", "language": 5, "visitor": "short"}, "invalid_value",
     "language must be a language tag such as fr or fr-FR"),
    ({"type": "pageview", "at": "2026-01-01T10:00:00"}, "invalid_value", "at must carry a time zone (Z or an offset)"),
    ({"type": "pageview", "at": "x" * 41}, "invalid_type", "at must be an ISO 8601 date and time string"),
    ({"type": "pageview", "referrer": "r" * 2049, "title": ""}, "too_long", "referrer must be at most 2048 characters"),
    ({"type": "pageview", "title": "\ud800"}, "invalid_value", "title holds a character that cannot be stored"),
    (["pageview"], "invalid_type", "an event must be an object"),
]


def _json(event) -> str:
    return event if isinstance(event, str) else json.dumps(event)


def test_refusals_keep_their_codes_and_messages_and_the_valid_event_is_stored(client, site, db):
    body = '{"events": [{"type": "pageview"}, ' + ", ".join(_json(event) for event, _, _ in REFUSALS) + "]}"
    r = client.post("/collect/server", data=body.encode(), headers={**site.auth, "Content-Type": "application/json"})
    assert r.status_code == 202
    assert r.json["accepted"] == 1
    assert r.json["rejected"] == [{"index": index, "code": code, "message": message}
                                  for index, (_, code, message) in enumerate(REFUSALS, start=1)]
    assert len(events_of(db, site.site_id)) == 1


def test_the_same_refusals_when_msgspec_cannot_read_the_body(client, site, db):
    """A body in UTF-16 is read by the standard decoder (json.loads reads it): its events are checked
    from Python objects, with the same answers."""
    events = [{"type": "pageview"}, {"type": "pageview", "url": 5, "props": []}, {"zz": 1, "yy": 2, "type": "x"}]
    r = client.post("/collect/server", data=json.dumps({"events": events}).encode("utf-16"),
                    headers={**site.auth, "Content-Type": "application/json"})
    assert r.status_code == 202
    assert r.json == {"accepted": 1, "rejected": [
        {"index": 1, "code": "invalid_type", "message": "url must be a string"},
        {"index": 2, "code": "unknown_field", "message": "unknown field(s): yy, zz"}]}


def test_browser_text_is_cut_and_a_bad_event_refused_alone(client, make_site, db):
    shop = make_site(domains=("shop.example",))
    events = [{"type": "pageview", "url": "https://shop.example/" + "x" * 3000, "page_id": "abcdefgh12",
               "props": {"long": "v" * 600}, "items": [{"id": "i" * 300}]},
              {"type": "pageview", "screen": []}]
    r = client.post("/collect", data=json.dumps({"site": shop.site_id, "events": events}),
                    headers={"Origin": "https://shop.example", "Content-Type": "text/plain",
                             "User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"})
    assert r.status_code == 204
    (row,) = events_of(db, shop.site_id)
    assert len(row["url"]) == 2048 and row["props"] == {"long": "v" * 500} and row["items"] == [{"id": "i" * 200}]


def test_the_document_s_event_schemas_are_generated_from_the_structs():
    schemas = openapi_document()["components"]["schemas"]
    generated = schema_components()
    assert set(generated) == {"ServerBatch", "ServerEvent", "Item", "BrowserBatch", "BrowserEvent", "BrowserItem"}
    for name, schema in generated.items():
        assert schemas[name] == schema, name
    request = openapi_document()["paths"]["/collect/server"]["post"]["requestBody"]["content"]["application/json"]
    assert request["schema"] == {"$ref": "#/components/schemas/ServerBatch"}


def _validator(name: str) -> Draft202012Validator:
    document = openapi_document()
    registry = Registry().with_resource("urn:collector", Resource.from_contents(
        {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": document["components"]}))
    schema = {"$ref": f"urn:collector#/components/schemas/{name}"}
    return Draft202012Validator(schema, registry=registry)


ACCEPTED = [
    {"type": "pageview"},
    {"type": "event", "name": "purchase", "at": "2026-11-27T10:00:00Z", "url": "https://a.example/",
     "props": {"transaction_id": "T-1", "value": 99, "currency": "EUR", "big": 10**20, "flag": False},
     "items": [{"id": "sku-1", "name": "Shoe", "price": 49.5, "quantity": 2}], "language": "fr-FR",
     "visitor": "0123456789abcdefghijklmnop", "user_id": "u-1", "ip": "81.2.69.160", "user_agent": "UA"},
]


@pytest.mark.parametrize("event", ACCEPTED + [event for event, _ in INVALID_EVENTS if not callable(event)]
                         + [event for event, _, _ in REFUSALS if not isinstance(event, str)])
def test_the_document_and_the_decoder_agree_on_types(event):
    """What the schema refuses, the Struct refuses, and the other way round. The rules after decoding
    (time window, reserved name, user_id accepted, storable text, ...) are the API's prose."""
    if "\ud800" in json.dumps(event, ensure_ascii=False, default=str):
        pytest.skip("a lone surrogate: refused by the rule of storable text, not by a type")
    schema_refuses = not _validator("ServerEvent").is_valid(event)
    try:
        msgspec.json.decode(json.dumps(event).encode(), type=ServerEvent)
        struct_refuses = False
    except msgspec.ValidationError:
        struct_refuses = True
    assert schema_refuses == struct_refuses


def test_browser_events_of_the_document_are_the_decoder_s():
    event = {"type": "event", "name": "click", "screen": "mobile", "page_id": "abcdefgh12", "ts": 1.7e12,
             "url": "u" * 3000, "props": {"p": "v" * 600}, "items": [{"name": "n" * 300}]}
    assert _validator("BrowserEvent").is_valid(event)
    msgspec.convert(event, BrowserEvent)
    for wrong in ({**event, "screen": "watch"}, {**event, "page_id": "short"}, {**event, "ts": "now"},
                  {**event, "extra": 1}):
        assert not _validator("BrowserEvent").is_valid(wrong)
        with pytest.raises(msgspec.ValidationError):
            msgspec.convert(wrong, BrowserEvent)


@pytest.mark.parametrize("salt", [bytes(range(32)), b"k" * 16, b"long" * 40])
def test_visitor_hash_is_hmac_sha256(salt):
    """The hash keys SHA-256 with HMAC's pads itself (faster than hmac's copies): the same digest."""
    expected = hmac.new(salt, b"site\x1f81.2.69.160\x1fUA", hashlib.sha256).hexdigest()
    assert visitor_hash(salt, "site", "81.2.69.160", "UA") == expected
    assert visitor_hash(salt, "site", "::1", None) == hmac.new(salt, b"site\x1f::1\x1f", hashlib.sha256).hexdigest()
