"""The records' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in): the query
history and the audit log; the answer components come from the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import ref as _ref
from workbench_app.records.shapes import AuditEntry, AuditList, AuditQuery, HistoryEntry, HistoryList, HistoryQuery
from workbench_app.request_shapes import query_parameters


ANSWERS = (HistoryEntry, HistoryList, AuditEntry, AuditList)


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    return {
        "/history": {"get": op("List query history", "records", result=_ref("HistoryList"),
                               query=query_parameters(HistoryQuery))},
        "/audit": {"get": op("List the audit log", "records", result=_ref("AuditList"),
                             query=query_parameters(AuditQuery))},
    }
