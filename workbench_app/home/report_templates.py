"""The reports every site gets: Overview, Acquisition, Content, Events and goals, E-commerce,
Audience and Real time, as data.

Each report is an ordinary dashboard of SQL questions over the `analytics` views. The statements
are the same for every site: the site is the `{{site}}` variable and the dates the `{{from}}` and
`{{to}}` variables, fed by two dashboard filters linked to every card (Site, with the site's id as
its default, and Period, a date range). `site_reports.py` turns these definitions into a folder,
questions and dashboards, once per site.

The texts people read (names, descriptions, text cards, filter names, the New and Returning labels)
go through `texts(locale)`: the `reports.po` catalogue of the language (fr, es), English as written.

A number with its change (`{"kind": "change", "y": [value, previous]}`) compares the period with
the one of the same length just before it; `better: "lower"` colours a fall as good news (bounce
rate). Charts are stored as the web application stores them (`frontend/src/features/charts/chartSpec.ts`).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from babel.messages.pofile import read_po

from workbench_app.i18n import LANGUAGES, TRANSLATIONS

# The variables every statement may use, and their types.
VARIABLES = {"site": "text", "from": "date", "to": "date", "channel": "list", "segment": "segment"}
SITE_FILTER = "Site"
PERIOD_FILTER = "Period"
# The segment: visits of some channels (Channel), and a saved segment (Segment: its id, expanded
# into a subquery of visit ids by content/segments.py), both optional clauses (no value: every
# visit). Cards over visits and conversions test the visit's channel; cards over the other tables
# whose rows belong to a visit reach both through visit_id; the e-commerce funnel (counts per day,
# no visit) and attribution (a conversion's touches over several visits) take neither.
SEGMENT_FILTER = "Channel"
SEGMENT_VALUES = {"table": "warehouse.analytics.visits", "column": "channel"}
SAVED_SEGMENT_FILTER = "Segment"
_SEGMENTED = ("visits", "conversions")
_BY_VISIT = ("events", "pageviews", "scroll_depth", "zone_visibility", "orders", "order_items")
_SEGMENT = "\n    [[AND list_contains({{channel}}, channel)]]\n    [[AND visit_id IN {{segment}}]]"
_VISIT_SEGMENT = ("\n    [[AND visit_id IN (SELECT visit_id FROM visits WHERE list_contains({{channel}}, channel))]]"
                  "\n    [[AND visit_id IN {{segment}}]]")


def _segment(table: str) -> str:
    """The segment's clauses for a card over `table` (none for a table without visits)."""
    return _SEGMENT if table in _SEGMENTED else _VISIT_SEGMENT if table in _BY_VISIT else ""
DEFAULT_PERIOD = "last-30-days"
REAL_TIME_MINUTES = 30

_SITE = "site_id = CAST({{site}} AS UUID)"
# The period's days, then the same number of days just before it (for the change against it).
_DAYS = "CAST({{to}} - {{from}} + 1 AS INTEGER)"


def _in_period(column: str) -> str:
    return f"{column} >= {{{{from}}}} AND {column} < {{{{to}}}} + 1"


def _in_both_periods(column: str) -> str:
    return f"{column} >= {{{{from}}}} - {_DAYS} AND {column} < {{{{to}}}} + 1"


def _question(name: str, description: str, sql: str, visualization: dict[str, Any]) -> dict[str, Any]:
    used = {name: kind for name, kind in VARIABLES.items() if "{{" + name + "}}" in sql}
    return {"name": name, "description": description, "sql": sql, "variables": used,
            "visualization": visualization}


