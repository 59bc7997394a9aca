"""The base of the API's request models, and the one adapter from their validation to our refusals.

A request body is declared once, as a model (each area's `shapes.py`): the route validates the body
with it (`validated`), and the OpenAPI document's request components are generated from the same
model (workbench_app/api/openapi.py), so a limit is written once. Pydantic's errors are turned
into today's refusal, `{"error": {"code": "invalid_input", "message", "details": {"field"}}}`,
with the same English templates as `input_checks` (so the same translations): the first broken
rule in field order, as the hand-written checks found it.

Field types say our rules, which differ from pydantic's defaults: text is a JSON string (never a
number made into one) without NUL characters or unpaired surrogates (pipelines/text_rules.py);
a whole number may be written `110.0` (JSON Schema counts it as an integer) but never `true` or
`"110"`; null is refused unless the field is declared nullable.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

from annotated_types import Ge, Le, MaxLen, MinLen
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WithJsonSchema
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from pipelines.admin.validation import whole_number
from pipelines.text_rules import storable
from workbench_app.errors import invalid
from workbench_app.input_checks import MAX_ID, body_object, single_query_value
from workbench_app.openapi_vocabulary import TEXT_NO_NUL

Shape = TypeVar("Shape", bound="RequestShape")
TEXT_PATTERN = TEXT_NO_NUL["pattern"]
NAME_PATTERN = "^[^\\x00]*\\S[^\\x00]*$"


class RequestShape(BaseModel):
    # Unknown fields are ignored, as the hand-written checks did; strict: no coercion of types.
    model_config = ConfigDict(extra="ignore", strict=True, use_attribute_docstrings=True)

    def given(self) -> dict[str, Any]:
        """The fields the body held (null ones included), as the area's functions take them."""
        return {name: getattr(self, name) for name in type(self).model_fields if name in self.model_fields_set}


def _storable_text(value: str) -> str:
    if not storable(value):
        raise PydanticCustomError("unstorable_text", "")
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank_text", "")
    return value


def _whole(value: Any) -> Any:
    number = whole_number(value)
    if number is None:
        raise PydanticCustomError("whole_number", "")
    return number


def Text(max_length: int = 200, *, allow_empty: bool = True) -> Any:  # noqa: N802 (a type, as pydantic's are)
    """A JSON string of at most `max_length` characters that PostgreSQL can store."""
    checks = [AfterValidator(_storable_text)] + ([] if allow_empty else [AfterValidator(_not_blank)])
    # What the document can say of it: no NUL (a lone surrogate cannot be written in a pattern),
    # and for a name a visible character.
    extra = {"pattern": TEXT_PATTERN} if allow_empty else {"minLength": 1, "pattern": NAME_PATTERN}
    return Annotated[str, MaxLen(max_length), *checks, Field(json_schema_extra=extra)]


def WholeNumber(minimum: int = 0, maximum: int = MAX_ID) -> Any:  # noqa: N802
    """An integer from `minimum` to `maximum` (110.0 counts as 110)."""
    return Annotated[int, Field(ge=minimum, le=maximum), BeforeValidator(_whole)]


Id = WholeNumber(1)


def refused(message: str, **details: Any) -> PydanticCustomError:
    """A field's own rule broken (raised by its validator): the adapter answers `message`, a template of
    the catalogues, with `details` beside the field's name."""
    return PydanticCustomError("refused", "{message}", {"message": message, "details": details})

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _identifier(value: str) -> str:
    if not _IDENTIFIER.match(value):
        raise PydanticCustomError("not_identifier", "")
    return value


# A name SQL can use unquoted (a metric's name): letters, digits and underscores.
Identifier = Annotated[str, MaxLen(63), AfterValidator(_storable_text), AfterValidator(_identifier),
                       Field(json_schema_extra={"pattern": _IDENTIFIER.pattern})]


class _ListRefusal:
    """Marks a list whose any fault is told in one sentence, as `input_checks.string_list` does."""


