"""The PDF export's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in);
`pdf_operation` also describes the PDFs of public links and embeds (sharing/openapi_paths.py)."""
from __future__ import annotations

from typing import Any

from workbench_app.printing.pdf_request import PrintQuery
from workbench_app.request_shapes import query_parameters

_FILTER = {"type": "string", "maxLength": 1000, "pattern": "^[^\\x00]*$"}
_QUEUE_FULL = ("429", "Too many PDFs are being printed at once: try again after Retry-After seconds")


def pdf_operation(op, also, summary: str, description: str, tag: str,
                  params: tuple[str, ...] = ()) -> dict[str, Any]:
    """A GET answering a PDF, with the orientation and the `f.<filter id>` filter values."""
    operation = also(op(summary, tag, params=params, query=query_parameters(PrintQuery)),
                     _QUEUE_FULL)
    operation["description"] = (f"{description} Filter values as in the viewer's URL: `f.<filter id>=value`. 503 "
                                "when Chromium is not installed on the server or the printer is busy.")
    operation["parameters"].append({"name": "filters", "in": "query", "required": False, "style": "form",
                                    "explode": True, "schema": {
                                        "type": "object", "propertyNames": {"pattern": "^f\\.[0-9]{1,19}$"},
                                        "additionalProperties": _FILTER}})
    operation["responses"]["200"] = {"description": "The PDF", "content": {
        "application/pdf": {"schema": {"type": "string", "format": "binary"}}}}
    return operation


def paths(op, also) -> dict[str, Any]:
    return {"/dashboards/{dashboard_id}/pdf": {"get": pdf_operation(
        op, also, "Print a dashboard as PDF",
        "The dashboard as the viewer sees it, on A4 pages, with the theme that applies.", "dashboards",
        ("dashboard_id",))}}
