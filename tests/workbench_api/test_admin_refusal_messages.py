"""Engine refusals name what the person wrote, never the parser's internals, in their language."""
from __future__ import annotations

import pytest

from tests.workbench_api.conftest import ok


def test_json_object_is_read_as_the_allowed_function_it_is(admin):
    result = ok(admin.post("/sql", {"sql": "SELECT json_object('page', page) AS j FROM page_views WHERE view_id = 1"}))
    assert result["rows"] == [['{"page":"/home"}']]


@pytest.mark.parametrize("sql, construct", [
    ("SELECT * FROM page_views FOR UPDATE", "FOR UPDATE / FOR SHARE is not allowed in a statement."),
    ("SELECT 1 INTO copy_of_it", "SELECT ... INTO is not allowed in a statement."),
    ("SELECT * FROM page_views AT (VERSION => 1)", "AT (VERSION => 1) on a table is not allowed."),
])
def test_a_refusal_names_the_construct_as_written(admin, sql, construct):
    refused = admin.post("/sql", {"sql": sql})
    assert refused.status_code == 400
    message = refused.get_json()["error"]["message"]
    assert message == construct
    assert not any(internal in message for internal in ("JSONKEYVALUE", "LOCK)", "(INTO)", "WHEN on"))


def test_the_refusal_is_in_the_persons_language(admin):
    ok(admin.patch("/me", {"locale": "fr"}))
    refused = admin.post("/sql", {"sql": "SELECT * FROM page_views FOR UPDATE"})
    assert refused.get_json()["error"]["message"] == "FOR UPDATE / FOR SHARE n'est pas autorisé dans une requête."
    ok(admin.patch("/me", {"locale": "es"}))
    refused = admin.post("/sql", {"sql": "SELECT 1 INTO x"})
    assert refused.get_json()["error"]["message"] == "SELECT ... INTO no está permitido en una consulta."


@pytest.mark.parametrize("sql, keyword", [
    ("DELETE FROM page_views", "DELETE"),
    ("  -- tidy up\n drop table page_views", "DROP"),
    ("ATTACH 'other.duckdb' AS other", "ATTACH"),
    ("INSERT INTO page_views SELECT * FROM page_views", "INSERT"),
    ("SET threads = 1", "SET"),
])
def test_a_statement_that_is_not_a_read_names_its_keyword(admin, sql, keyword):
    refused = admin.post("/sql", {"sql": sql})
    assert refused.status_code == 400
    assert refused.get_json()["error"] == {
        "code": "statement_not_allowed", "details": refused.get_json()["error"]["details"],
        "message": f"{keyword} is not allowed: only read statements (SELECT) can be run."}
    ok(admin.patch("/me", {"locale": "fr"}))
    refused = admin.post("/sql", {"sql": sql})
    assert refused.get_json()["error"]["message"] == (
        f"{keyword} n'est pas autorisé : seules les requêtes de lecture (SELECT) peuvent être exécutées.")
    ok(admin.patch("/me", {"locale": "en"}))
