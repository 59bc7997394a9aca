"""Dashboard filters: their kinds and values, how a value reaches a card, and a one-of list's values.

Kinds: text, number, date (a day, fixed or relative), date_range (a relative choice such as
`last-30-days`, or `YYYY-MM-DD..YYYY-MM-DD`), one_of (a list of values taken from a column) and
segment (a saved segment's id, feeding a question variable of type "segment": content/segments.py).

A filter is linked to a card either through one of the card question's `{{variables}}` or through a
column of the card's result. For a column, the card's statement is wrapped as
`SELECT * FROM (<statement>) AS wb_card WHERE <condition>`: the column is a quoted identifier
written by sqlglot and the value a bound variable, never spliced text. The wrapped statement goes
through the same permission rewrite as any other, so a link cannot widen what a person reads.
"""
from __future__ import annotations

import datetime
import re
from typing import Any

from sqlglot import exp

from workbench_app.engine.dialect import DIALECT
from workbench_app.errors import invalid

FILTER_TYPES = ("text", "number", "date", "date_range", "one_of", "segment")
# The variable types a filter can feed (a date range feeds two date variables).
VARIABLE_TYPES_FED = {"text": ("text",), "number": ("number",), "date": ("date", "text"),
                      "date_range": ("date",), "one_of": ("list",),
                      "segment": ("segment",)}
RELATIVE_RANGES = ("last-7-days", "last-30-days", "last-90-days", "this-month", "previous-month")
PREVIOUS = "previous:"
MAX_LIST_VALUES = 1000
MAX_VALUES_SHOWN = 200
_DAYS_BACK = re.compile(r"-(\d{1,4})d")
_NAME_PART = re.compile(r"[^\x00\"]{1,200}")


def resolve_date(value: str, today: datetime.date) -> str | None:
    """A date filter's value as a day: fixed (YYYY-MM-DD) or relative to today; None when neither."""
    relative = {"today": today, "yesterday": today - datetime.timedelta(days=1),
                "month-start": today.replace(day=1), "year-start": today.replace(month=1, day=1)}
    if value in relative:
        return relative[value].isoformat()
    back = _DAYS_BACK.fullmatch(value)
    if back:
        return (today - datetime.timedelta(days=int(back.group(1)))).isoformat()
    try:
        return datetime.date.fromisoformat(value).isoformat() if len(value) == 10 else None
    except ValueError:
        return None


def resolve_range(value: str, today: datetime.date) -> tuple[str, str] | None:
    """A date range's first and last day (both included); None when the value is not a range.

    "last-7-days" ends today and holds 7 days; "this-month" runs from the 1st to today;
    "previous:<range>" is the period of the same length just before the range (a dashboard's
    period-against-period comparison, frontend dashboards/comparison.ts).
    """
    if value.startswith(PREVIOUS):
        inner = None if value[len(PREVIOUS):].startswith(PREVIOUS) else resolve_range(value[len(PREVIOUS):], today)
        if inner is None:
            return None
        start, end = datetime.date.fromisoformat(inner[0]), datetime.date.fromisoformat(inner[1])
        before = start - datetime.timedelta(days=1)
        return (before - (end - start)).isoformat(), before.isoformat()
    for days in (7, 30, 90):
        if value == f"last-{days}-days":
            return (today - datetime.timedelta(days=days - 1)).isoformat(), today.isoformat()
    first = today.replace(day=1)
    if value == "this-month":
        return first.isoformat(), today.isoformat()
    if value == "previous-month":
        last = first - datetime.timedelta(days=1)
        return last.replace(day=1).isoformat(), last.isoformat()
    start, separator, end = value.partition("..")
    if not separator:
        return None
    start_day, end_day = resolve_date(start, today), resolve_date(end, today)
    if start_day is None or end_day is None or start_day > end_day:
        return None
    return start_day, end_day


def filter_value(dashboard_filter: dict[str, Any], value: Any) -> Any:
    """A filter's value checked against its type (None, "" or [] for no value); refusals name the filter."""
    if value is None or value == "" or value == []:
        return None
    kind, name = dashboard_filter["type"], dashboard_filter["name"]
    field = f"filters.{name}"
    if kind == "number":
        if isinstance(value, str):
            try:
                value = float(value) if any(c in value for c in ".eE") else int(value)
            except ValueError:
                value = None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise invalid(f"The filter {name} takes a number.", field=field)
        return value
    if kind == "segment":
        if isinstance(value, str) and value.isdigit() and len(value) <= 18:
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise invalid(f"The filter {name} takes a saved segment's id.", field=field)
        return value
    if kind == "one_of":
        if not isinstance(value, list) or len(value) > MAX_LIST_VALUES or not all(
                (isinstance(item, str) and len(item) <= 1000 and "\x00" not in item)
                or (isinstance(item, (int, float)) and not isinstance(item, bool) and item == item)
                for item in value):
            raise invalid(f"The filter {name} takes a list of at most 1,000 texts or numbers.", field=field)
        return value
    if not isinstance(value, str) or len(value) > 1000 or "\x00" in value:
        raise invalid(f"The filter {name} takes a text of at most 1,000 characters.", field=field)
    if kind == "date" and resolve_date(value, datetime.date.today()) is None:
        raise invalid(f"The filter {name} takes a date (YYYY-MM-DD) or a relative one (today, yesterday, "
                      f"-7d, month-start, year-start).", field=field)
    if kind == "date_range" and resolve_range(value, datetime.date.today()) is None:
        raise invalid(f"The filter {name} takes a range: last-7-days, last-30-days, last-90-days, this-month, "
                      f"previous-month, or YYYY-MM-DD..YYYY-MM-DD (first day not after the last).", field=field)
    return value


