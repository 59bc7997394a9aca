"""The home page's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in); the
answer's components come from the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.home.shapes import Home
from workbench_app.openapi_vocabulary import ref as _ref

# The answer declared as a model (its components, with the items and steps, are generated from it).
ANSWERS = (Home,)


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
