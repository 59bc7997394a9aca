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

import re
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

from annotated_types import Ge, Le, MaxLen, MinLen
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from pipelines.admin.validation import whole_number
from pipelines.text_rules import storable
from workbench_app.errors import invalid
from workbench_app.input_checks import MAX_ID, body_object
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


def _refusal(shape: type[RequestShape], body: dict, error: dict):
    """Pydantic's error in the words of `input_checks` (their templates are in the catalogues)."""
    name = str(error["loc"][0])
    field = _field_name(shape, name)
    kind = error["type"]
    if kind == "missing":
        return invalid(f"{name} is required.", field=name)
    if kind == "refused":
        return invalid(error["ctx"]["message"], field=name, **error["ctx"]["details"])
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
    if kind == "string_type":
        return invalid(f"{name} must be a string.", field=name)
    if kind == "string_too_long":
        return invalid(f"{name} must be at most {error['ctx']['max_length']} characters.", field=name)
    if kind == "blank_text":
        return invalid(f"{name} may not be empty.", field=name)
    if kind == "unstorable_text":
        return invalid(f"{name} may not contain NUL characters or unpaired surrogates.", field=name)
    if kind in ("whole_number", "greater_than_equal", "less_than_equal"):
        minimum, maximum = _bounds(shape, field)
        return invalid(f"{name} must be a whole number between {minimum} and {maximum}.", field=name)
    if kind == "bool_type":
        return invalid(f"{name} must be true or false.", field=name)
    if kind == "list_type":
        return invalid(f"{name} must be a list.", field=name)
    if kind == "dict_type":
        return invalid(f"{name} must be a JSON object.", field=name)
    return invalid("A value in the request is not acceptable.", field=name)
