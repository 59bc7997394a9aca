"""The OpenAPI 3.1 description of the collector, served at /api/v1/openapi.json.

Maintained by hand in `document.py` next to the code it describes; `tests/collector_admin`
validates it with openapi-spec-validator and fuzzes the administration API against it.
"""
from __future__ import annotations

import functools
import json

from collector_app.openapi.document import build_document


@functools.cache
def openapi_document() -> dict:
    return build_document()


@functools.cache
def openapi_json() -> str:
    return json.dumps(openapi_document(), indent=1, sort_keys=False)