def TextList(max_items: int = 500, max_length: int = 200) -> Any:  # noqa: N802
    """A list of at most `max_items` non-empty strings of at most `max_length` characters each."""
    item = Annotated[str, MinLen(1), MaxLen(max_length), AfterValidator(_storable_text),
                     Field(json_schema_extra={"pattern": TEXT_PATTERN})]
    return Annotated[list[item], MaxLen(max_items), _ListRefusal()]


def validated(shape: type[Shape], body: Any) -> Shape:
    """The body as the model, or the refusal of its first broken rule (a 422 when it is no JSON object)."""
    body = body_object(body)
    try:
        return shape.model_validate(body)
    except ValidationError as error:
        raise _refusal(shape, body, error.errors()[0]) from None


def _metadata(shape: type[RequestShape], name: str) -> list[Any]:
    """A field's rules, from its metadata (inside `X | None` for a nullable one)."""
    field = shape.model_fields[name]
    rules = list(field.metadata)
    for member in get_args(field.annotation):
        for rule in getattr(member, "__metadata__", ()):
            rules += rule.metadata if isinstance(rule, FieldInfo) else [rule]
    return rules


def _choices(annotation: Any) -> list[str]:
    """The values of the `Literal` in a field's type (inside `X | None` too)."""
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    return [choice for member in get_args(annotation) for choice in _choices(member)]


def _bounds(shape: type[RequestShape], name: str) -> tuple[int, int]:
    """A whole number field's range."""
    minimum, maximum = 0, MAX_ID
    for rule in _metadata(shape, name):
        minimum = rule.ge if isinstance(rule, Ge) else minimum
        maximum = rule.le if isinstance(rule, Le) else maximum
    return minimum, maximum


def _field_name(shape: type[RequestShape], name: str) -> str:
    """The model's name of the body's field `name` (`schema_` for `schema`, a name BaseModel has)."""
    return next((field for field, info in shape.model_fields.items() if info.alias == name), name)


def _plain_refusal(name: str, kind: str, context: dict[str, Any]):
    """The refusals whose words depend only on the field's name and pydantic's context (a body's
    field and a definition's part alike), or None."""
    if kind == "refused":
        return invalid(context["message"], field=name, **context["details"])
    if kind == "missing":
        return invalid(f"{name} is required.", field=name)
    if kind == "string_type":
        return invalid(f"{name} must be a string.", field=name)
    if kind == "string_too_long":
        return invalid(f"{name} must be at most {context['max_length']} characters.", field=name)
    if kind in ("blank_text", "string_too_short"):
        return invalid(f"{name} may not be empty.", field=name)
    if kind == "unstorable_text":
        return invalid(f"{name} may not contain NUL characters or unpaired surrogates.", field=name)
    if kind == "not_date":
        return invalid(f"{name} must be a date (YYYY-MM-DD).", field=name)
    if kind == "bool_type":
        return invalid(f"{name} must be true or false.", field=name)
    if kind == "list_type":
        return invalid(f"{name} must be a list.", field=name)
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return invalid(f"{name} must be a JSON object.", field=name)
    return None


def _refusal(shape: type[RequestShape], body: dict, error: dict):
    """Pydantic's error in the words of `input_checks` (their templates are in the catalogues)."""
    name = str(error["loc"][0])
    field = _field_name(shape, name)
    kind, context = error["type"], error.get("ctx") or {}
    if kind not in ("missing", "refused"):
        if body.get(name, 0) is None:
            return invalid(f"{name} may not be null.", field=name)
        if any(isinstance(rule, _ListRefusal) for rule in _metadata(shape, field)):
            return invalid(f"{name} must be a list of non-empty strings.", field=name)
    if kind == "literal_error" and isinstance(body[name], str):
        choices = _choices(shape.model_fields[field].annotation)
        return invalid(f"{name} must be one of {', '.join(choices)}.", field=name, allowed=choices)
    if kind == "literal_error":
        return invalid(f"{name} must be a string.", field=name)
    if kind == "not_identifier":
        return invalid(f"{name} must be a name made of letters, digits and underscores.", field=name)
    if kind in ("whole_number", "greater_than_equal", "less_than_equal"):
        minimum, maximum = _bounds(shape, field)
        return invalid(f"{name} must be a whole number between {minimum} and {maximum}.", field=name)
    return _plain_refusal(name, kind, context) or invalid("A value in the request is not acceptable.", field=name)