def _change(name: str, description: str, table: str, time_column: str, aggregate: str, column: str,
            better: str = "higher") -> dict[str, Any]:
    """A number of the period beside the same number of the period before it."""
    sql = (f"WITH by_period AS (\n"
           f"  SELECT {time_column} >= {{{{from}}}} AS current_period, {aggregate} AS value\n"
           f"  FROM {table}\n"
           f"  WHERE {_SITE}\n"
           f"    AND {_in_both_periods(time_column)}{_segment(table)}\n"
           f"  GROUP BY 1\n"
           f")\n"
           f"SELECT max(value) FILTER (WHERE current_period) AS {column},\n"
           f"       max(value) FILTER (WHERE NOT current_period) AS previous_period\n"
           f"FROM by_period")
    spec: dict[str, Any] = {"kind": "change", "y": [column, "previous_period"]}
    if better == "lower":
        spec["better"] = "lower"
    return _question(name, description, sql, spec)


def _ranking(name: str, description: str, table: str, time_column: str, dimension: str, label: str,
             measures: str, order: str, limit: int = 20, chart: str = "bar", extra_where: str = "") -> dict[str, Any]:
    """The values of one dimension ranked by a measure over the period."""
    sql = (f"SELECT coalesce(CAST({dimension} AS VARCHAR), '(none)') AS {label},\n"
           f"       {measures}\n"
           f"FROM {table}\n"
           f"WHERE {_SITE}\n"
           f"  AND {_in_period(time_column)}{extra_where}{_segment(table)}\n"
           f"GROUP BY 1\n"
           f"ORDER BY {order} DESC, 1\n"
           f"LIMIT {limit}")
    first_measure = measures.split(" AS ")[1].split(",")[0].strip()
    visualization: dict[str, Any]
    if chart == "table":
        visualization = {"kind": "table", "y": []}
    elif chart == "pie":
        visualization = {"kind": "pie", "x": label, "y": [first_measure]}
    else:
        visualization = {"kind": "bar", "x": label, "y": [first_measure], "horizontal": True}
    return _question(name, description, sql, visualization)


def _table(name: str, description: str, sql: str) -> dict[str, Any]:
    return _question(name, description, sql, {"kind": "table", "y": []})


_VISITS_PER_DAY = (
    "WITH daily AS (\n"
    "  SELECT CAST(visit_start AS DATE) AS day, count(*) AS visits\n"
    "  FROM visits\n"
    f"  WHERE {_SITE}\n"
    f"    AND {_in_both_periods('visit_start')}{_SEGMENT}\n"
    "  GROUP BY 1\n"
    ")\n"
    # The previous period's days moved onto the period's, so that both draw on one axis.
    f"SELECT CASE WHEN day >= {{{{from}}}} THEN day ELSE day + {_DAYS} END AS day,\n"
    "       sum(visits) FILTER (WHERE day >= {{from}}) AS visits,\n"
    "       sum(visits) FILTER (WHERE day < {{from}}) AS previous_period\n"
    "FROM daily\n"
    "GROUP BY 1\n"
    "ORDER BY 1")

_ATTRIBUTION = (
    "SELECT channel,\n"
    + ",\n".join(f"       round(sum(CASE WHEN attribution_model = '{model}' THEN credit ELSE 0 END), 1) AS {model}"
                 for model in ("first_touch", "last_touch", "last_non_direct", "linear", "time_decay",
                               "position_based"))
    + "\nFROM attribution\n"
    f"WHERE {_SITE}\n"
    f"  AND {_in_period('converted_at')}\n"
    "GROUP BY channel\n"
    "ORDER BY last_touch DESC, channel")

_EVENTS = (
    "SELECT event_name,\n"
    "       count(*) AS events,\n"
    "       count(DISTINCT visit_id) AS visits,\n"
    "       string_agg(DISTINCT property, ', ' ORDER BY property) AS properties\n"
    "FROM (\n"
    "  SELECT event_name, visit_id, unnest(json_keys(props)) AS property\n"
    "  FROM events\n"
    f"  WHERE {_SITE}\n"
    f"    AND {_in_period('occurred_at')}{_VISIT_SEGMENT}\n"
    "    AND event_type = 'event'\n"
    "  UNION ALL\n"
    "  SELECT event_name, visit_id, NULL\n"
    "  FROM events\n"
    f"  WHERE {_SITE}\n"
    f"    AND {_in_period('occurred_at')}{_VISIT_SEGMENT}\n"
    "    AND event_type = 'event' AND (props IS NULL OR json_keys(props) = [])\n"
    ") AS named\n"
    "GROUP BY event_name\n"
    "ORDER BY events DESC, event_name\n"
    "LIMIT 50")

