"""Funnels, paths and retention in the OpenAPI document (`workbench_app/api/openapi.py` merges it in);
the definitions' components are generated from the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.analyses.shapes import DEFINITIONS, AnalysisCompile, AnalysisRun
from workbench_app.openapi_vocabulary import model_body, ref as _ref

ANSWERS = ()
REQUESTS = (AnalysisCompile, AnalysisRun, *DEFINITIONS)

SCHEMAS: dict[str, Any] = {
    "AnalysisDefinition": {
        "description": "A funnel, a path or a retention analysis (see workbench_app/analyses/compiler.py for "
                       "the columns each answers).",
        # No discriminator object: each one's `kind` is a constant already, and generated clients
        # (openapi-typescript) would otherwise drop `kind` from the fields that refer to it.
        "oneOf": [_ref(model.__name__) for model in DEFINITIONS]},
}


def paths(op, also) -> dict[str, Any]:
    return {
        "/analyses/run": {"post": op("Run an analysis", "analyses", body=model_body(AnalysisRun),
                                     result=_ref("Result"))},
        "/analyses/sql": {"post": op("Compile an analysis to SQL", "analyses", result=_ref("CompiledBuilder"),
                                     body=model_body(AnalysisCompile))},
    }
