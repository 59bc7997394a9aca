"""JSON answers of the workbench: dates in ISO 8601, decimals and bytes readable."""
from __future__ import annotations

from typing import Any

from flask.json.provider import DefaultJSONProvider

from workbench_app.query_runner import json_value


class WorkbenchJSONProvider(DefaultJSONProvider):
    sort_keys = False

    @staticmethod
    def default(value: Any) -> Any:
        converted = json_value(value)
        if converted is value:
            return DefaultJSONProvider.default(value)
        return converted
