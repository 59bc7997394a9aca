"""The data permissions' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in): a
group's catalogs and table rules, a rule's check, "view as"; the answer and request components come from
the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import model_body, ref as _ref
from workbench_app.permissions.shapes import (CatalogGrants, GroupPermissions, PreviewStatement, RuleCheck, RuleToCheck,
                                              SavedRule, TableRule)

REQUESTS = (CatalogGrants, TableRule, RuleToCheck, PreviewStatement)

# The component Preview ("view as") is the statement path's (statements/shapes.py).
ANSWERS = (GroupPermissions, SavedRule, RuleCheck)


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    return {
        "/groups/{group_id}/permissions": {"get": op("Get a group's permissions", "permissions", params=("group_id",),
                                                            result=_ref("GroupPermissions"))},
        "/groups/{group_id}/catalogs": {"put": op("Set a group's catalogs", "permissions", params=("group_id",),
                                                  result=_ref("GroupPermissions"), body=model_body(CatalogGrants))},
        "/groups/{group_id}/rules": {"post": op("Set a table rule", "permissions", ok=201, params=("group_id",),
                                                result=_ref("SavedRule"), body=model_body(TableRule))},
        "/rules/check": {"post": op("Check a table rule", "permissions", result=_ref("RuleCheck"),
                                    body=model_body(RuleToCheck))},
        "/users/{user_id}/preview": {"post": op("View as a person", "permissions", params=("user_id",),
                                                result=_ref("Preview"), body=model_body(PreviewStatement))},
        "/groups/{group_id}/rules/{rule_id}": {"delete": op("Delete a table rule", "permissions", ok=204,
                                                            params=("group_id", "rule_id"))},
    }
