"""Query variables: ``{{name}}`` placeholders and optional clauses ``[[ ... ]]``.

A saved question may contain ``{{name}}`` where a value goes, declared with a
type (``text``, ``number``, ``date`` or ``list``), and optional clauses such as
``WHERE true [[AND country = {{country}}]]`` that are kept only when every
variable inside them has a value.

Values are never spliced into the SQL text: each ``{{name}}`` becomes a DuckDB
named parameter (``$wbv_<nonce>_<name>``) and the value travels beside the
statement. A ``list`` value (a non-empty JSON array of text, or of numbers) is
bound as one DuckDB list parameter: write ``list_contains({{x}}, col)`` or
``col IN (SELECT unnest({{x}}))``. An invalid value's refusal carries
``{"variable": name}`` in its details. The nonce is a keyed hash of the template (the key random
per process), so a user cannot write a parameter name of their own that happens to match one of
ours: the name depends on the very text they would write it in. It is the same for every binding
of one template, so the permission rewrite's statement cache serves a card run again with the
same values.

Placeholders inside string literals, quoted identifiers and comments are left
alone: ``'{{x}}'`` is the literal text ``{{x}}``. ``[[`` opens an optional
clause only when a variable follows before the next ``]]``, so nested list
literals such as ``[[1, 2], [3]]`` and list comprehensions stay plain SQL.
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
import hmac
import math
import re
import secrets
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Mapping

from sqlglot import exp

from workbench_app.engine.dialect import DIALECT
from workbench_app.engine.errors import STATEMENT_NOT_ALLOWED, VARIABLE_ERROR, EngineError

VARIABLE_TYPES = ("text", "number", "date", "list")
MAX_LIST_ITEMS = 10_000
MAX_TEMPLATE_LENGTH = 200_000
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PLACEHOLDER = re.compile(r"\{\{\s*(.*?)\s*\}\}", re.S)


@dataclass(frozen=True)
class BoundTemplate:
    """SQL with ``$parameter`` placeholders, and the values to bind to them."""

    sql: str
    parameters: dict[str, Any] = field(default_factory=dict)


# --- scanning -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Piece:
    kind: str  # "sql" | "variable" | "open" | "close"
    text: str


def _scan(sql: str) -> list[_Piece]:
    """Split template text into SQL, ``{{variable}}``, ``[[`` and ``]]`` pieces.

    Quoted strings, quoted identifiers and comments are copied verbatim so that
    template markers inside them are not interpreted.
    """
    pieces: list[_Piece] = []
    buffer: list[str] = []
    i, n = 0, len(sql)
    depth = 0
    clauses = _ClauseFinder(sql)

    def flush() -> None:
        if buffer:
            pieces.append(_Piece("sql", "".join(buffer)))
            buffer.clear()

    while i < n:
        # Jump over plain text to the next character that may start something.
        special = _SPECIAL.search(sql, i)
        if special is None:
            buffer.append(sql[i:])
            break
        if special.start() > i:
            buffer.append(sql[i : special.start()])
            i = special.start()
        ch = sql[i]
        two = sql[i : i + 2]
        if ch in ("'", '"'):
            end = _end_of_quoted(sql, i, ch)
            buffer.append(sql[i:end])
            i = end
        elif two == "--":
            end = sql.find("\n", i)
            end = n if end == -1 else end
            buffer.append(sql[i:end])
            i = end
        elif two == "/*":
            end = sql.find("*/", i + 2)
            end = n if end == -1 else end + 2
            buffer.append(sql[i:end])
            i = end
        elif ch == "$" and _dollar_tag(sql, i) is not None:
            tag = _dollar_tag(sql, i)
            end = sql.find(tag, i + len(tag))
            end = n if end == -1 else end + len(tag)
            buffer.append(sql[i:end])
            i = end
        elif two == "{{":
            end = sql.find("}}", i + 2)
            if end == -1:
                raise EngineError(VARIABLE_ERROR, "A variable is opened with {{ but never closed.")
            flush()
            pieces.append(_Piece("variable", sql[i + 2 : end].strip()))
            i = end + 2
        elif two == "[[" and clauses.opens(i):
            flush()
            pieces.append(_Piece("open", two))
            depth += 1
            i += 2
        elif two == "]]" and depth > 0:
            flush()
            pieces.append(_Piece("close", two))
            depth -= 1
            i += 2
        else:
            buffer.append(ch)
            i += 1
    flush()
    return pieces


class _ClauseFinder:
    """Decides whether ``[[`` opens an optional clause rather than a nested list.

    DuckDB writes nested lists as ``[[1, 2], [3]]``, so ``[[`` only opens an
    optional clause when a variable follows before the next ``]]`` (an
    optional clause without a variable would be pointless). Positions are
    precomputed so that text full of ``[[`` stays linear to scan.
    """

    def __init__(self, sql: str):
        self.closes = [m.start() for m in re.finditer(r"\]\]", sql)]
        self.variables = [m.start() for m in re.finditer(r"\{\{", sql)]

    def opens(self, start: int) -> bool:
        """Whether the ``[[`` at ``start`` opens an optional clause."""
        close_index = bisect.bisect_left(self.closes, start + 2)
        close = self.closes[close_index] if close_index < len(self.closes) else None
        variable_index = bisect.bisect_left(self.variables, start + 2)
        variable = self.variables[variable_index] if variable_index < len(self.variables) else None
        if variable is None or (close is not None and variable >= close):
            return False
        if close is None:
            raise EngineError(VARIABLE_ERROR, "An optional clause [[ is never closed.")
        return True


_SPECIAL = re.compile(r"['\"$]|--|/\*|\{\{|\[\[|\]\]")


def _end_of_quoted(sql: str, start: int, quote: str) -> int:
    # SQL doubles the quote character to escape it; there is no backslash escape.
    i = start + 1
    while i < len(sql):
        if sql[i] == quote:
            if sql[i + 1 : i + 2] == quote:
                i += 2
                continue
            return i + 1
        i += 1
    return len(sql)


def _dollar_tag(sql: str, start: int) -> str | None:
    match = re.match(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$", sql[start:])
    return match.group(0) if match else None


# --- public API -----------------------------------------------------------------------------


def variable_names(sql: str) -> list[str]:
    """The distinct ``{{name}}`` variables of a template, in order of appearance."""
    names: list[str] = []
    for piece in _scan(sql):
        if piece.kind == "variable" and piece.text not in names:
            names.append(piece.text)
    return names


def coerce_variable(name: str, declared_type: str, value: Any) -> Any:
    """Check and convert one variable value to its declared type (raise ``variable_error``)."""
    if declared_type not in VARIABLE_TYPES:
        raise _refused(name, f"Variable {name!r} has an unknown type {declared_type!r}.")
    if declared_type == "text":
        if not isinstance(value, str):
            raise _refused(name, f"Variable {name!r} must be text.")
        return value
    if declared_type == "number":
        number = _number(value)
        if number is None:
            raise _refused(name, f"Variable {name!r} must be a finite number.")
        return number
    if declared_type == "list":
        return _list(name, value)
    # date
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise _refused(name, f"Variable {name!r} must be a date (YYYY-MM-DD).")


def _refused(name: str, message: str) -> EngineError:
    return EngineError(VARIABLE_ERROR, message, {"variable": name})


def _number(value: Any) -> int | float | Decimal | None:
    """A finite number from a JSON number or its text, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, Decimal)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            return int(value) if re.fullmatch(r"[+-]?\d+", value.strip()) else _finite(float(value))
        except ValueError:
            return None
    return None


def _list(name: str, value: Any) -> list[Any]:
    # One DuckDB list has one element type: all text, or all numbers (as DOUBLE when any has a fraction).
    message = f"Variable {name!r} must be a non-empty list of text or of numbers (at most {MAX_LIST_ITEMS:,})."
    if not isinstance(value, list) or not 0 < len(value) <= MAX_LIST_ITEMS:
        raise _refused(name, message)
    if all(isinstance(item, str) for item in value):
        return value
    if all(not isinstance(item, (bool, str)) and _number(item) is not None for item in value):
        return [float(item) for item in value] if any(isinstance(i, float) for i in value) else value
    raise _refused(name, message)


def _finite(number: float) -> float:
    if not math.isfinite(number):
        raise ValueError("not finite")
    return number


#: Key of the parameter names' nonce: random per process, never leaves it.
_NONCE_KEY = secrets.token_bytes(32)


def _template_nonce(sql: str) -> str:
    # Not random per call: equal templates bind to equal text, which the rewrite's
    # statement cache can recognise. Unguessable all the same, and a text that
    # names a parameter changes its own nonce.
    return hmac.new(_NONCE_KEY, sql.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:8]


def bind_variables(
    sql: str,
    declarations: Mapping[str, str] | None = None,
    values: Mapping[str, Any] | None = None,
) -> BoundTemplate:
    """Turn a template into SQL with parameters.

    ``declarations`` maps each variable name to ``text``, ``number`` or ``date``;
    a variable used but not declared is refused. A variable outside an optional
    clause must have a value; an optional clause whose variables are not all
    given (missing or ``None``) is dropped. Optional clauses cannot be nested.
    """
    if len(sql) > MAX_TEMPLATE_LENGTH:
        raise EngineError(STATEMENT_NOT_ALLOWED, "The statement is too long.")
    declarations = dict(declarations or {})
    values = dict(values or {})
    for name in values:
        if name not in declarations:
            raise _refused(name, f"Unknown variable {name!r}.")
    nonce = _template_nonce(sql)
    parameters: dict[str, Any] = {}
    out: list[str] = []
    clause: list[str] | None = None
    clause_complete = True

    def placeholder(name: str) -> str | None:
        if not _NAME.match(name):
            raise EngineError(VARIABLE_ERROR, f"{{{{{name}}}}} is not a valid variable name.")
        if name not in declarations:
            raise _refused(name, f"Variable {name!r} is not declared.")
        if values.get(name) is None:
            return None
        param = f"wbv_{nonce}_{name}"
        parameters[param] = coerce_variable(name, declarations[name], values[name])
        # Spaces around the placeholder keep it one token whatever surrounds it.
        return f" ${param} "

    for piece in _scan(sql):
        if piece.kind == "sql":
            (clause if clause is not None else out).append(piece.text)
        elif piece.kind == "open":
            if clause is not None:
                raise EngineError(VARIABLE_ERROR, "Optional clauses [[ ... ]] cannot be nested.")
            clause, clause_complete = [], True
        elif piece.kind == "close":
            if clause is None:
                raise EngineError(VARIABLE_ERROR, "]] closes an optional clause that was never opened.")
            if clause_complete:
                out.append(" " + "".join(clause) + " ")
            clause = None
        else:
            text = placeholder(piece.text)
            if text is None:
                if clause is None:
                    raise _refused(piece.text, f"Variable {piece.text!r} needs a value.")
                clause_complete = False
            else:
                (clause if clause is not None else out).append(text)
    if clause is not None:
        raise EngineError(VARIABLE_ERROR, "An optional clause [[ is never closed.")
    bound_names = set(parameters)
    sql_out = "".join(out)
    # Drop parameters of discarded optional clauses: DuckDB refuses unused named parameters.
    used = {p for p in bound_names if f"${p} " in sql_out}
    return BoundTemplate(sql=sql_out, parameters={k: v for k, v in parameters.items() if k in used})


def substitute_placeholders(sql: str, texts: Mapping[str, str]) -> str:
    """The template with each ``{{name}}`` of ``texts`` replaced by its SQL text (written by the
    server, e.g. a saved segment's subquery with ``{{variables}}`` of its own); literals, comments,
    optional clauses and the other placeholders are kept as they are."""
    out: list[str] = []
    for piece in _scan(sql):
        if piece.kind == "variable":
            out.append(texts[piece.text] if piece.text in texts else "{{" + piece.text + "}}")
        else:
            out.append(piece.text)
    return "".join(out)


def protect_template(sql: str) -> tuple[str, dict[str, str]]:
    """Replace template markers by parseable stand-ins (for the formatter)."""
    tokens: dict[str, str] = {}
    out: list[str] = []
    for index, piece in enumerate(_scan(sql)):
        if piece.kind == "sql":
            out.append(piece.text)
            continue
        key = f"wbtpl{index}"
        if piece.kind == "variable":
            tokens[f"${key}"] = "{{" + piece.text + "}}"
            out.append(f" ${key} ")
        else:
            tokens[f"/* {key} */"] = piece.text
            out.append(f" /* {key} */ ")
    return "".join(out), tokens


def restore_template(sql: str, tokens: Mapping[str, str]) -> str:
    """Undo :func:`protect_template` on formatted SQL."""
    for stand_in, original in tokens.items():
        sql = sql.replace(stand_in, original)
    return sql


def inline_values(sql: str, declarations: Mapping[str, str], values: Mapping[str, Any]) -> str:
    """The template with each value written as a SQL literal (quoted by sqlglot), for "view as SQL".

    The statement is checked exactly like a bound one (types, optional clauses); only the
    ``$parameter`` placeholders become literals, so text such as ``' OR 1=1 --`` stays one string.
    """
    bound = bind_variables(sql, declarations, values)

    def literal(value: Any) -> str:
        if isinstance(value, dt.date):
            return exp.cast(exp.Literal.string(value.isoformat()), "DATE").sql(dialect=DIALECT)
        return exp.convert(value).sql(dialect=DIALECT)

    # Longest names first: `$wbv_n_f1` must not be replaced inside `$wbv_n_f10`.
    text = bound.sql
    for name in sorted(bound.parameters, key=len, reverse=True):
        text = text.replace(f" ${name} ", " " + literal(bound.parameters[name]) + " ")
    return text
