"""A funnel, path or retention definition compiled to one SQL statement over the analytics views.

Every value of the definition (a page pattern, an event name, a property, a date) is bound as a
`{{variable}}` by the engine, never written into the text; only whole numbers the models have
bounded (steps, periods, the window's seconds) are. The statement names the documented views
(`warehouse.analytics.events`, `pageviews`, `visits`), so it goes through the permission rewrite
of the statement path like any question: a row filter, a hidden or masked column applies.

The answers, one row per:

* funnel: step — `step` (from 1), `label`, `visitors`, `conversion` (of step 1's visitors),
  `step_conversion` (of the previous step's), `drop_off` (visitors lost since the previous step),
  `median_seconds` (from the previous step). A visitor (`visitor_key`) enters at their first step 1
  in the date range; each next step is the first one after the previous, and every step happens
  within the window from step 1 (the events may run past the range's end, by up to the window).
* path: link — `from_step`, `from_page`, `to_step`, `to_page`, `visits`. Steps count page views
  within a visit from the chosen page (0; its first view in the visit), negative before it; a page
  outside a step's `branches` most viewed is null ("other").
* retention: cohort and period — `cohort` (the first day of the week or month), `cohort_visitors`,
  `period` (0 = the cohort's own), `visitors` (who visited in that period), `retention`
  (visitors / cohort_visitors). Visitors known by a cookie (`visitor_kind` cookie, which consent
  mode sets once consent is given) or a signed-in id only.
"""
from __future__ import annotations

from typing import Any

from workbench_app.errors import invalid
from workbench_app.analyses.shapes import (SEGMENT_TYPE, WINDOW_SECONDS, DateRange, FunnelDefinition, PathDefinition,
                                           PropertyCondition, RetentionDefinition, definition)

EVENTS = '"warehouse"."analytics"."events"'
PAGEVIEWS = '"warehouse"."analytics"."pageviews"'
VISITS = '"warehouse"."analytics"."visits"'
RETURNING_KINDS = "('cookie', 'user')"

Compiled = tuple[str, dict[str, str], dict[str, Any]]


def like_pattern(pattern: str) -> str:
    """A page pattern (`*` for any characters) as a LIKE pattern with `\\` escaping the rest."""
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%")


class _Statement:
    """One statement's variables."""

    def __init__(self) -> None:
        self.types: dict[str, str] = {}
        self.values: dict[str, Any] = {}

    def bind(self, name: str, kind: str, value: Any) -> str:
        self.types[name], self.values[name] = kind, value
        return "{{" + name + "}}"

    def site(self, site_id: str | None, column: str = "site_id") -> str:
        if site_id is None:
            return "TRUE"
        return f"{column} = CAST({self.bind('site_id', 'text', site_id)} AS UUID)"

    def range(self, date_range: DateRange) -> tuple[str, str]:
        """(start, end) of the range as SQL timestamps, the end excluded."""
        if date_range.last is not None:
            unit = date_range.unit.upper()
            end = f"date_trunc('{date_range.unit}', CAST(current_timestamp AS TIMESTAMP))"
            return f"({end} - {self.bind('range_last', 'number', date_range.last)} * INTERVAL 1 {unit})", end
        start = f"CAST({self.bind('range_from', 'date', date_range.from_)} AS TIMESTAMP)"
        end = f"(CAST({self.bind('range_to', 'date', date_range.to)} AS TIMESTAMP) + INTERVAL 1 DAY)"
        return start, end

    def event(self, prefix: str, name: str, properties: list[PropertyCondition]) -> str:
        conditions = [f"event_name = {self.bind(prefix, 'text', name)}"]
        for index, condition in enumerate(properties):
            key = self.bind(f"{prefix}_key{index}", "text", condition.key)
            value = f"json_extract_string(props, '$.' || to_json({key}))"
            if condition.operator == "contains":
                text = like_pattern(condition.value.replace("*", "\x00")).replace("\x00", "*")
                conditions.append(f"{value} LIKE '%' || {self.bind(f'{prefix}_value{index}', 'text', text)} || '%' ESCAPE '\\'")
            else:
                operator = "=" if condition.operator == "=" else "IS DISTINCT FROM"
                conditions.append(f"{value} {operator} {self.bind(f'{prefix}_value{index}', 'text', condition.value)}")
        return "(" + " AND ".join(conditions) + ")"

    def scope(self, analysis: FunnelDefinition | PathDefinition | RetentionDefinition) -> str:
        """The rows of the analysis' site and, with a segment, of its visits only (the `{{segment}}`
        variable, expanded into a subquery of visit ids before the statement runs)."""
        site = self.site(analysis.site_id)
        if analysis.segment_id is None:
            return site
        return f"{site} AND visit_id IN {self.bind('segment', SEGMENT_TYPE, analysis.segment_id)}"

    def page(self, name: str, pattern: str) -> str:
        return f"path LIKE {self.bind(name, 'text', like_pattern(pattern))} ESCAPE '\\'"


