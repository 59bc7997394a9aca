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
        "oneOf": [_ref(model.__name__) for model in DEFINITIONS],
        "discriminator": {"propertyName": "kind", "mapping": {
            kind: f"#/components/schemas/{model.__name__}"
            for kind, model in zip(("funnel", "path", "retention"), DEFINITIONS)}}},
}


def paths(op, also) -> dict[str, Any]:
    return {
        "/analyses/run": {"post": op("Run an analysis", "analyses", body=model_body(AnalysisRun),
                                     result=_ref("Result"))},
        "/analyses/sql": {"post": op("Compile an analysis to SQL", "analyses", result=_ref("CompiledBuilder"),
                                     body=model_body(AnalysisCompile))},
    }
