"""Variables {{name}} and optional clauses [[ ... ]]: typed, always bound as values."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest

from workbench_app.engine import EngineError, bind_variables, substitute_placeholders, variable_names


def test_variables_become_parameters_not_text():
    bound = bind_variables("SELECT * FROM t WHERE a = {{name}}", {"name": "text"}, {"name": "x' OR 1=1 --"})
    assert "OR 1=1" not in bound.sql
    assert list(bound.parameters.values()) == ["x' OR 1=1 --"]
    (parameter,) = bound.parameters
    assert f"${parameter}" in bound.sql


def test_parameter_names_are_unguessable():
    # A keyed hash of the template (the key is random per process): stable for one
    # template, so a card run again is recognised by the rewrite's statement cache...
    first = bind_variables("SELECT {{n}}", {"n": "number"}, {"n": 1})
    assert bind_variables("SELECT {{n}}", {"n": "number"}, {"n": 2}).parameters.keys() == first.parameters.keys()
    # ...but another text gets other names, so writing a name seen once into a
    # template makes it name nothing, and the process's key is its own.
    (name,) = first.parameters
    assert not name.endswith(hashlib.sha256(b"SELECT {{n}}").hexdigest()[:8] + "_n")
    forged = bind_variables(f"SELECT {{{{n}}}} + ${name}", {"n": "number"}, {"n": 1})
    assert name not in forged.parameters
    assert set(bind_variables("SELECT {{n}} ", {"n": "number"}, {"n": 1}).parameters) != set(first.parameters)


def test_a_forged_parameter_name_is_refused(engine, analyst):
    (name,) = bind_variables("SELECT {{n}} AS v", {"n": "number"}, {"n": 1}).parameters
    with pytest.raises(EngineError) as refused:
        engine.run(f"SELECT {{{{n}}}} AS v, ${name} AS w", analyst, {"n": 1}, {"n": "number"})
    assert refused.value.code == "variable_error"


@pytest.mark.parametrize(
    "kind, value, expected",
    [
        ("number", 3, 3),
        ("number", "2.5", 2.5),
        ("number", "-7", -7),
        ("date", "2026-03-01", dt.date(2026, 3, 1)),
        ("date", dt.datetime(2026, 3, 1, 12, 0), dt.date(2026, 3, 1)),
        ("text", "EU", "EU"),
    ],
)
def test_values_are_coerced_to_their_type(kind, value, expected):
    bound = bind_variables("SELECT {{v}}", {"v": kind}, {"v": value})
    assert list(bound.parameters.values()) == [expected]


@pytest.mark.parametrize(
    "kind, value",
    [("number", "1; DROP TABLE x"), ("number", True), ("number", float("nan")), ("date", "yesterday"),
     ("text", 5), ("colour", "red")],
)
def test_wrong_values_are_refused(kind, value):
    with pytest.raises(EngineError) as refused:
        bind_variables("SELECT {{v}}", {"v": kind}, {"v": value})
    assert refused.value.code == "variable_error"


def test_optional_clause_is_kept_only_with_all_its_values():
    sql = "SELECT * FROM t WHERE true [[AND country = {{country}}]] [[AND day >= {{since}} AND page = {{page}}]]"
    types = {"country": "text", "since": "date", "page": "text"}
    kept = bind_variables(sql, types, {"country": "FR", "since": "2026-01-01"})
    assert "country =" in kept.sql and "day >=" not in kept.sql
    assert sorted(map(type, kept.parameters.values()), key=str) == [str]
    dropped = bind_variables(sql, types, {})
    assert "country" not in dropped.sql and dropped.parameters == {}


@pytest.mark.parametrize(
    "sql, declarations, values",
    [
        ("SELECT {{missing}}", {"missing": "text"}, {}),  # required outside an optional clause
        ("SELECT {{undeclared}}", {}, {"undeclared": "x"}),
        ("SELECT {{user.region}}", {}, {}),  # rule attributes are not user variables
        ("SELECT [[ [[ {{a}} ]] ]]", {"a": "text"}, {"a": "x"}),
        ("SELECT [[ {{a}}", {"a": "text"}, {"a": "x"}),
        ("SELECT {{a", {"a": "text"}, {"a": "x"}),
        ("SELECT {{a}} ]] [[ {{a}}", {"a": "text"}, {"a": "x"}),
    ],
)
def test_malformed_templates_are_refused(sql, declarations, values):
    with pytest.raises(EngineError) as refused:
        bind_variables(sql, declarations, values)
    assert refused.value.code == "variable_error"


def test_nested_lists_are_not_optional_clauses(engine, analyst):
    sql = "SELECT [[1, 2], [3]] AS nested, [x * 2 FOR x IN [1, 2]] AS doubled"
    assert bind_variables(sql).sql == sql
    assert engine.run(sql, analyst).rows == [([[1, 2], [3]], [2, 4])]


def test_markers_inside_strings_and_comments_are_text():
    sql = "SELECT '{{a}} [[x]]' AS s, \"{{b}}\" -- {{c}}\n /* [[ */ FROM t"
    bound = bind_variables(sql, {}, {})
    assert bound.sql == sql and bound.parameters == {}
    assert variable_names("SELECT {{a}}, '{{b}}', {{a}} [[ {{c}} ]]") == ["a", "c"]


def test_variables_run_through_the_engine(engine, analyst):
    sql = "SELECT id FROM events WHERE revenue >= {{min}} [[AND page = {{page}}]] ORDER BY id"
    types = {"min": "number", "page": "text"}
    assert engine.run(sql, analyst, {"min": 15}, types).rows == [(2,), (5,)]
    assert engine.run(sql, analyst, {"min": 15, "page": "/home"}, types).rows == [(5,)]
    dated = engine.run(
        "SELECT {{d}} + INTERVAL 1 DAY AS next_day", analyst, {"d": "2026-02-28"}, {"d": "date"}
    )
    assert dated.rows[0][0].date() == dt.date(2026, 3, 1)


def test_a_placeholder_is_replaced_by_server_sql_and_nothing_else_is():
    template = ("SELECT '{{segment}}' AS literal -- {{segment}}\n"
                "FROM visits WHERE true [[AND visit_id IN {{segment}}]] AND site = {{site}}")
    replaced = substitute_placeholders(template, {"segment": "(SELECT visit_id FROM v WHERE c = {{segment__c}})"})
    assert replaced == ("SELECT '{{segment}}' AS literal -- {{segment}}\n"
                        "FROM visits WHERE true [[AND visit_id IN (SELECT visit_id FROM v WHERE c = {{segment__c}})]]"
                        " AND site = {{site}}")
    bound = bind_variables(replaced, {"segment__c": "text", "site": "text"}, {"segment__c": "x", "site": "s"})
    assert sorted(bound.parameters.values()) == ["s", "x"]
