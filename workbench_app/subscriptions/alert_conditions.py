"""When an alert fires, and how its message says why.

The watched number is `value_column` of the result's first row. `above` and `below` compare it with
the threshold; `changes_by` compares it with the previous check's number (a first check has nothing
to compare with and never fires; from 0, any change is a change of more than any percentage).
"""
from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from flask_babel import gettext

from workbench_app.subscriptions.report_content import CardFigures


class NoValue(Exception):
    """The watched number is not in the result (the log shows why)."""

    code = "no_value"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def value_of(alert: dict[str, Any], figures: CardFigures) -> float | None:
    """The watched number in `figures`, or None (for has_rows, or a result without it)."""
    column = alert["value_column"]
    if column is None or figures.error or not figures.rows or column not in figures.columns:
        return None
    raw = figures.rows[0][figures.columns.index(column)]
    if isinstance(raw, bool) or not isinstance(raw, (int, float, Decimal)):
        return None
    number = float(raw)
    return number if math.isfinite(number) else None


def evaluate(alert: dict[str, Any], figures: CardFigures) -> tuple[float | None, bool]:
    """(the watched number, whether the alert fires) for the owner's result."""
    if figures.error:
        raise NoValue(f"The question could not be run: {figures.error}")
    if alert["condition"] == "has_rows":
        return None, figures.row_count > 0
    if alert["value_column"] not in figures.columns:
        raise NoValue(f"The result has no column {alert['value_column']}.")
    if not figures.rows:
        raise NoValue("The result has no row to read the watched number from.")
    value = value_of(alert, figures)
    if value is None:
        raise NoValue(f"The first row's {alert['value_column']} is not a number.")
    threshold, previous = alert["threshold"], alert["last_value"]
    if alert["condition"] == "above":
        return value, value > threshold
    if alert["condition"] == "below":
        return value, value < threshold
    if previous is None:
        return value, False
    if previous == 0:
        return value, value != 0
    return value, abs(value - previous) / abs(previous) * 100 > threshold


def describe(alert: dict[str, Any], value: float | None) -> str:
    """Why it fired, in the current language (`value`: the recipient's own number, when shown)."""
    name = alert["name"] or gettext("The alert")
    condition, column, threshold = alert["condition"], alert["value_column"], alert["threshold"]
    if condition == "has_rows":
        return gettext("%(name)s: the question has rows.", name=name)
    if condition == "above":
        said = gettext("%(name)s: %(column)s is above %(threshold)s.", name=name, column=column, threshold=f"{threshold:g}")
    elif condition == "below":
        said = gettext("%(name)s: %(column)s is below %(threshold)s.", name=name, column=column, threshold=f"{threshold:g}")
    else:
        said = gettext("%(name)s: %(column)s changed by more than %(threshold)s %%.", name=name, column=column,
                       threshold=f"{threshold:g}")
    return said if value is None else f"{said} " + gettext("Now: %(value)s.", value=f"{value:g}")
