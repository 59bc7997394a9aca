"""JSON answers of the workbench: dates in ISO 8601, decimals and bytes readable."""
from __future__ import annotations

from typing import Any

from flask.json.provider import DefaultJSONProvider

from workbench_app.engine import jsonable


class WorkbenchJSONProvider(DefaultJSONProvider):
    sort_keys = False

    @staticmethod
    def default(value: Any) -> Any:
        converted = jsonable(value)
        if converted is value:
            return DefaultJSONProvider.default(value)
        return converted
