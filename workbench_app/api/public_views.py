"""The `/api/v1` views reached without a session or an API token, marked once, on the view.

`authentication.authenticate_request` lets a marked view through, and the OpenAPI document gives
its operation `security: []`: both read the same mark, so the two cannot disagree. The credential
of such a view, if any, is in its own request (a password, a setup or password link, a shared
link's secret, an embed token), checked by the view.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable, TypeVar

from werkzeug.routing import Rule

View = TypeVar("View", bound=Callable)
_MARK = "reached_without_sign_in"
_VARIABLE = re.compile(r"<(?:[^<>:]+:)?([^<>]+)>")


def public(view: View) -> View:
    """Mark a view as public; put it above the route decorator (Flask registers the function itself)."""
    setattr(view, _MARK, True)
    return view


def is_public(view: Callable | None) -> bool:
    return bool(getattr(view, _MARK, False))


def public_operations(rules: Iterable[Rule], view_functions: dict[str, Callable],
                      prefix: str) -> set[tuple[str, str]]:
    """`(OpenAPI path, method)` of every public view under `prefix`: `/api/v1/public/<link_token>` with
    GET is `("/public/{link_token}", "get")`."""
    operations = set()
    for rule in rules:
        if not rule.rule.startswith(prefix + "/") or not is_public(view_functions.get(rule.endpoint)):
            continue
        path = _VARIABLE.sub(r"{\1}", rule.rule[len(prefix):])
        operations.update((path, method.lower()) for method in rule.methods or ()
                          if method not in ("HEAD", "OPTIONS"))
    return operations
