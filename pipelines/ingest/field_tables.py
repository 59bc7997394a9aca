"""The guide's tables of event fields, written from the event model's JSON Schema (event_model.py),
the same schema the OpenAPI document publishes: guide, document and decoder cannot disagree.

`field_table("ServerEvent")` is a Markdown table (field, type, required, rules, description); the
guide's pages ask for one with a `<!-- field-table: ServerEvent -->` line, which docs/hooks/
field_tables.py replaces when MkDocs builds the guide.
"""
from __future__ import annotations

import re
from typing import Any

from pipelines.ingest.event_model import END_OF_TEXT, schema_components

MARKER = re.compile(r"^<!-- field-table: (\w+) -->$", re.MULTILINE)


def field_table(component: str) -> str:
    """The Markdown table of one component's fields (KeyError for an unknown component)."""
    components = schema_components()
    schema = components[component]
    required = set(schema.get("required", ()))
    rows = ["| field | type | required | rules | description |", "|---|---|---|---|---|"]
    for name, field in schema["properties"].items():
        rows.append("| " + " | ".join([f"`{name}`", _kind(field), "yes" if name in required else "no",
                                        _rules(field), _cell(field.get("description", ""))]) + " |")
    return "\n".join(rows)


def replace_markers(markdown: str) -> str:
    """A page with each `<!-- field-table: Name -->` line replaced by that component's table."""
    return MARKER.sub(lambda match: field_table(match.group(1)), markdown)


def _kind(field: dict[str, Any]) -> str:
    if "$ref" in field:
        return f"`{field['$ref'].rsplit('/', 1)[1]}`"
    if "anyOf" in field:
        kinds = []
        for member in field["anyOf"]:
            kind = _kind(member)
            if kind not in kinds:
                kinds.append(kind)
        return " or ".join(kinds)
    if "enum" in field:
        return " or ".join(f'`"{value}"`' for value in field["enum"])
    kind = field.get("type", "any")
    if kind == "array":
        return f"list of {_kind(field.get('items', {}))}"
    if kind == "object":
        values = field.get("additionalProperties")
        return f"object of {_kind(values)}" if isinstance(values, dict) else "object"
    if field.get("format"):
        return f"{kind} ({field['format']})"
    return kind


def _rules(field: dict[str, Any]) -> str:
    """Lengths, counts, bounds and patterns, from the field and the members of its union."""
    rules: list[str] = []

    def add(rule: str) -> None:
        if rule not in rules:
            rules.append(rule)
    for part in [field, *field.get("anyOf", ())]:
        for low, high, unit in (("minLength", "maxLength", "characters"), ("minItems", "maxItems", "items"),
                                ("minProperties", "maxProperties", "properties")):
            if low in part or high in part:
                add(_span(part.get(low), part.get(high), unit))
        for key, words in (("exclusiveMinimum", "above {:g}"), ("minimum", "at least {:g}"),
                           ("exclusiveMaximum", "below {:g}"), ("maximum", "at most {:g}")):
            if key in part and not _unbounded(key, part[key]):
                add(words.format(part[key]))
        if "pattern" in part:
            # The end-of-text lookahead is for the regex engines (event_model.py), not for the reader.
            pattern = part["pattern"]
            add(f"matches `{_cell(pattern.removesuffix(END_OF_TEXT) + '$' if pattern.endswith(END_OF_TEXT) else pattern)}`")
        names = part.get("propertyNames", {})
        if "maxLength" in names:
            add(f"names of {_span(names.get('minLength'), names['maxLength'], 'characters')}")
        values = part.get("additionalProperties")
        for member in values.get("anyOf", [values]) if isinstance(values, dict) else ():
            if member.get("type") == "string" and "maxLength" in member:
                add(f"text values of at most {member['maxLength']} characters")
    return "; ".join(rules) or "—"


def _span(low: int | None, high: int | None, unit: str) -> str:
    if low and high:
        return f"{low} to {high} {unit}"
    if high is not None:
        return f"at most {high} {unit}"
    return f"at least {low} {unit.rstrip('s') if low == 1 else unit}"


def _unbounded(key: str, value: Any) -> bool:
    # A float bound at the largest double only keeps the number finite: not worth a line.
    return key in ("minimum", "maximum") and isinstance(value, float) and abs(value) > 1e300


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")
