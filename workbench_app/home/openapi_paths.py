"""The home page's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in)."""
from __future__ import annotations

from typing import Any

from workbench_app.home.next_steps import STEPS
from workbench_app.openapi_vocabulary import ID as _ID, STR as _STR, object_of as _object, ref as _ref


SCHEMAS: dict[str, Any] = {
    "HomeItem": _object({
        "kind": {"enum": ["dashboard", "question"]}, "id": _ID, "name": _STR, "description": _STR,
        "when": {"type": "string", "format": "date-time",
                 "description": "When the person last opened or changed it (recent), or when it was pinned."}}),
    "NextStep": _object({"step": {"enum": list(STEPS)}, "done": {"type": "boolean"}}),
    "Home": _object({
        "recent": {"type": "array", "items": _ref("HomeItem"),
                   "description": "What the person opened or changed last in the web application, newest first."},
        "pinned": {"type": "array", "items": _ref("HomeItem"),
                   "description": "Pinned for everyone by an administrator (or by the demo setup); only what "
                                  "the person may read."},
        "can_pin": {"type": "boolean"},
        "next_steps": {"anyOf": [{"type": "array", "items": _ref("NextStep")}, {"type": "null"}],
                       "description": "An administrator's next steps of a new installation; null for others."},
        "collector_url": {"type": ["string", "null"],
                          "description": "The collector's pages as this machine reaches them (administrators)."}}),
}


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    def pin_operation(summary: str, param: str) -> dict[str, Any]:
        return also(op(summary, "home", ok=204, params=(param,)), ("403", "forbidden: administrators only"))

    return {
        "/home": {"get": op("Get the home page", "home", result=_ref("Home"))},
        "/home/pins/dashboards/{dashboard_id}": {
            "put": pin_operation("Pin a dashboard for everyone", "dashboard_id"),
            "delete": pin_operation("Unpin a dashboard", "dashboard_id")},
        "/home/pins/questions/{question_id}": {
            "put": pin_operation("Pin a question for everyone", "question_id"),
            "delete": pin_operation("Unpin a question", "question_id")},
    }
