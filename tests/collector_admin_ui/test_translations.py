"""Every string of the pages is in the catalogues, and translated in French and Spanish."""
from __future__ import annotations

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from tests.conftest import REPO_ROOT

CATALOGUES = REPO_ROOT / "collector_app" / "translations"


def _catalogue(locale: str):
    with (CATALOGUES / locale / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return read_po(source)


def _source_messages() -> set[str]:
    """The strings of the collector's templates and Python code, as pybabel extract finds them
    (collector_app/babel.cfg)."""
    method_map = [("**/templates/**.html", "jinja2"), ("**.py", "python")]
    found = set()
    for _filename, _lineno, message, _comments, _context in extract_from_dir(
            REPO_ROOT / "collector_app", method_map, keywords={"_": None, "gettext": None}):
        found.add(message if isinstance(message, str) else message[0])
    return found


def test_every_string_of_the_pages_is_in_the_catalogues():
    messages = _source_messages()
    assert len(messages) > 150  # the extraction really read the templates
    for locale in ("en", "fr", "es"):
        missing = sorted(messages - {entry.id for entry in _catalogue(locale) if entry.id})
        assert missing == [], f"{locale}: {missing[:10]}"


@pytest.mark.parametrize("locale", ["fr", "es"])
def test_every_message_is_translated(locale):
    untranslated = [entry.id for entry in _catalogue(locale) if entry.id and (not entry.string or entry.fuzzy)]
    assert untranslated == []


@pytest.mark.parametrize("locale", ["fr", "es"])
def test_placeholders_survive_translation(locale):
    import re
    for entry in _catalogue(locale):
        if entry.id:
            assert sorted(re.findall(r"%\(\w+\)s", entry.id)) == sorted(re.findall(r"%\(\w+\)s", entry.string)), entry.id
