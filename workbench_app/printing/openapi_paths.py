"""The PDF export's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in)."""
from __future__ import annotations

from typing import Any

_FILTER = {"type": "string", "maxLength": 1000, "pattern": "^[^\\x00]*$"}


def paths(op, also) -> dict[str, Any]:
    operation = also(op("Print a dashboard as PDF", "dashboards", params=("dashboard_id",),
                        query={"orientation": {"enum": ["portrait", "landscape"]}}),
                     ("429", "Too many PDFs are being printed at once: try again after Retry-After seconds"))
    operation["description"] = ("The dashboard as the viewer sees it, on A4 pages, with the theme that applies. "
                                "Filter values as in the viewer's URL: `f.<filter id>=value`. 503 when Chromium "
                                "is not installed on the server or the printer is busy.")
    operation["parameters"].append({"name": "filters", "in": "query", "required": False, "style": "form",
                                    "explode": True, "schema": {
                                        "type": "object", "propertyNames": {"pattern": "^f\\.[0-9]{1,19}$"},
                                        "additionalProperties": _FILTER}})
    operation["responses"]["200"] = {"description": "The PDF", "content": {
        "application/pdf": {"schema": {"type": "string", "format": "binary"}}}}
    return {"/dashboards/{dashboard_id}/pdf": {"get": operation}}