# A GET's query parameters, declared once as a model too: `query_parameters` documents them,
# `validated_query` reads them (each given at most once) with the refusals of the body's fields.

class QueryShape(RequestShape):
    """The query parameters of a GET: text as given, numbers and dates written as text."""


_QUERY_WHOLE = re.compile(r"-?[0-9]{1,19}\Z")


def _query_whole(value: Any) -> Any:
    if isinstance(value, str) and _QUERY_WHOLE.match(value):
        return int(value)
    raise PydanticCustomError("whole_number", "")


def _query_date(value: Any) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise PydanticCustomError("not_date", "") from None


def QueryNumber(minimum: int = 1, maximum: int = MAX_ID) -> Any:  # noqa: N802
    """A whole number from `minimum` to `maximum`, written in the query."""
    return Annotated[int, Field(ge=minimum, le=maximum), BeforeValidator(_query_whole)]


QueryDate = Annotated[dt.date, BeforeValidator(_query_date), WithJsonSchema({"type": "string", "format": "date"})]
# true or false, as written in a query (anything else is refused, never read as false).
QueryFlag = Literal["false", "true"]


def validated_query(shape: type[Shape], args: Any) -> Shape:
    """The query's parameters as the model (a repeated one is refused, never half read)."""
    names = [info.alias or name for name, info in shape.model_fields.items()]
    return validated(shape, {name: value for name in names if (value := single_query_value(args, name)) is not None})


def query_parameters(shape: type[QueryShape]) -> dict[str, dict[str, Any]]:
    """The model's parameters as the document describes them (name -> schema)."""
    properties = shape.model_json_schema(mode="validation")["properties"]
    return {name: {key: value for key, value in schema.items() if key != "title" and (key, value) != ("default", None)}
            for name, schema in properties.items()}


# Definitions: JSON documents nested in a request (a builder's, an analysis'), checked by their own
# models so that a refusal names the part at fault (`builder.filters[2].value`), not only the field.

class DefinitionPart(BaseModel):
    """A part of a definition: strict types, unknown fields refused (a misspelt bound must not pass)."""
    model_config = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)


def _definition_path(prefix: str, location: tuple[Any, ...], tags: tuple[str, ...]) -> str:
    """`prefix.part[2].name` for pydantic's location, without the tags of the unions it went through."""
    text = prefix
    for part in location:
        if part in tags or part == "[key]":
            continue
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += "." + str(part).removesuffix("_")
    return text


def definition_refusal(prefix: str, error: dict[str, Any], tags: tuple[str, ...] = ()):
    """Pydantic's first error in a definition, in the catalogues' words, at the part's path."""
    name = _definition_path(prefix, tuple(error["loc"]), tags)
    kind, context = error["type"], error.get("ctx") or {}
    if kind == "extra_forbidden":
        return invalid(f"{name} is not a field of this definition.", field=name)
    if kind == "literal_error":
        choices = [choice.strip().strip("'") for choice in str(context.get("expected", "")).replace(" or ", ", ").split(",")]
        return invalid(f"{name} must be one of {', '.join(choices)}.", field=name, allowed=choices)
    if kind == "greater_than_equal":
        return invalid(f"{name} must be at least {context['ge']}.", field=name)
    if kind == "less_than_equal":
        return invalid(f"{name} must be at most {context['le']}.", field=name)
    if kind in ("whole_number", "int_type"):
        return invalid(f"{name} must be a whole number.", field=name)
    if kind in ("too_short", "too_long"):
        return invalid(f"{name} has too few or too many items.", field=name,
                       minimum=context.get("min_length"), maximum=context.get("max_length"))
    return _plain_refusal(name, kind, context) or invalid("A value in the request is not acceptable.", field=name)
