"""The records' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in): the query
history and the audit log."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import (ID as _ID, INT as _INT, NULL_INT as _NULL_INT, NULL_STR as _NULL_STR,
                                              SHORT_TEXT as _TEXT, STAMP as _STAMP, STR as _STR, object_of as _object,
                                              ref as _ref)
from workbench_app.records.query_history import ORIGINS

_PAGE = {"limit": {"type": "integer", "minimum": 1, "maximum": 1000}, "before": _ID}

SCHEMAS: dict[str, Any] = {
    "HistoryEntry": _object({
        "query_id": _INT, "user_id": _NULL_INT, "user_email": _NULL_STR,
        "origin": {"enum": list(ORIGINS)}, "sql_text": _STR,
        "question_id": _NULL_INT, "started_at": _STAMP, "duration_ms": {"type": ["number", "null"]},
        "row_count": _NULL_INT, "status": {"enum": ["ok", "refused", "failed", "cancelled"]}, "error_code": _NULL_STR}),
    "HistoryList": _object({"queries": {"type": "array", "items": _ref("HistoryEntry")}}),
    "AuditEntry": _object({"entry_id": _INT, "at": _STAMP, "actor_id": _NULL_INT, "actor": _NULL_STR,
                           "action": _STR, "target": _NULL_STR, "details": {}}),
    "AuditList": _object({"entries": {"type": "array", "items": _ref("AuditEntry")}}),
}


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
