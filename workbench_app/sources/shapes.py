"""Sources as the API answers them and as requests connect, change and test them (bases:
answer_shapes.py, request_shapes.py). A source's options depend on its kind, so `registry.check_options` checks them and names the option that is wrong;
the document states them from the registry's own bounds."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, WithJsonSchema

from workbench_app.answer_shapes import AnswerShape
from workbench_app.openapi_vocabulary import TEXT_NO_NUL
from workbench_app.request_shapes import RequestShape, Text, refused
from workbench_app.sources.connection_test import REASONS
from workbench_app.sources.registry import ALL_KINDS, KINDS, MAX_DATABASES, MAX_SCHEMAS, NUMBER_OPTIONS

# A value that goes into a key=value connection string as it is (registry._PLAIN_VALUE).
_PLAIN = {"type": "string", "pattern": "^[^\\s'\"\\\\=]{1,255}$"}


def _number(name: str, description: str) -> dict[str, Any]:
    low, high = NUMBER_OPTIONS[name]
    return {"type": "integer", "minimum": low, "maximum": high, "description": description}


OPTIONS_SCHEMA = {
    "type": "object",
    "description": "Connection options of the source's kind (unknown ones are refused).",
    "properties": {
        "host": _PLAIN, "port": {"type": "integer", "minimum": 1, "maximum": 65535}, "database": _PLAIN,
        "user": _PLAIN, "sslmode": _PLAIN, "path": {**TEXT_NO_NUL, "maxLength": 4096}, "default_schema": _PLAIN,
        "schemas": {"type": ["array", "null"], "minItems": 1, "maxItems": MAX_SCHEMAS,
                    "items": {"type": "string", "minLength": 1, "maxLength": 63},
                    "description": "PostgreSQL, MySQL, DuckDB and the warehouse: only the tables of these schemas "
                                   "exist in the workbench (all schemas when unset; the warehouse keeps `analytics`). "
                                   "null removes the limit."},
        "url": {"type": "string", "description": "couchdb: the server's http(s) address, without credentials."},
        "databases": {"type": "array", "minItems": 1, "maxItems": MAX_DATABASES, "items": {"type": "string"},
                      "description": "couchdb: only these databases become tables (all but _system ones when unset)."},
        "sample_size": _number("sample_size", "couchdb: documents read per database to infer its columns (1000)."),
        "max_rows": _number("max_rows", "couchdb, snowflake: most rows one statement may read from the source "
                                        "(100000); a statement over it fails."),
        "account": _PLAIN, "warehouse": _PLAIN, "role": _PLAIN,
        "schema": {"type": "string", "description": "snowflake: only this schema's tables (all when unset)."},
        "private_key_path": {"type": "string",
                             "description": "snowflake: an unencrypted PEM private key on the server (key pair)."},
        "protocol": {"enum": ["http", "https"]},
    },
}
Options = Annotated[dict[str, Any], WithJsonSchema(OPTIONS_SCHEMA)]
Kind = Literal[KINDS]  # type: ignore[valid-type]


def _plain_password(value: str) -> str:
    if any(ch.isspace() or ch in "'\"\\" for ch in value):
        # Passwords travel inside a key=value connection string.
        raise refused("password may not contain spaces, quotes or backslashes.")
    return value


Password = Annotated[Text(1000), AfterValidator(_plain_password)]


class NewSource(RequestShape):
    name: Text(63)
    """A catalog's name: letters, digits and underscores, not starting with a digit."""
    kind: Kind
    options: Options = {}
    password: Password = None
    """postgres, mysql, couchdb and snowflake: sealed, never sent back."""


class SourceChange(RequestShape):
    options: Options = None
    """Merged into the source's options (null removes one)."""
    password: Password = None
    clear_password: bool = False


class SourceProbe(RequestShape):
    """A source as the form describes it, reached before it is saved."""
    kind: Kind
    options: Options = {}
    password: Password = None


class SourceRetest(RequestShape):
    """A saved source reached with the form's changed options or new password (nothing is saved)."""
    options: Options = {}
    password: Password = None


class Source(AnswerShape):
    source_id: int
    name: str
    kind: Literal[ALL_KINDS]  # type: ignore[valid-type]
    options: dict[str, Any]
    has_password: bool
    """The password is never sent back."""
    status: Literal["attached", "unavailable"]
    """Whether this worker has the source attached as a catalog."""
    error: str | None
    """Why it is unavailable."""
    created_at: datetime
    updated_at: datetime


class SourceList(AnswerShape):
    sources: list[Source]


class RefreshedSources(AnswerShape):
    version: int
    """The sources' version every worker now re-reads."""


class ConnectionFailureDetails(AnswerShape):
    reason: Literal[REASONS]  # type: ignore[valid-type]


class ConnectionFailure(AnswerShape):
    """Why the source cannot be reached, in the error's shape."""
    code: str
    message: str
    details: ConnectionFailureDetails


class ConnectionTest(AnswerShape):
    ok: bool
    tables: int | None = None
    """Tables (or databases, files) the source shows."""
    error: ConnectionFailure | None = None
