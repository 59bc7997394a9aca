"""Languages of the API's messages (Flask-Babel): the account's choice, else the browser's.

Catalogues are `workbench_app/translations/<language>/LC_MESSAGES/messages.po`, compiled to `.mo`
by `make translations`. Their msgids are the messages as the code writes them, as Python format
templates: `"Variable {0} must be a number."`. A refusal is raised in English wherever it happens
(deep in the engine too, which knows nothing of requests); when the answer is built, `translate`
finds the template the message was made from, translates it, and puts the values back. A test
checks that every message the code can raise has its template in the three catalogues.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator
from pathlib import Path

from babel.messages.pofile import read_po
from flask import Flask, g, has_request_context, request
from flask_babel import Babel, force_locale, gettext

LANGUAGES = ("en", "fr", "es")
TRANSLATIONS = Path(__file__).parent / "translations"
_VALUE = re.compile(r"\{(\d+)\}")
# Templates whose value is itself a word of the catalogue ("Question" in "{0} not found.").
_NOUN_TEMPLATES = frozenset({"{0} not found.", "You may view but not change this {0}."})


def select_language() -> str:
    who = getattr(g, "identity", None)
    if who is not None and who.locale in LANGUAGES:
        return who.locale
    if not has_request_context():
        return "en"
    # In the browser's order of preference, by primary subtag: "fr-CA, en;q=0.5" is French.
    for tag, _quality in request.accept_languages:
        primary = tag.split("-")[0].split("_")[0].lower()
        if primary in LANGUAGES:
            return primary
    return "en"


@contextmanager
def language(locale: str) -> Iterator[None]:
    """gettext in `locale` (a language of LANGUAGES, else English) outside any request, as for a
    delivered report. Flask-Babel's `force_locale` does nothing while `g` is empty: it is not, here."""
    g.message_language = locale if locale in LANGUAGES else "en"
    with force_locale(g.message_language):
        yield


def init_languages(app: Flask) -> None:
    Babel(app, locale_selector=select_language, default_translation_directories=str(TRANSLATIONS))


def _literal(text: str) -> str:
    return text.replace("{{", "{").replace("}}", "}")


@lru_cache(maxsize=1)
def _templates() -> tuple[dict[str, str], tuple[tuple[re.Pattern, str, tuple[int, ...]], ...]]:
    """(message -> template of the messages without values, patterns of those with values)."""
    with (TRANSLATIONS / "en" / "LC_MESSAGES" / "messages.po").open("rb") as source:
        catalogue = read_po(source)
    exact: dict[str, str] = {}
    patterns = []
    for entry in catalogue:
        template = entry.id
        if not template or not isinstance(template, str):
            continue
        pieces = _VALUE.split(template)  # literal, index, literal, index, ..., literal
        if len(pieces) == 1:
            exact[_literal(template)] = template
            continue
        regex = "".join(re.escape(_literal(piece)) if n % 2 == 0 else "(.+?)" for n, piece in enumerate(pieces))
        literal_length = sum(len(piece) for piece in pieces[::2])
        patterns.append((literal_length, re.compile(regex + r"\Z", re.S), template, tuple(int(i) for i in pieces[1::2])))
    # The most specific template first: "Table {0} not found." before "{0} not found.".
    patterns.sort(key=lambda item: -item[0])
    return exact, tuple(item[1:] for item in patterns)


def translate(message: object) -> str:
    """`message` in the request's language (as it is when no template matches)."""
    text = str(message)
    if not has_request_context():
        return text
    exact, patterns = _templates()
    if text in exact:
        return _literal(gettext(exact[text]))
    for pattern, template, indexes in patterns:
        found = pattern.match(text)
        if found is None:
            continue
        values = [""] * (max(indexes) + 1)
        for index, value in zip(indexes, found.groups()):
            values[index] = translate(value) if template in _NOUN_TEMPLATES and value in exact else value
        return gettext(template).format(*values)
    return text
