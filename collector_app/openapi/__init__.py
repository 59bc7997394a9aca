"""The OpenAPI 3.1 description of the collector, served at /api/v1/openapi.json.

Maintained by hand next to the code it describes: `document.py` holds the administration API and
the collection endpoints. Another area of the collector describes its endpoints in a module of
its own here (for instance `inbound.py`) defining `fragment() -> dict` with `paths`, optionally
`tags` (a list) and `components` (a dict of component kinds, such as `schemas`). Fragments are
merged at first use by the rule both applications share (`pipelines/openapi_fragments.py`): a path
or component defined twice is an error. Helpers for fragments:
`document.ref`, `document.json_content`, `document.error`.

`tests/collector_admin/test_openapi.py` validates the merged document, checks that every route the
app serves is described, and fuzzes the administration API against it.
"""
from __future__ import annotations

import copy
import functools
import importlib
import json
import pkgutil

from collector_app.openapi.document import build_document
from pipelines.openapi_fragments import merge_fragment


@functools.cache
def _document() -> dict:
    document = build_document()
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name == "document":
            continue
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        if hasattr(loaded, "fragment"):
            merge_fragment(document, loaded.fragment(), loaded.__name__)
    for item in document["paths"].values():
        for method, operation in item.items():
            if method != "parameters":
                operation["responses"].setdefault("414", {"$ref": "#/components/responses/UriTooLong"})
                operation["responses"].setdefault("431", {"$ref": "#/components/responses/HeadersTooLarge"})
                # Where an operation has a 503 of its own (the database), it says so; any may be refused so.
                operation["responses"].setdefault("503", {"$ref": "#/components/responses/Overloaded"})
    return document


def openapi_document() -> dict:
    """The whole document (a copy: callers may change it freely)."""
    return copy.deepcopy(_document())


@functools.cache
def openapi_json() -> str:
    return json.dumps(_document(), indent=1)