_GOALS = (
    "WITH period_visits AS (\n"
    "  SELECT count(*) AS visits FROM visits\n"
    f"  WHERE {_SITE} AND {_in_period('visit_start')}{_SEGMENT}\n"
    ")\n"
    "SELECT goal_name AS goal,\n"
    "       count(*) AS conversions,\n"
    "       round(100.0 * count(*) / nullif(max(period_visits.visits), 0), 2) AS conversion_rate_percent,\n"
    "       round(sum(conversion_value), 2) AS value\n"
    "FROM conversions, period_visits\n"
    f"WHERE {_SITE}\n"
    f"  AND {_in_period('converted_at')}{_SEGMENT}\n"
    "  AND conversion_kind = 'goal'\n"
    "GROUP BY goal_name\n"
    "ORDER BY conversions DESC, goal")

_ECOMMERCE_STEPS = (
    "WITH steps AS (\n"
    "  SELECT step_number, step_name, sum(visits_reaching_step) AS visits\n"
    "  FROM ecommerce_funnel\n"
    f"  WHERE {_SITE}\n"
    f"    AND {_in_period('visit_date')}\n"
    "  GROUP BY step_number, step_name\n"
    ")\n"
    "SELECT step_number AS step, step_name, visits,\n"
    "       round(100.0 * visits / nullif(first_value(visits) OVER (ORDER BY step_number), 0), 1) AS percent_of_first,\n"
    "       round(100.0 * visits / nullif(lag(visits) OVER (ORDER BY step_number), 0), 1) AS percent_of_previous\n"
    "FROM steps\n"
    "ORDER BY step_number")

_REVENUE_PER_DAY = (
    "SELECT CAST(ordered_at AS DATE) AS day, round(sum(revenue), 2) AS revenue, count(*) AS orders\n"
    "FROM orders\n"
    f"WHERE {_SITE}\n"
    f"  AND {_in_period('ordered_at')}{_VISIT_SEGMENT}\n"
    "GROUP BY 1\n"
    "ORDER BY 1")

# The two labels are the report's language's, written in by `_labelled` as SQL literals.
_NEW_AND_RETURNING = (
    "SELECT CASE WHEN is_returning THEN @returning@ ELSE @new@ END AS visitors,\n"
    "       count(*) AS visits\n"
    "FROM visits\n"
    f"WHERE {_SITE}\n"
    f"  AND {_in_period('visit_start')}{_SEGMENT}\n"
    "  AND visitor_kind IN ('cookie', 'user')\n"
    "GROUP BY 1\n"
    "ORDER BY 1")

_LAST_MINUTES = f"occurred_at >= now() - INTERVAL {REAL_TIME_MINUTES} MINUTE"

_REAL_TIME_VISITORS = (
    "SELECT count(DISTINCT visitor_key) AS visitors, count(*) AS pageviews\n"
    "FROM pageviews\n"
    f"WHERE {_SITE}\n"
    f"  AND {_LAST_MINUTES}{_VISIT_SEGMENT}")

_REAL_TIME_PAGES = (
    "SELECT path, count(*) AS pageviews, count(DISTINCT visitor_key) AS visitors\n"
    "FROM pageviews\n"
    f"WHERE {_SITE}\n"
    f"  AND {_LAST_MINUTES}{_VISIT_SEGMENT}\n"
    "GROUP BY path\n"
    "ORDER BY pageviews DESC, path\n"
    "LIMIT 20")

_REAL_TIME_PER_MINUTE = (
    "SELECT date_trunc('minute', occurred_at) AS minute, count(*) AS pageviews\n"
    "FROM pageviews\n"
    f"WHERE {_SITE}\n"
    f"  AND {_LAST_MINUTES}{_VISIT_SEGMENT}\n"
    "GROUP BY 1\n"
    "ORDER BY 1")


