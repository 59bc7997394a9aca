"""The words of the OpenAPI document that every area's part uses: scalar schemas, references and
objects whose properties are all present. One copy, read by api/openapi.py and the `openapi_paths.py`
of each feature (which sit below the API, hence a foundation module)."""
from __future__ import annotations

from typing import Any

INT = {"type": "integer"}
STR = {"type": "string"}
BOOL = {"type": "boolean"}
STAMP = {"type": "string", "format": "date-time"}
NULL_STAMP = {"type": ["string", "null"], "format": "date-time"}
# A path or body id: a PostgreSQL bigint, at least 1.
ID = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
# Text PostgreSQL can store (no NUL).
TEXT_NO_NUL = {"type": "string", "pattern": "^[^\\x00]*$"}
NULLABLE_TEXT = {"type": ["string", "null"], "pattern": "^[^\\x00]*$"}
# A query parameter's or a short field's text: at most 200 characters.
SHORT_TEXT = {**TEXT_NO_NUL, "maxLength": 200}
NULL_STR = {"type": ["string", "null"]}
NULL_INT = {"type": ["integer", "null"]}
OBJECT = {"type": "object", "additionalProperties": True}
ERROR = {"$ref": "#/components/schemas/Error"}


def ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def object_of(properties: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object whose properties are all always present except `optional`."""
    return {"type": "object", "properties": properties,
            "required": [name for name in properties if name not in optional]}


def model_body(model: type, *, required: bool = True) -> dict[str, Any]:
    """A request body declared as a model (request_shapes.py): its component, generated from the model,
    is named after it. `required=False`: the runs, which change nothing, accept no body at all."""
    return {"required": required, "content": {"application/json": {"schema": ref(model.__name__)}}}
