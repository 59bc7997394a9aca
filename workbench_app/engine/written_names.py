"""Result columns named by the text the person wrote, as every SQL client names them.

DuckDB names a column without an alias by printing the expression it parsed, so once the
permission rewrite has re-rendered the statement a column would show the rewrite's text
(`main.struct_pack(a := 1)`, `list_transform(main.list_value(1, 2), (lambda x: (x + 1)))`).
Before the rewrite touches the tree, each unaliased item of the outermost SELECT list gets an
alias holding the characters the person typed for it. The alias is an identifier, quoted when
rendered, so it adds no way into the statement: DuckDB's parse check of the final text still
decides which tables and functions run.
"""
from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

_OPEN = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE}
_CLOSE = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE}
# What ends a SELECT list at its own depth.
_END = {
    TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.HAVING, TokenType.ORDER_BY,
    TokenType.LIMIT, TokenType.OFFSET, TokenType.WINDOW, TokenType.QUALIFY, TokenType.UNION,
    TokenType.INTERSECT, TokenType.EXCEPT, TokenType.INTO, TokenType.SEMICOLON, TokenType.FETCH,
}
#: A longer item keeps the name DuckDB gives it (a name is for reading at a glance).
MAX_NAME_LENGTH = 300


def name_columns_as_written(tree: exp.Expression, sql: str) -> None:
    """Alias each unaliased item of the statement's outermost SELECT list by its written text.

    Leaves the tree alone whenever the written list cannot be matched item for item (a form the
    token scan does not follow): the columns then keep DuckDB's names, as before.
    """
    select = _outermost_select(tree)
    if select is None:
        return
    written = written_select_items(sql)
    items = select.expressions
    if written is None or len(written) != len(items):
        return
    for index, (item, text) in enumerate(zip(items, written)):
        if not _takes_written_name(item) or not text or len(text) > MAX_NAME_LENGTH:
            continue
        items[index] = exp.alias_(item, exp.to_identifier(text, quoted=True), copy=False)
    select.set("expressions", items)


def _outermost_select(tree: exp.Expression) -> exp.Select | None:
    """The SELECT whose list names the result: the statement's own, or a set operation's leftmost."""
    node = tree
    while isinstance(node, exp.SetOperation):
        node = node.this
    return node if isinstance(node, exp.Select) else None


def _takes_written_name(item: exp.Expression) -> bool:
    # A column keeps its own name; stars and COLUMNS(...) stand for several columns (count(*)'s does not).
    if isinstance(item, (exp.Alias, exp.Column, exp.Star)) or item.find(exp.Columns) is not None:
        return False
    return all(isinstance(star.parent, exp.Count) for star in item.find_all(exp.Star))


def written_select_items(sql: str) -> list[str] | None:
    """The text of each item of the first SELECT list at the statement's top level, or None."""
    try:
        tokens = Dialect.get_or_raise("duckdb").tokenize(sql)
    except TokenError:
        return None
    start = _first_top_level_select(tokens)
    if start is None:
        return None
    items: list[list[Token]] = [[]]
    depth = 0
    position = _skip_quantifier(tokens, start + 1)
    for token in tokens[position:]:
        if depth == 0 and token.token_type in _END:
            break
        if token.token_type in _OPEN:
            depth += 1
        elif token.token_type in _CLOSE:
            depth -= 1
            if depth < 0:
                break  # the end of a parenthesised query
        if depth == 0 and token.token_type == TokenType.COMMA:
            items.append([])
            continue
        items[-1].append(token)
    if any(not item for item in items):
        return None
    return [_text(sql, item[0], item[-1]) for item in items]


def _first_top_level_select(tokens: list[Token]) -> int | None:
    depth = 0
    for index, token in enumerate(tokens):
        if token.token_type in _OPEN:
            depth += 1
        elif token.token_type in _CLOSE:
            depth -= 1
        elif depth == 0 and token.token_type == TokenType.SELECT:
            return index
    return None


def _skip_quantifier(tokens: list[Token], position: int) -> int:
    """Past DISTINCT, DISTINCT ON (...) or ALL."""
    if position < len(tokens) and tokens[position].token_type == TokenType.ALL:
        return position + 1
    if position < len(tokens) and tokens[position].token_type == TokenType.DISTINCT:
        position += 1
        if position < len(tokens) and tokens[position].token_type == TokenType.ON:
            depth = 0
            for index in range(position + 1, len(tokens)):
                kind = tokens[index].token_type
                depth += kind in _OPEN
                depth -= kind in _CLOSE
                if depth == 0:
                    return index + 1
    return position


def _text(sql: str, first: Token, last: Token) -> str:
    # One line, as a heading shows it: a line break and its indentation become one space.
    return re.sub(r"\s*\n\s*", " ", sql[first.start:last.end + 1]).strip()