@lru_cache(maxsize=len(LANGUAGES))
def _catalogue(locale: str) -> dict[str, str]:
    """The report texts' translations (`translations/<locale>/LC_MESSAGES/reports.po`, English as written)."""
    if locale == "en" or locale not in LANGUAGES:
        return {}
    with (TRANSLATIONS / locale / "LC_MESSAGES" / "reports.po").open("rb") as source:
        return {entry.id: entry.string for entry in read_po(source) if entry.id and entry.string}


def texts(locale: str) -> Callable[[str], str]:
    """A text of the reports in `locale` (a language of LANGUAGES, else English); as written when untranslated."""
    catalogue = _catalogue(locale)
    return lambda text: catalogue.get(text, text)


def _labelled(sql: str, **labels: str) -> str:
    """`sql` with each `@name@` replaced by its label as a SQL string literal."""
    for name, label in labels.items():
        sql = sql.replace(f"@{name}@", "'" + label.replace("'", "''") + "'")
    return sql


def _cookie_note(tracking_mode: str | None, _: Callable[[str], str]) -> str:
    """What a text card says about new against returning visitors, for the site's tracking mode."""
    base = _("New against returning counts visitors the site recognises on a later visit: with a cookie "
            "(cookie mode, or consent mode once consent is given) or signed in. A cookieless visitor cannot "
            "return by design, so those visits are left out of this card.")
    if tracking_mode == "cookieless":
        return base + " " + _("This site measures without cookies: the card stays empty.")
    return base


