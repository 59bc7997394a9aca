"""The sources' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in); their answer
and request components come from the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import STR as _STR, model_body, object_of as _object, ref as _ref
from workbench_app.sources.shapes import NewSource, Source, SourceChange, SourceList, SourceProbe, SourceRetest

ANSWERS = (Source, SourceList)
REQUESTS = (NewSource, SourceChange, SourceProbe, SourceRetest)

SCHEMAS: dict[str, Any] = {
    "ConnectionTest": _object({
        "ok": {"type": "boolean"},
        "tables": {"type": "integer", "description": "Tables (or databases, files) the source shows."},
        "error": {"type": "object", "required": ["code", "message", "details"],
                  "description": "Why the source cannot be reached; details.reason is one of unreachable, "
                                 "authentication_failed, database_not_found, path_not_found, unreadable, failed.",
                  "properties": {"code": _STR, "message": _STR, "details": _object({"reason": {"enum": [
                      "unreachable", "authentication_failed", "database_not_found", "path_not_found",
                      "unreadable", "failed"]}})}}}, optional=("tables", "error")),
}


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    return {
        "/sources": {"get": op("List sources", "sources", result=_ref("SourceList")),
                     "post": op("Connect a source", "sources", ok=201, result=_ref("Source"),
                                body=model_body(NewSource))},
        "/sources/refresh": {"post": op("Refresh sources", "sources")},
        "/sources/test": {"post": op("Test a source before saving", "sources", result=_ref("ConnectionTest"),
                                     body=model_body(SourceProbe))},
        "/sources/{source_id}/test": {"post": op(
            "Test a saved source", "sources", params=("source_id",), result=_ref("ConnectionTest"),
            body=model_body(SourceRetest, required=False))},
        "/sources/{source_id}": {"get": op("Get a source", "sources", params=("source_id",), result=_ref("Source")),
                                 "patch": op("Update a source", "sources", params=("source_id",),
                                             result=_ref("Source"), body=model_body(SourceChange)),
                                 "delete": op("Remove a source", "sources", ok=204, params=("source_id",))},
    }