# Saved segments (content/segments.py) bind their conditions with the same helpers.
Binder = _Statement


def compile_funnel(funnel: FunnelDefinition) -> Compiled:
    statement = _Statement()
    start, end = statement.range(funnel.date_range)
    window = funnel.window.amount * WINDOW_SECONDS[funnel.window.unit]
    matches = []
    for index, step in enumerate(funnel.steps):
        if step.page is not None:
            matches.append(f"(event_type = 'pageview' AND {statement.page(f'step{index}_page', step.page)})")
        else:
            matches.append(statement.event(f"step{index}_event", step.event, step.properties))
    flags = ", ".join(f"{match} AS m{index}" for index, match in enumerate(matches))
    any_step = " OR ".join(f"m{index}" for index in range(len(matches)))
    # Step 1 starts in the range; later steps may run past its end by up to the window.
    ctes = [
        f"matched AS (SELECT * FROM (SELECT visitor_key, occurred_at AS ts, {flags} FROM {EVENTS} "
        f"WHERE {statement.scope(funnel)} AND visitor_key IS NOT NULL AND occurred_at >= {start} "
        f"AND occurred_at < {end} + INTERVAL {window} SECOND) AS flagged WHERE {any_step})",
        f"reached0 AS (SELECT visitor_key, min(ts) AS t0 FROM matched WHERE m0 AND ts < {end} GROUP BY visitor_key)",
    ]
    for index in range(1, len(matches)):
        earlier = ", ".join(f"r.t{n}" for n in range(index))
        ctes.append(
            f"reached{index} AS (SELECT r.visitor_key, {earlier}, min(m.ts) AS t{index} FROM reached{index - 1} AS r "
            f"JOIN matched AS m ON m.visitor_key = r.visitor_key AND m.m{index} AND m.ts > r.t{index - 1} "
            f"AND m.ts <= r.t0 + INTERVAL {window} SECOND GROUP BY r.visitor_key, {earlier})")
    counts = ["SELECT 1 AS step, count(*) AS visitors, CAST(NULL AS DOUBLE) AS median_seconds FROM reached0"]
    for index in range(1, len(matches)):
        counts.append(f"SELECT {index + 1}, count(*), median(epoch(t{index}) - epoch(t{index - 1})) FROM reached{index}")
    ctes.append("counts AS (" + " UNION ALL ".join(counts) + ")")
    labels = " ".join(
        f"WHEN {index + 1} THEN {statement.bind(f'step{index}_label', 'text', _label(step))}"
        for index, step in enumerate(funnel.steps))
    sql = (f"WITH {', '.join(ctes)} SELECT step, CASE step {labels} END AS label, visitors, "
           "visitors / nullif(first_value(visitors) OVER (ORDER BY step), 0) AS conversion, "
           "visitors / nullif(lag(visitors) OVER (ORDER BY step), 0) AS step_conversion, "
           "lag(visitors) OVER (ORDER BY step) - visitors AS drop_off, median_seconds "
           "FROM counts ORDER BY step")
    return sql, statement.types, statement.values


def _label(step: Any) -> str:
    return step.label or step.page or step.event


def compile_path(path: PathDefinition) -> Compiled:
    """One pass over the range's page views: each view with the pages before and after it in its
    visit (lag and lead), the visit's first view of the chosen page kept; no self-join."""
    statement = _Statement()
    start, end = statement.range(path.date_range)
    before, after = path.steps_before, path.steps_after
    window = "OVER (PARTITION BY visit_id ORDER BY occurred_at, event_id)"
    around = [f"lag(path, {k}) {window} AS b{k}" for k in range(1, before + 1)]
    around += [f"lead(path, {k}) {window} AS a{k}" for k in range(1, after + 1)]
    anchor = "n = 1" if path.start == "entry" else statement.page("page", path.page)
    columns = {0: "path", **{-k: f"b{k}" for k in range(1, before + 1)}, **{k: f"a{k}" for k in range(1, after + 1)}}
    steps = " UNION ALL ".join(f"SELECT {step} AS step, {column} AS path FROM anchored WHERE {column} IS NOT NULL"
                               for step, column in sorted(columns.items()))
    links = " UNION ALL ".join(
        f"SELECT {step} AS from_step, {columns[step]} AS from_path, {step + 1} AS to_step, "
        f"{columns[step + 1]} AS to_path FROM anchored WHERE {columns[step + 1]} IS NOT NULL"
        for step in range(-before, after))
    sql = (f"WITH seq AS (SELECT visit_id, path, row_number() {window} AS n, {', '.join(around)} FROM "
           f"(SELECT visit_id, coalesce(path, '') AS path, occurred_at, event_id FROM {PAGEVIEWS} "
           f"WHERE {statement.scope(path)} AND occurred_at >= {start} AND occurred_at < {end}) AS views), "
           f"anchored AS (SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY visit_id ORDER BY n) AS first "
           f"FROM seq WHERE {anchor}) AS matches WHERE first = 1), "
           f"ranks AS (SELECT step, path, row_number() OVER (PARTITION BY step ORDER BY count(*) DESC, path) AS r "
           f"FROM ({steps}) AS steps GROUP BY step, path), "
           f"links AS ({links}) "
           f"SELECT l.from_step, CASE WHEN f.r <= {path.branches} THEN l.from_path END AS from_page, l.to_step, "
           f"CASE WHEN t.r <= {path.branches} THEN l.to_path END AS to_page, count(*) AS visits FROM links AS l "
           "JOIN ranks AS f ON f.step = l.from_step AND f.path = l.from_path "
           "JOIN ranks AS t ON t.step = l.to_step AND t.path = l.to_path "
           "GROUP BY l.from_step, from_page, l.to_step, to_page "
           "ORDER BY from_step, visits DESC, from_page NULLS LAST, to_page NULLS LAST")
    return sql, statement.types, statement.values


