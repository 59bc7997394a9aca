"""Languages of the API's messages (Flask-Babel): the account's choice, else the browser's.

Catalogues are `workbench_app/translations/<language>/LC_MESSAGES/messages.po`, compiled to `.mo`
by `make translations`. A message is translated when the error answer is built, so a refusal
raised deep in the engine reaches each person in their own language.
"""
from __future__ import annotations

from pathlib import Path

from flask import Flask, g, has_request_context, request
from flask_babel import Babel, gettext

LANGUAGES = ("en", "fr", "es")
TRANSLATIONS = Path(__file__).parent / "translations"


def select_language() -> str:
    who = getattr(g, "identity", None)
    if who is not None and who.locale in LANGUAGES:
        return who.locale
    return request.accept_languages.best_match(LANGUAGES) or "en"


def init_languages(app: Flask) -> None:
    Babel(app, locale_selector=select_language, default_translation_directories=str(TRANSLATIONS))


def translate(message: str) -> str:
    """`message` in the request's language (as it is when no catalogue has it)."""
    return gettext(message) if has_request_context() and isinstance(message, str) else str(message)
