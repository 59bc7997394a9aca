"""The records' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in): the query
history and the audit log; the answer components come from the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import ID as _ID, SHORT_TEXT as _TEXT, ref as _ref
from workbench_app.records.query_history import ORIGINS
from workbench_app.records.shapes import AuditEntry, AuditList, HistoryEntry, HistoryList

_PAGE = {"limit": {"type": "integer", "minimum": 1, "maximum": 1000}, "before": _ID}

ANSWERS = (HistoryEntry, HistoryList, AuditEntry, AuditList)


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    return {
        "/history": {"get": op("List query history", "records", result=_ref("HistoryList"), query={
            **_PAGE, "origin": {"enum": list(ORIGINS)},
            "all": {"type": "boolean"}})},
        "/audit": {"get": op("List the audit log", "records", result=_ref("AuditList"), query={
            **_PAGE, "action": {**_TEXT, "description": "Actions starting with this (`sign_in`, `token.created`)."},
            "actor": {**_TEXT, "description": "Entries whose actor contains this (case-insensitive)."},
            "since": {"type": "string", "format": "date", "description": "From this UTC day."},
            "until": {"type": "string", "format": "date", "description": "Up to this UTC day, included."}})},
    }