def compile_retention(retention: RetentionDefinition) -> Compiled:
    statement = _Statement()
    start, end = statement.range(retention.date_range)
    unit, periods = retention.period, retention.periods
    site = statement.scope(retention)
    known = (f"known AS (SELECT visitor_key, visit_start AS ts FROM {VISITS} WHERE {site} "
             f"AND visitor_kind IN {RETURNING_KINDS} AND visitor_key IS NOT NULL "
             f"AND visit_start < {end} + INTERVAL {periods + 1} {unit.upper()})")
    if retention.cohort_event is None:
        cohorts = "cohorts AS (SELECT visitor_key, date_trunc('" + unit + "', min(ts)) AS cohort FROM known GROUP BY visitor_key)"
    else:
        event = retention.cohort_event
        cohorts = (f"cohorts AS (SELECT visitor_key, date_trunc('{unit}', min(occurred_at)) AS cohort FROM {EVENTS} "
                   f"WHERE {site} AND {statement.event('cohort_event', event.event, event.properties)} "
                   f"AND visitor_key IN (SELECT visitor_key FROM known) GROUP BY visitor_key)")
    sql = (f"WITH {known}, {cohorts}, "
           f"kept AS (SELECT visitor_key, CAST(cohort AS TIMESTAMP) AS cohort FROM cohorts "
           f"WHERE cohort >= date_trunc('{unit}', {start}) AND cohort < {end}), "
           "sizes AS (SELECT cohort, count(*) AS cohort_visitors FROM kept GROUP BY cohort), "
           f"returns AS (SELECT DISTINCT k.visitor_key, k.cohort, date_diff('{unit}', k.cohort, "
           f"date_trunc('{unit}', CAST(v.ts AS TIMESTAMP))) AS period FROM kept AS k JOIN known AS v "
           "ON v.visitor_key = k.visitor_key AND CAST(v.ts AS TIMESTAMP) >= k.cohort) "
           "SELECT CAST(r.cohort AS DATE) AS cohort, s.cohort_visitors, r.period, count(*) AS visitors, "
           "count(*) / s.cohort_visitors AS retention FROM returns AS r JOIN sizes AS s ON s.cohort = r.cohort "
           f"WHERE r.period BETWEEN 0 AND {periods} GROUP BY r.cohort, s.cohort_visitors, r.period "
           "ORDER BY cohort, r.period")
    return sql, statement.types, statement.values


_COMPILERS = {"funnel": compile_funnel, "path": compile_path, "retention": compile_retention}

# What a saved analysis offers a dashboard (its question's variables): a date range's first and last
# day, which replace the definition's own range, and a saved segment, which replaces its segment.
DASHBOARD_VARIABLES = {"from": "date", "to": "date", "segment": SEGMENT_TYPE}


def with_dashboard_values(value: Any, values: dict[str, Any] | None) -> Any:
    """A definition with the values a dashboard's filters give it (DASHBOARD_VARIABLES): `from` and
    `to` together become its date range, `segment` its segment; the rest is the definition's."""
    if not values:
        return value
    unknown = sorted(set(values) - set(DASHBOARD_VARIABLES))
    if unknown:
        raise invalid("An analysis question takes the variables from, to and segment only.", field="variables",
                      unknown=unknown)
    if ("from" in values) != ("to" in values):
        raise invalid("An analysis question takes from and to together.", field="variables")
    if not isinstance(value, dict):
        return value  # refused as it is by compile_analysis
    narrowed = dict(value)
    if "from" in values:
        narrowed["date_range"] = {"from": values["from"], "to": values["to"]}
    if values.get("segment") is not None:
        narrowed["segment_id"] = values["segment"]
    return narrowed


def compile_analysis(value: Any, field: str = "analysis") -> Compiled:
    """(SQL with {{variables}}, their types, their values) of a definition; refuses a bad one (400)."""
    checked = definition(value, field)
    return _COMPILERS[checked.kind](checked)
