"""A small event set whose funnel, path and retention answers are known by construction.

Shared by the compiler's tests (DuckDB) and the API's (PostgreSQL through the statement path).
Each visitor's story is written beside it; the expected answers follow from them.
"""
from __future__ import annotations

import datetime as dt
import json

SITE = "7d1f3c1e-0000-4000-8000-00000000000a"
OTHER_SITE = "7d1f3c1e-0000-4000-8000-00000000000b"
UTC = dt.timezone.utc


def at(day: int, hour: int = 0, minute: int = 0, month: int = 1, year: int = 2026) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=UTC)


# (visitor, site, when, kind, name, path, props): kind "pageview" (name null) or "custom".
EVENTS: list[tuple] = []


def _view(visitor, when, path, site=SITE):
    EVENTS.append((visitor, site, when, "pageview", None, path, {}))


def _event(visitor, when, name, props, site=SITE):
    EVENTS.append((visitor, site, when, "custom", name, "/app", props))


# --- funnel: /pricing* -> signup {plan: pro} -> /welcome, window 1 day, January 2026 ------------
_view("f1", at(2, 10), "/pricing")                      # all three steps: 300 s, then 300 s
_event("f1", at(2, 10, 5), "signup", {"plan": "pro"})
_view("f1", at(2, 10, 10), "/welcome")
_view("f2", at(3, 9), "/pricing/team")                  # two steps: 1,200 s
_event("f2", at(3, 9, 20), "signup", {"plan": "pro"})
_view("f3", at(4, 8), "/pricing")                       # one: the plan is free
_event("f3", at(4, 8, 1), "signup", {"plan": "free"})
_event("f4", at(5, 9), "signup", {"plan": "pro"})       # one: the signup came before the pricing page
_view("f4", at(5, 10), "/pricing")
_view("f5", at(6, 0), "/pricing")                       # one: the signup came two days later
_event("f5", at(8, 0), "signup", {"plan": "pro"})
_view("f6", at(30, 10, month=12, year=2025), "/pricing")  # before the range; then all three: 600 s, 1,800 s
_view("f6", at(10, 10), "/pricing")
_event("f6", at(10, 10, 10), "signup", {"plan": "pro"})
_view("f6", at(10, 10, 40), "/welcome")
_view("f7", at(2, 10), "/pricing", OTHER_SITE)          # another site's visitor
_event("f7", at(2, 10, 5), "signup", {"plan": "pro"}, OTHER_SITE)
_view("f7", at(2, 10, 10), "/welcome", OTHER_SITE)
_view("f8", at(11, 10), "/pricingxteam")                # matches /pricing* too, and no more
_view("f9", at(12, 10), "/pric_ing")                    # "_" is no wildcard: /pric_ing* matches this only

FUNNEL = {"kind": "funnel", "site_id": SITE, "date_range": {"from": "2026-01-01", "to": "2026-01-31"},
          "window": {"amount": 1, "unit": "day"},
          "steps": [{"page": "/pricing*"},
                    {"event": "signup", "properties": [{"key": "plan", "value": "pro"}], "label": "Signed up"},
                    {"page": "/welcome"}]}
# step, label, visitors, conversion, step_conversion, drop_off, median_seconds
FUNNEL_ROWS = [(1, "/pricing*", 7, 1.0, None, None, None),
               (2, "Signed up", 3, 3 / 7, 3 / 7, 4, 600.0),
               (3, "/welcome", 2, 2 / 7, 2 / 3, 1, 1050.0)]

# --- paths: visits of page views (visit id -> paths in order), 20 February (after the funnel's month) ----------------------
PATH_VISITS = {
    "pa": ["/", "/pricing", "/signup", "/welcome"],
    "pb": ["/blog", "/pricing", "/docs"],
    "pc": ["/", "/pricing", "/signup"],
    "pd": ["/docs", "/about"],
    "pe": ["/pricing", "/about", "/pricing", "/signup"],
}
PATH = {"kind": "path", "site_id": SITE, "date_range": {"from": "2026-02-20", "to": "2026-02-20"},
        "start": "page", "page": "/pricing", "steps_before": 1, "steps_after": 2, "branches": 2}
# from_step, from_page, to_step, to_page, visits (null: "other")
PATH_ROWS = [(-1, "/", 0, "/pricing", 2), (-1, "/blog", 0, "/pricing", 1),
             (0, "/pricing", 1, "/signup", 2), (0, "/pricing", 1, "/about", 1), (0, "/pricing", 1, None, 1),
             (1, "/about", 2, "/pricing", 1), (1, "/signup", 2, "/welcome", 1)]