def values_source(item: dict[str, Any]) -> tuple[str | None, str | None]:
    """(table, column) a one-of filter takes its values from; (None, None) for the other kinds."""
    if item.get("type") != "one_of":
        return None, None
    source = item.get("values")
    table, column = (source.get("table"), source.get("column")) if isinstance(source, dict) else (None, None)
    if not isinstance(table, str) or not isinstance(column, str) or not _NAME_PART.fullmatch(column) \
            or not 1 <= len(table.split(".")) <= 3 or not all(_NAME_PART.fullmatch(p) for p in table.split(".")):
        raise invalid("A one-of filter takes its values from a column: values.table (catalog.schema.table) "
                      "and values.column.", field="filters")
    return table, column


def check_link(item: dict[str, Any], link: Any, variables: dict[str, str]) -> tuple[str | None, str | None, str | None]:
    """(variable, end variable, column) of one link, checked against the card question's variables."""
    if not isinstance(link, dict):
        raise invalid("A filter link names a card that is not in cards.", field="filters")
    column = link.get("column")
    if column is not None:
        if item["type"] == "segment":
            raise invalid("A segment filter feeds a question variable of type segment, not a column.",
                          field="filters")
        if not isinstance(column, str) or not _NAME_PART.fullmatch(column) or link.get("variable") is not None:
            raise invalid("A filter link feeds either a variable or a column (a name of at most 200 characters).",
                          field="filters")
        return None, None, column
    fed = VARIABLE_TYPES_FED[item["type"]]
    names = [link.get("variable")] + ([link.get("end_variable")] if item["type"] == "date_range" else [])
    for variable in names:
        if variable not in variables or variables[variable] not in fed:
            raise invalid("A filter is linked to a field the card's question does not have.",
                          field="filters", variable=variable)
    return names[0], names[1] if len(names) > 1 else None, None


def _quoted(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect=DIALECT)


def table_sql(name: str) -> str:
    """A dotted table name written with each part quoted."""
    return ".".join(_quoted(part) for part in name.split("."))


def link_values(item: dict[str, Any], value: Any, today: datetime.date) -> dict[str, Any]:
    """What a checked, non-empty value gives the card: {"from", "to"} for a range, else {"value"}."""
    if item["type"] == "date_range":
        start, end = resolve_range(value, today)  # type: ignore[misc]
        return {"from": start, "to": end}
    if item["type"] == "date":
        return {"value": resolve_date(value, today)}
    return {"value": value}


def column_condition(item: dict[str, Any], column: str, fed: dict[str, Any], variable: str
                     ) -> tuple[str, dict[str, str], dict[str, Any]]:
    """(condition template, variable types, values) restricting `column` of the card's result."""
    quoted = _quoted(column)
    kind = item["type"]
    if kind == "date_range":
        return (f"CAST({quoted} AS DATE) BETWEEN {{{{{variable}_from}}}} AND {{{{{variable}_to}}}}",
                {f"{variable}_from": "date", f"{variable}_to": "date"},
                {f"{variable}_from": fed["from"], f"{variable}_to": fed["to"]})
    if kind == "one_of":
        # Compared as text: a list parameter has one element type, the column may be of any.
        return (f"list_contains({{{{{variable}}}}}, CAST({quoted} AS VARCHAR))", {variable: "list"},
                {variable: [str(v) for v in fed["value"]]})
    if kind == "date":
        return f"CAST({quoted} AS DATE) = {{{{{variable}}}}}", {variable: "date"}, {variable: fed["value"]}
    if kind == "number":
        return f"{quoted} = {{{{{variable}}}}}", {variable: "number"}, {variable: fed["value"]}
    return f"CAST({quoted} AS VARCHAR) = {{{{{variable}}}}}", {variable: "text"}, {variable: fed["value"]}


def with_column_conditions(statement: tuple[str, dict[str, str], dict[str, Any]],
                           conditions: list[tuple[str, dict[str, str], dict[str, Any]]]
                           ) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The card's statement wrapped so that its result keeps only the rows the conditions allow."""
    if not conditions:
        return statement
    sql, types, values = statement
    types, values = dict(types), dict(values)
    for _, condition_types, condition_values in conditions:
        if set(condition_types) & set(types):
            raise invalid("A card's question uses a variable name reserved for dashboard filters.", field="filters")
        types.update(condition_types)
        values.update(condition_values)
    # The newline ends a trailing `--` comment of the question; a trailing `;` would end the statement.
    inner = sql.rstrip().rstrip(";").rstrip()
    where = " AND ".join(condition for condition, _, _ in conditions)
    return f"SELECT * FROM (\n{inner}\n) AS wb_card WHERE {where}", types, values


def values_statement(table: str, column: str, search: str | None) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The distinct values of a column, searched (case-insensitive) and bounded; one more than shown
    tells the screen the list is cut."""
    quoted = _quoted(column)
    sql = (f"SELECT DISTINCT {quoted} AS value FROM {table_sql(table)} WHERE {quoted} IS NOT NULL "
           f"[[AND contains(lower(CAST({quoted} AS VARCHAR)), lower({{{{search}}}}))]] "
           f"ORDER BY 1 LIMIT {MAX_VALUES_SHOWN + 1}")
    return sql, {"search": "text"}, ({"search": search} if search else {})
