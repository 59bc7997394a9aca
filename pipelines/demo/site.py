"""The demo site and its metadata, created through the administration functions."""
from __future__ import annotations

from datetime import date, timedelta

import psycopg

from pipelines.admin import annotations, classifications, declared_events, goals, server_keys, sites, zones

ACTOR = "demo"

DECLARED_EVENTS = [
    {"name": "newsletter_signup", "label": "Newsletter sign-up",
     "description": "A visitor subscribed to the newsletter from the footer form.",
     "properties": [
         {"name": "list_name", "type": "string", "label": "List", "description": "Which newsletter list."},
         {"name": "double_opt_in", "type": "boolean", "label": "Double opt-in",
          "description": "Whether the confirmation e-mail was requested."}]},
    {"name": "size_guide_open", "label": "Size guide opened",
     "description": "The size guide of a product page was opened.",
     "properties": [
         {"name": "product_id", "type": "string", "label": "Product", "description": "Product id of the page."},
         {"name": "seconds_on_page", "type": "number", "label": "Seconds on page",
          "description": "Time on the page before opening the guide."}]},
]
ZONES = [
    {"name": "hero", "selector": "#hero", "label": "Home page hero banner"},
    {"name": "reviews", "selector": "#reviews", "label": "Product reviews"},
    {"name": "footer-newsletter", "selector": "footer .newsletter", "label": "Footer newsletter form"},
]
GOALS = [
    {"name": "Newsletter sign-up", "event_name": "newsletter_signup", "value": 2},
    {"name": "Contact page", "path_pattern": "/contact*"},
    {"name": "Size guide on trail shoes", "event_name": "size_guide_open", "property_name": "product_id",
     "property_value": "SKU-TRAIL"},
]
CLASSIFICATIONS_CSV = """dimension,value,attribute,attribute_value
campaign,spring sale,product_line,Shoes
campaign,summer bags,product_line,Bags
campaign,brand,product_line,All products
campaign,spring sale,season,Spring
campaign,summer bags,season,Summer
path,/shoes/red-runner,category,Running
path,/shoes/trail-pro,category,Trail
path,/bags/city-tote,category,Bags
"""


def create_demo_site(conn: psycopg.Connection, name: str, today: date) -> tuple[str, str]:
    """Create the demo site with its metadata; returns (site id, server key secret)."""
    site = sites.create_site(conn, {"name": name, "domains": ["demo-shop.example", "*.demo-shop.example"],
                                    "tracking_mode": "cookie", "accept_user_id": True, "currency": "EUR",
                                    "timezone": "Europe/Paris"}, actor=ACTOR)
    site_id = str(site["id"])
    for event in DECLARED_EVENTS:
        declared_events.create_event(conn, site_id, event, actor=ACTOR)
    for zone in ZONES:
        zones.create_zone(conn, site_id, zone, actor=ACTOR)
    for goal in GOALS:
        goals.create_goal(conn, site_id, goal, actor=ACTOR)
    classifications.import_csv(conn, site_id, CLASSIFICATIONS_CSV, actor=ACTOR)
    for days_ago, text in [(75, "New trail collection online"), (45, "Spring sale starts (newsletter and ads)"),
                           (30, "Spring sale ends"), (12, "Summer bags campaign on social networks"),
                           (2, "Checkout redesign released")]:
        annotations.create_annotation(conn, site_id, {"date": (today - timedelta(days=days_ago)).isoformat(),
                                                      "text": text}, actor=ACTOR)
    key = server_keys.create_server_key(conn, site_id, actor=ACTOR, name="demo data",
                                        rate_limit_per_minute=1_000_000)
    return site_id, key["secret"]
