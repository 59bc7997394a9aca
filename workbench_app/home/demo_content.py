"""The "Demo" folder: a few questions and a dashboard over the demo site, so a newcomer sees
charts within a minute of signing in.

Created once, when the warehouse holds the demo site (`analytics up`, `analytics demo`). A row of
`seeded_content` records that it was done: people may edit or delete any of it, and it is never
created again over their changes. The charts are stored as the web application stores them
(`visualization`: `{"kind", "x", "y"}`, see `frontend/src/features/charts/chartSpec.ts`).
"""
from __future__ import annotations

import psycopg

from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, folders, questions
from workbench_app.home import pins

MARKER = "demo_folder"
FOLDER_NAME = "Demo"
DASHBOARD_NAME = "Demo dashboard"
# Created by the product, not by a person: an administrator's rights, no account (created_by null).
PRODUCT = Identity(user_id=None, email="analytics", is_admin=True)  # type: ignore[arg-type]

_MODELS = ("first_touch", "last_touch", "linear", "position_based")

QUESTIONS = [
    {"name": "Visits by channel", "description": "Visits of the demo site by marketing channel.",
     "sql": "SELECT channel, count(*) AS visits\nFROM visits\nGROUP BY channel\nORDER BY visits DESC",
     "visualization": {"kind": "bar", "x": "channel", "y": ["visits"]}},
    {"name": "Conversions by attribution model",
     "description": "Conversions credited to each channel under four attribution models.",
     "sql": "SELECT channel,\n" + ",\n".join(
         f"       round(sum(CASE WHEN attribution_model = '{model}' THEN credit ELSE 0 END), 1) AS {model}"
         for model in _MODELS) + "\nFROM attribution\nGROUP BY channel\nORDER BY first_touch DESC",
     "visualization": {"kind": "bar", "x": "channel", "y": list(_MODELS)}},
    {"name": "Top pages", "description": "The ten most viewed pages.",
     "sql": "SELECT path, count(*) AS pageviews\nFROM pageviews\nGROUP BY path\nORDER BY pageviews DESC\nLIMIT 10",
     "visualization": {"kind": "bar", "x": "path", "y": ["pageviews"], "horizontal": True}},
    {"name": "Visits per day", "description": "Visits of the demo site, day by day.",
     "sql": "SELECT CAST(visit_start AS DATE) AS day, count(*) AS visits\nFROM visits\nGROUP BY day\nORDER BY day",
     "visualization": {"kind": "line", "x": "day", "y": ["visits"]}},
]


def seed_demo_content(conn: psycopg.Connection) -> bool:
    """Create the Demo folder, its questions and dashboard unless done before; True when created now."""
    # Claiming the marker first: a concurrent caller waits on it, then finds it taken.
    claimed = conn.execute("insert into seeded_content (name) values (%s) on conflict do nothing returning name",
                           (MARKER,)).fetchone()
    if claimed is None:
        return False
    folder = folders.create_folder(conn, PRODUCT, FOLDER_NAME, None)
    cards = []
    for index, fields in enumerate(QUESTIONS):
        question = questions.create_question(conn, PRODUCT, {**fields, "kind": "sql", "folder_id": folder["folder_id"]})
        cards.append({"question_id": question["question_id"], "col": 6 * (index % 2), "row": 4 * (index // 2),
                      "width": 6, "height": 4})
    dashboard = dashboards.create_dashboard(conn, PRODUCT, {
        "name": DASHBOARD_NAME, "folder_id": folder["folder_id"], "cards": cards,
        "description": "Traffic, channels and conversions of the demo site."})
    pins.pin_for_everyone(conn, "dashboard", dashboard["dashboard_id"])  # on everyone's home page
    return True
