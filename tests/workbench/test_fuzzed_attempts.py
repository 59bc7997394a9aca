"""Randomised attempts (fixed seed): whatever is assembled, the engine fails closed.

Fragments that reach hidden data are combined with every construct of the
bypass suite; each statement must either be refused with an EngineError or
return nothing the analyst may not see. Any other exception is a bug too.
"""

from __future__ import annotations

import random

from tests.workbench.test_bypass_suite import FORBIDDEN, engine  # noqa: F401 - the warehouse file and the lake
from workbench_app.engine import EngineError

RELATIONS = [
    "events", "EVENTS", '"Events"', "analytics.events", "warehouse.analytics.events", "salaries",
    '"SALARIES"', "warehouse.analytics.salaries", "crm.customers", "crm.api_keys", "crm.main.api_keys",
    "(SELECT * FROM salaries)", "(SELECT * FROM events)", "range(3)", "read_csv('/etc/passwd')",
    "query('SELECT * FROM salaries')", "'/etc/passwd'", "unnest([1, 2])", "information_schema.tables",
]
COLUMNS = ["*", "email", "e.email", "visitor_hash", "e", "to_json(e)", "card", "secret", "amount", "page", "id"]
WRAPPERS = [
    "SELECT {cols} FROM {rel} e",
    "WITH e AS (SELECT * FROM {rel}) SELECT {cols} FROM e",
    "WITH events AS (SELECT * FROM {rel}) SELECT {cols} FROM events e",
    "SELECT {cols} FROM {rel} e UNION ALL SELECT {cols} FROM {rel2} e",
    "SELECT {cols} FROM events x, LATERAL (SELECT * FROM {rel} e) e",
    "SELECT {cols} FROM {rel} e WHERE e IN (SELECT e FROM {rel2} e)",
    "SELECT {cols}, count(*) OVER (PARTITION BY 1) FROM {rel} e /* {rel2} */",
    "SELECT {cols} FROM {rel} e -- ; SELECT * FROM {rel2}\n",
    "SELECT (SELECT max({cols}) FROM {rel2} e) FROM {rel} e",
    "SELECT {cols} FROM {rel} e NATURAL JOIN {rel2} f",
]


def test_random_assemblies_fail_closed(engine, analyst):
    generator = random.Random(20261121)
    refused = ran = 0
    for _ in range(300):
        sql = generator.choice(WRAPPERS).format(
            cols=generator.choice(COLUMNS), rel=generator.choice(RELATIONS), rel2=generator.choice(RELATIONS)
        )
        try:
            result = engine.run(sql, analyst)
        except EngineError:
            refused += 1
            continue
        ran += 1
        text = repr(result.rows)
        for secret in FORBIDDEN:
            assert secret not in text, f"{secret!r} leaked by {sql!r}"
    assert refused > 50 and ran > 20, (refused, ran)  # both outcomes were exercised
