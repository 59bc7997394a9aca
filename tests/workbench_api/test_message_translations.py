"""Every message the workbench's API can answer exists in English, French and Spanish."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from tests.workbench_api.conftest import ok

ROOT = Path(__file__).resolve().parents[2] / "workbench_app"
# The calls that carry a person-facing message, and the position of the message among their arguments.
MESSAGE_ARGUMENT = {"invalid": 0, "refused": 0, "forbidden": 0, "not_found": 0, "conflict": 0, "unavailable": 0,
                    "WorkbenchError": 2, "EngineError": 1}
VALUE = re.compile(r"\{\d+\}")


def template(node: ast.expr) -> str | None:
    """A string literal or an f-string as the catalogue writes it: values become {0}, {1}..."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        pieces, count = [], 0
        for part in node.values:
            if isinstance(part, ast.Constant):
                pieces.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            else:
                pieces.append("{%d}" % count)
                count += 1
        return "".join(pieces)
    return None


def templates_in_code() -> dict[str, str]:
    found = {}
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            position = MESSAGE_ARGUMENT.get(name)
            if position is not None and len(node.args) > position:
                text = template(node.args[position])
                if text is not None:
                    found.setdefault(text, f"{path.relative_to(ROOT.parent)}:{node.lineno}")
    return found


def catalogue(language: str) -> dict[str, str]:
    with (ROOT / "translations" / language / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return {entry.id: entry.string for entry in read_po(source) if entry.id}


@pytest.mark.parametrize("language", ["en", "fr", "es"])
def test_every_message_of_the_code_is_translated(language):
    messages = catalogue(language)
    missing = {text: where for text, where in templates_in_code().items() if not messages.get(text)}
    assert missing == {}, f"messages without a {language} translation (add them to the .po files): {missing}"


@pytest.mark.parametrize("language", ["fr", "es"])
def test_translations_keep_their_values(language):
    for text, translated in catalogue(language).items():
        assert sorted(VALUE.findall(text)) == sorted(VALUE.findall(translated)), (language, text)
        assert set(catalogue("en")) == set(catalogue(language))


def test_messages_with_values_are_answered_in_the_persons_language(app, admin):
    refused = app.test_client().get("/api/v1/me", headers={"Accept-Language": "fr-CA, en;q=0.5"})
    assert refused.get_json()["error"]["message"].startswith("Un jeton d'API valide est nécessaire")
    ok(admin.patch("/me", {"locale": "fr"}))
    assert admin.post("/sql", {}).get_json()["error"]["message"] == "sql est obligatoire."
    assert admin.get("/questions/999999").get_json()["error"]["message"] == "Question introuvable."
    ok(admin.patch("/me", {"locale": "es"}))
    answer = admin.post("/sql", {"sql": "select {{n}}", "variables": {"n": "x"}, "variable_types": {"n": "number"}})
    assert answer.get_json()["error"]["message"].startswith("La variable 'n' debe ser un número")
    answer = app.test_client().put("/api/v1/openapi.json", headers={"Accept-Language": "es-ES"})
    assert answer.status_code == 405 and answer.get_json()["error"]["message"] == "Este método no está permitido aquí."