def reports(tracking_mode: str | None = None, locale: str = "en") -> list[dict[str, Any]]:
    """The report set: each {name, description, cards, auto_refresh_seconds?, cache_ttl_seconds?, period?},
    its texts (names, descriptions, text cards, the New and Returning labels) in `locale`.

    A card is {"question": ..., "width", "height"} or {"text": ..., "width", "height"}; cards are laid out
    left to right on the 12-column grid. `period: False` leaves the Period filter out (Real time).
    """
    _ = texts(locale)
    visits = ("visits", "visit_start")
    return [
        {"name": _("Overview"), "description": _("Visitors, visits, page views, bounce rate and visit duration, "
                                            "each against the period just before."),
         "cards": [
             {"question": _change(_("Visitors"), _("Distinct visitors in the period."), *visits,
                                  "count(DISTINCT visitor_key)", "visitors"), "width": 4, "height": 3},
             {"question": _change(_("Visits"), _("Visits in the period."), *visits, "count(*)", "visits"),
              "width": 4, "height": 3},
             {"question": _change(_("Pageviews"), _("Page views in the period."), *visits, "sum(pageview_count)",
                                  "pageviews"), "width": 4, "height": 3},
             {"question": _change(_("Views per visit"), _("Page views per visit."), *visits,
                                  "round(sum(pageview_count) / nullif(count(*), 0), 2)", "views_per_visit"),
              "width": 4, "height": 3},
             {"question": _change(_("Bounce rate"), _("Share of visits with one page view and no other event (%)."),
                                  *visits, "round(100.0 * avg(CASE WHEN is_bounce THEN 1 ELSE 0 END), 1)",
                                  "bounce_rate_percent", better="lower"), "width": 4, "height": 3},
             {"question": _change(_("Visit duration"), _("Average visit duration (seconds)."), *visits,
                                  "round(avg(duration_seconds))", "visit_duration_seconds"),
              "width": 4, "height": 3},
             {"question": _question(_("Visits day by day"), _("Visits day by day, the previous period drawn faintly behind."),
                                    _VISITS_PER_DAY, {"kind": "line", "x": "day", "y": ["visits", "previous_period"],
                                                      "faint": ["previous_period"]}),
              "width": 12, "height": 4},
         ]},
        {"name": _("Acquisition"), "description": _("Where the visits come from: channels, sources, campaigns, "
                                               "referrers, and conversions by attribution model."),
         "cards": [
             {"question": _ranking(_("Channels"), _("Visits by marketing channel."), *visits, "channel", "channel",
                                   "count(*) AS visits, count(DISTINCT visitor_key) AS visitors", "visits"),
              "width": 6, "height": 4},
             {"question": _ranking(_("Sources"), _("Visits by source and medium."), *visits,
                                   "coalesce(source, '(direct)') || ' / ' || coalesce(medium, '(none)')",
                                   "source_medium", "count(*) AS visits, count(DISTINCT visitor_key) AS visitors",
                                   "visits", chart="table"), "width": 6, "height": 4},
             {"question": _ranking(_("Campaigns"), _("Visits of UTM campaigns."), *visits, "campaign", "campaign",
                                   "count(*) AS visits, sum(purchase_count) AS purchases", "visits",
                                   extra_where="\n  AND campaign IS NOT NULL"), "width": 6, "height": 4},
             {"question": _ranking(_("Referrers"), _("Visits by referring site."), *visits, "referrer_domain",
                                   "referrer", "count(*) AS visits", "visits",
                                   extra_where="\n  AND referrer_domain IS NOT NULL"), "width": 6, "height": 4},
             {"question": _question(_("Attribution by model"),
                                    _("Conversions credited to each channel under six attribution models."),
                                    _ATTRIBUTION, {"kind": "bar", "x": "channel",
                                                   "y": ["first_touch", "last_touch", "last_non_direct", "linear",
                                                         "time_decay", "position_based"]}),
              "width": 12, "height": 5},
         ]},
        {"name": _("Content"), "description": _("Pages viewed, entry and exit pages, how far people scroll and "
                                           "which zones they see."),
         "cards": [
             {"question": _ranking(_("Most viewed pages"), _("The most viewed pages."), "pageviews", "occurred_at", "path", "path",
                                   "count(*) AS pageviews, count(DISTINCT visitor_key) AS visitors", "pageviews"),
              "width": 12, "height": 5},
             {"question": _ranking(_("Entry pages"), _("Pages visits start on, with their bounce rate."), *visits,
                                   "entry_path", "entry_page",
                                   "count(*) AS visits, round(100.0 * avg(CASE WHEN is_bounce THEN 1 ELSE 0 END), 1)"
                                   " AS bounce_rate_percent", "visits", chart="table"), "width": 6, "height": 5},
             {"question": _ranking(_("Exit pages"), _("Pages visits end on."), *visits, "exit_path", "exit_page",
                                   "count(*) AS visits", "visits", chart="table"), "width": 6, "height": 5},
             {"question": _ranking(_("Scroll depth"), _("Page views with a scroll, their average deepest scroll (%) and "
                                   "the share reaching 75 %."), "scroll_depth", "first_scrolled_at", "path", "path",
                                   "count(*) AS pageviews, round(avg(max_percent), 1) AS average_percent, "
                                   "round(100.0 * avg(CASE WHEN max_percent >= 75 THEN 1 ELSE 0 END), 1) "
                                   "AS reaching_75_percent", "pageviews", chart="table"), "width": 6, "height": 5},
             {"question": _ranking(_("Zone visibility"), _("Declared zones: how often and how long they were seen."),
                                   "zone_visibility", "occurred_at", "coalesce(zone_label, zone_name)", "zone",
                                   "count(*) AS views, round(avg(visible_ms) / 1000.0, 1) AS average_seconds_visible",
                                   "views", chart="table"), "width": 6, "height": 5},
         ]},
        {"name": _("Events and goals"), "description": _("Declared events with their properties, and goal conversions "
                                                    "with their rate per visit."),
         "cards": [
             {"question": _table(_("Events"), _("Events other than page views, with the properties they carry."), _EVENTS),
              "width": 12, "height": 5},
             {"question": _table(_("Goal conversions"), _("Goals reached in the period and their rate per visit (%)."),
                                 _GOALS), "width": 12, "height": 4},
         ]},
        {"name": _("E-commerce"), "description": _("From viewing an item to the purchase, revenue, orders and "
                                              "average order value."),
         "cards": [
             {"question": _change(_("Revenue"), _("Revenue of the orders in the period."), "orders", "ordered_at",
                                  "round(sum(revenue), 2)", "revenue"), "width": 4, "height": 3},
             {"question": _change(_("Orders"), _("Orders in the period."), "orders", "ordered_at", "count(*)", "orders"),
              "width": 4, "height": 3},
             {"question": _change(_("Average order value"), _("Revenue per order."), "orders", "ordered_at",
                                  "round(avg(revenue), 2)", "average_order_value"), "width": 4, "height": 3},
             {"question": _table(_("Purchase steps"), _("Visits reaching each step from view_item to purchase, as a share "
                                 "of the first step and of the step before (%)."), _ECOMMERCE_STEPS),
              "width": 12, "height": 4},
             {"question": _question(_("Revenue per day"), _("Revenue and orders day by day."), _REVENUE_PER_DAY,
                                    {"kind": "bar", "x": "day", "y": ["revenue"]}), "width": 12, "height": 4},
         ]},
        {"name": _("Audience"), "description": _("Countries, languages, devices, browsers, new against returning "
                                            "visitors."),
         "cards": [
             {"question": _ranking(_("Countries"), _("Visits by country."), *visits, "country", "country",
                                   "count(*) AS visits, count(DISTINCT visitor_key) AS visitors", "visits"),
              "width": 6, "height": 4},
             {"question": _ranking(_("Languages"), _("Visits by browser language."), *visits, "language", "language",
                                   "count(*) AS visits", "visits"), "width": 6, "height": 4},
             {"question": _ranking(_("Devices"), _("Visits by kind of device."), *visits, "device_class", "device",
                                   "count(*) AS visits", "visits", chart="pie"), "width": 4, "height": 4},
             {"question": _ranking(_("Browsers"), _("Visits by browser."), *visits, "browser", "browser",
                                   "count(*) AS visits", "visits"), "width": 4, "height": 4},
             {"question": _question(_("New and returning visitors"), _("Visits of new and of returning visitors "
                                    "(cookie and signed-in visitors only)."),
                                    _labelled(_NEW_AND_RETURNING, returning=_("Returning"), new=_("New")),
                                    {"kind": "pie", "x": "visitors", "y": ["visits"]}), "width": 4, "height": 4},
             {"text": _cookie_note(tracking_mode, _), "width": 12, "height": 2},
         ]},
        {"name": _("Real time"),
         "description": _("Visitors and pages of the last {0} minutes, refreshed every minute.").format(REAL_TIME_MINUTES),
         "auto_refresh_seconds": 60, "cache_ttl_seconds": 30, "period": False,
         "cards": [
             {"question": _question(_("Visitors, last {0} minutes").format(REAL_TIME_MINUTES),
                                    _("Distinct visitors and page views of the last 30 minutes."), _REAL_TIME_VISITORS,
                                    {"kind": "number", "y": ["visitors"]}), "width": 4, "height": 3},
             {"question": _question(_("Page views per minute"), _("Page views of the last 30 minutes, minute by minute."),
                                    _REAL_TIME_PER_MINUTE, {"kind": "bar", "x": "minute", "y": ["pageviews"]}),
              "width": 8, "height": 3},
             {"question": _table(_("Pages, last {0} minutes").format(REAL_TIME_MINUTES),
                                 _("The pages viewed in the last 30 minutes."), _REAL_TIME_PAGES),
              "width": 12, "height": 5},
             {"text": _("The analytics views are as fresh as their last build (every few minutes when the "
                      "pipeline runs): the last events may appear a little after they happen."),
              "width": 12, "height": 1},
         ]},
    ]


def layout(cards: list[dict[str, Any]]) -> list[dict[str, int]]:
    """(col, row) of each card, filled left to right on the 12-column grid."""
    placed, col, row, line_height = [], 0, 0, 0
    for card in cards:
        if col + card["width"] > 12:
            col, row, line_height = 0, row + line_height, 0
        placed.append({"col": col, "row": row})
        col += card["width"]
        line_height = max(line_height, card["height"])
    return placed
