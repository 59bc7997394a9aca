"""What every PDF endpoint reads from its request and answers the same way: the person's own
(`GET /dashboards/<id>/pdf`), a public link's and an embed's (workbench_app/api/sharing_routes.py).

Filter values come as in the viewer's URL (`?f.<filter id>=value`), the orientation overrides the
theme's, and the answer is a download that no cache keeps.
"""
from __future__ import annotations

import copy
from typing import Any, Literal

import psycopg
from flask import Response, request

from workbench_app import input_checks as check
from workbench_app.request_shapes import QueryShape, validated_query
from workbench_app.themes.resolution import effective_theme
from workbench_app.themes.settings import ORIENTATIONS

FILTER_PREFIX = "f."


def requested_filters() -> dict[str, str]:
    """Filter values by filter id, from `f.<filter id>` query parameters (one value each)."""
    return {name[len(FILTER_PREFIX):]: check.single_query_value(request.args, name)
            for name in request.args if name.startswith(FILTER_PREFIX)}


class PrintQuery(QueryShape):
    """A PDF's own query parameter (the filter values, `f.<filter id>`, are read apart: their names vary)."""
    orientation: Literal[ORIENTATIONS] = None  # type: ignore[valid-type]
    """Overrides the theme's page orientation."""


def requested_orientation() -> str | None:
    return validated_query(PrintQuery, request.args).orientation


def theme_for(conn: psycopg.Connection, dashboard_id: int, orientation: str | None) -> dict[str, Any]:
    """The theme that applies to the dashboard, turned to the asked orientation."""
    theme = effective_theme(conn, dashboard_id=dashboard_id)
    if orientation is not None:
        theme = copy.deepcopy(theme)
        theme["settings"]["pdf"]["orientation"] = orientation
    return theme


def pdf_response(pdf: bytes, dashboard_id: int) -> Response:
    return Response(pdf, mimetype="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="dashboard-{dashboard_id}.pdf"', "Cache-Control": "no-store"})
