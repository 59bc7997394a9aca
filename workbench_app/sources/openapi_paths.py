"""The sources' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in); their answer
and request components come from the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import model_body, ref as _ref
from workbench_app.sources.shapes import (ConnectionTest, NewSource, RefreshedSources, Source, SourceChange, SourceList,
                                          SourceProbe, SourceRetest)

ANSWERS = (Source, SourceList, ConnectionTest, RefreshedSources)
REQUESTS = (NewSource, SourceChange, SourceProbe, SourceRetest)



def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    return {
        "/sources": {"get": op("List sources", "sources", result=_ref("SourceList")),
                     "post": op("Connect a source", "sources", ok=201, result=_ref("Source"),
                                body=model_body(NewSource))},
        "/sources/refresh": {"post": op("Refresh sources", "sources", result=_ref("RefreshedSources"))},
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
