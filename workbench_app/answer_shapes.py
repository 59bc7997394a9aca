"""The base of the API's answer models (each area's `shapes.py`).

An answer is declared once, as a model: the OpenAPI components are generated from the models
(workbench_app/api/openapi.py) and the browser's types from the document (`make api-types`). The
area's functions still build plain dictionaries; the shapes' tests validate real answers with the
models, which forbid a field they do not name, so the document cannot drift from the answers.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class AnswerShape(BaseModel):
    # The attributes' docstrings become the document's descriptions.
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)
