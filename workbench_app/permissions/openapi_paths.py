"""The data permissions' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in): a
group's catalogs and table rules, a rule's check, "view as"; the request components come from the
models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import (NULL_STR as _NULL_STR, OBJECT as _OBJECT, STR as _STR,
                                              TEXT_NO_NUL as _STRING, model_body, object_of as _object, ref as _ref)
from workbench_app.permissions.shapes import CatalogGrants, PreviewStatement, RuleToCheck, TableRule

ANSWERS = ()
REQUESTS = (CatalogGrants, TableRule, RuleToCheck, PreviewStatement)

SCHEMAS: dict[str, Any] = {
    "ColumnMask": {"type": "object", "required": ["kind"], "properties": {
        "kind": {"enum": ["null", "hash", "partial", "expression"]},
        "keep_first": {"type": "integer", "minimum": 0}, "keep_last": {"type": "integer", "minimum": 0},
        "expression": _STRING}},
    "Notice": _object({"code": _STR, "message": _STR, "details": _OBJECT}),
    "RuleCheck": _object({
        "valid": {"type": "boolean", "description": "false: the rule would grant nothing (see problems)."},
        "columns": {"type": "array", "items": _STR},
        "problems": {"type": "array", "items": _ref("Notice")},
        "warnings": {"type": "array", "description": "quoted_placeholder: a {{user.<attribute>}} inside quotes "
                                                     "compares with the literal text and matches nothing.",
                     "items": _ref("Notice")}}),
    "Preview": _object({
        "result": {"oneOf": [_ref("Result"), {"type": "null"}]},
        "refusal": {"oneOf": [_ref("Notice"), {"type": "null"}]},
        "decisions": {"type": "array", "items": _object({"table": _STR, "grants": {"type": "array", "items": _object({
            "group": _STR, "kind": {"enum": ["table_rule", "catalog"]}, "access": {"type": "boolean"},
            "row_filter": _NULL_STR, "hidden_columns": {"type": "array", "items": _STR},
            "masked_columns": {"type": "object", "additionalProperties": _STR}})}})}}),
}


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    return {
        "/groups/{group_id}/permissions": {"get": op("Get a group's permissions", "permissions", params=("group_id",))},
        "/groups/{group_id}/catalogs": {"put": op("Set a group's catalogs", "permissions", params=("group_id",),
                                                  body=model_body(CatalogGrants))},
        "/groups/{group_id}/rules": {"post": op("Set a table rule", "permissions", ok=201, params=("group_id",),
                                                body=model_body(TableRule))},
        "/rules/check": {"post": op("Check a table rule", "permissions", result=_ref("RuleCheck"),
                                    body=model_body(RuleToCheck))},
        "/users/{user_id}/preview": {"post": op("View as a person", "permissions", params=("user_id",),
                                                result=_ref("Preview"), body=model_body(PreviewStatement))},
        "/groups/{group_id}/rules/{rule_id}": {"delete": op("Delete a table rule", "permissions", ok=204,
                                                            params=("group_id", "rule_id"))},
    }