ENTRY_PATH = {"kind": "path", "site_id": SITE, "date_range": {"from": "2026-02-20", "to": "2026-02-20"},
              "start": "entry", "steps_after": 1, "branches": 5}
ENTRY_ROWS = [(0, "/", 1, "/pricing", 2), (0, "/blog", 1, "/pricing", 1), (0, "/docs", 1, "/about", 1),
              (0, "/pricing", 1, "/about", 1)]
for _visit, _paths in PATH_VISITS.items():
    for _n, _path in enumerate(_paths):
        EVENTS.append((f"visitor-{_visit}", SITE, at(20, 12, _n, month=2), "pageview", None, _path, {}, _visit))

# --- retention: weekly cohorts from Monday 5 January to 18 January, 3 weeks after --------------
# visitor -> (visitor kind, visit days in January 2026 (32+ runs into February))
RETURNING = {
    "r1": ("cookie", [5, 13, 20]),   # cohort 5 Jan: weeks 0, 1, 2
    "r2": ("cookie", [6, 27]),       # cohort 5 Jan: weeks 0, 3
    "r3": ("user", [7]),             # cohort 5 Jan: week 0
    "r4": ("hash", [5, 12]),         # cookieless: in no cohort
    "r5": ("cookie", [-3, 6]),       # first visit 29 December: before the range
    "r6": ("cookie", [12, 14, 19]),  # cohort 12 Jan: weeks 0, 1
    "r7": ("cookie", [19]),          # cohort 19 Jan: after the range
    "r8": ("cookie", [13, 51]),      # cohort 12 Jan: week 0 (week 5 is past the 3 asked)
}
RETENTION = {"kind": "retention", "site_id": SITE, "date_range": {"from": "2026-01-05", "to": "2026-01-18"},
             "period": "week", "periods": 3}
# cohort, cohort_visitors, period, visitors, retention
RETENTION_ROWS = [(dt.date(2026, 1, 5), 3, 0, 3, 1.0), (dt.date(2026, 1, 5), 3, 1, 1, 1 / 3),
                  (dt.date(2026, 1, 5), 3, 2, 1, 1 / 3), (dt.date(2026, 1, 5), 3, 3, 1, 1 / 3),
                  (dt.date(2026, 1, 12), 2, 0, 2, 1.0), (dt.date(2026, 1, 12), 2, 1, 1, 0.5)]
# Cohorts of the first signup: r1 (13 Jan) and r6 (12 Jan) both in the week of 12 January; r4's is cookieless.
SIGNUPS = [("r1", 13), ("r6", 12), ("r4", 12)]
EVENT_RETENTION = {**RETENTION, "cohort_event": {"event": "signup"}}
EVENT_RETENTION_ROWS = [(dt.date(2026, 1, 12), 2, 0, 2, 1.0), (dt.date(2026, 1, 12), 2, 1, 2, 1.0)]


def _visit_day(day: int) -> dt.datetime:
    return at(1, 9) + dt.timedelta(days=day - 1)


def rows() -> tuple[list[tuple], list[tuple], list[tuple]]:
    """(events, pageviews, visits) rows: events (event_id, site_id, visit_id, visitor_key, occurred_at,
    event_type, event_name, path, props as JSON text); pageviews (event_id, site_id, visit_id,
    visitor_key, occurred_at, path); visits (visit_id, site_id, visitor_key, visitor_kind, visit_start)."""
    events, pageviews, visits = [], [], []
    for number, item in enumerate(EVENTS, start=1):
        visitor, site, when, kind, name, path, props = item[:7]
        visit = item[7] if len(item) > 7 else f"{visitor}-{when:%Y%m%d}"
        events.append((number, site, visit, visitor, when, kind, name, path, json.dumps(props)))
        if kind == "pageview":
            pageviews.append((number, site, visit, visitor, when, path))
    number = len(events)
    for visitor, (kind, days) in RETURNING.items():
        for day in days:
            visits.append((f"{visitor}-{day}", SITE, visitor, kind, _visit_day(day)))
    for visitor, day in SIGNUPS:
        number += 1
        events.append((number, SITE, f"{visitor}-{day}", visitor, _visit_day(day) + dt.timedelta(minutes=5),
                       "custom", "signup", "/app", json.dumps({"plan": "pro"})))
    return events, pageviews, visits
