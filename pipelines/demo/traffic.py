"""Realistic demo traffic: visitors who come back, sources and campaigns that vary over time,
goals, declared events, zones and an e-commerce funnel. Events are server-event shaped dicts
(the fields of `POST /collect/server`) plus a page id, so they can go either through the server
API (recent days) or straight through the ingestion code (older days)."""
from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from urllib.parse import urlencode

HOST = "https://demo-shop.example"
PRODUCTS = {
    "/shoes/red-runner": {"id": "SKU-RUNNER", "name": "Red Runner", "price": 89.0},
    "/shoes/trail-pro": {"id": "SKU-TRAIL", "name": "Trail Pro", "price": 129.0},
    "/bags/city-tote": {"id": "SKU-TOTE", "name": "City Tote", "price": 59.0},
    "/bags/weekender": {"id": "SKU-WEEKENDER", "name": "Weekender", "price": 149.0},
}
TITLES = {"/": "Demo Shop", "/shoes": "Shoes", "/bags": "Bags", "/blog/care-guide": "How to care for leather",
          "/blog/trail-season": "Trail season is here", "/contact": "Contact us", "/search": "Search",
          "/checkout": "Checkout", "/checkout/done": "Thank you"}
# IP addresses of the countries the shop sells to (used for the country, then dropped).
COUNTRY_IPS = [("90.84.1.1", 40), ("62.210.1.1", 10), ("88.198.1.1", 14), ("80.58.1.1", 10), ("81.2.69.142", 9),
               ("79.1.1.1", 8), ("8.8.8.8", 6), ("2.2.2.2", 3)]
USER_AGENTS = [
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36", 30),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", 12),
    ("Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", 5),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", 25),
    ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36", 20),
    ("Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", 8),
]
LANGUAGES = {"90.84.1.1": "fr-FR", "62.210.1.1": "fr-FR", "88.198.1.1": "de-DE", "80.58.1.1": "es-ES",
             "81.2.69.142": "en-GB", "79.1.1.1": "it-IT", "8.8.8.8": "en-US", "2.2.2.2": "sv-SE"}


@dataclass
class Visitor:
    cookie: str
    ip: str
    user_agent: str
    language: str
    user_id: str | None = None


@dataclass(frozen=True)
class Source:
    weight: float
    landing: str
    referrer: str | None = None
    query: tuple[tuple[str, str], ...] = ()


def sources_of(day: date, today: date) -> list[Source]:
    """Where visits come from on `day`: campaigns run on some dates only."""
    days_ago = (today - day).days
    sources = [
        Source(28, "/"),
        Source(22, "/", "https://www.google.com/"),
        Source(8, "/shoes", "https://www.google.fr/"),
        Source(4, "/", "https://www.bing.com/"),
        Source(3, "/", "https://duckduckgo.com/"),
        Source(6, "/blog/care-guide", "https://l.facebook.com/"),
        Source(3, "/blog/trail-season", "https://t.co/x1"),
        Source(4, "/shoes/trail-pro", "https://runners-review.example.org/best-trail-shoes"),
        Source(6, "/shoes/red-runner", None, (("utm_source", "google"), ("utm_medium", "cpc"),
                                             ("utm_campaign", "brand"), ("gclid", "demo"))),
        Source(3, "/", None, (("utm_source", "newsletter"), ("utm_medium", "email"), ("utm_campaign", "monthly"))),
    ]
    if 30 <= days_ago <= 45:  # the spring sale: newsletter and paid social, spelled every which way
        sources += [Source(14, "/shoes", None, (("utm_source", "Newsletter"), ("utm_medium", "Email"),
                                                ("utm_campaign", "Spring Sale"))),
                    Source(10, "/shoes/red-runner", None, (("utm_source", "facebook"), ("utm_medium", "paid_social"),
                                                           ("utm_campaign", " spring%20sale "), ("fbclid", "x")))]
    if days_ago <= 12:  # summer bags on social networks
        sources += [Source(12, "/bags", None, (("utm_source", "instagram"), ("utm_medium", "paid_social"),
                                               ("utm_campaign", "Summer+Bags"))),
                    Source(5, "/bags/city-tote", "https://www.instagram.com/")]
    return sources


def visits_on(day: date, today: date, rng: random.Random, base: int) -> int:
    weekend = day.weekday() >= 5
    trend = 1 + 0.005 * (90 - (today - day).days)
    campaign = 1.35 if 30 <= (today - day).days <= 45 else 1.0
    return max(1, int(rng.gauss(base * trend * campaign * (0.8 if weekend else 1.0), base * 0.08)))


def _event(at: datetime, name: str | None, path: str, query: str = "", **extra) -> dict:
    event = {"type": "pageview" if name is None else "event", "at": at,
             "url": f"{HOST}{path}{('?' + query) if query else ''}"}
    if name is not None:
        event["name"] = name
    if name is None:
        event["title"] = TITLES.get(path) or PRODUCTS.get(path, {}).get("name", "Demo Shop")
    event.update({k: v for k, v in extra.items() if v is not None})
    return event


def _item(product: dict, quantity: int = 1) -> dict:
    return {"id": product["id"], "name": product["name"], "price": product["price"], "quantity": quantity}


def visit_events(start: datetime, source: Source, visitor: Visitor, rng: random.Random) -> list[dict]:
    """The events of one visit, from the landing page on."""
    events: list[dict] = []
    at = start
    path = source.landing
    cart: list[dict] = []
    pages = 1 if rng.random() < 0.33 else min(12, 1 + int(rng.expovariate(0.45)))
    for number in range(pages):
        page_id = secrets.token_hex(8)
        query = urlencode(source.query) if number == 0 and source.query else ""
        if path == "/search":
            query = urlencode({"q": rng.choice(["trail", "red shoes", "tote", "waterproof"])})
        events.append(_event(at, None, path, query, referrer=source.referrer if number == 0 else None,
                             page_id=page_id))

        def emit(name, props=None, items=None, seconds=(3, 40)):
            nonlocal at
            at += timedelta(seconds=rng.randint(*seconds))
            events.append(_event(at, name, path, props=props, items=items, page_id=page_id))

        if path == "/search":
            emit("view_search_results", {"search_term": query.split("=", 1)[1].replace("+", " "),
                                         "search_param": "q"})
        if path == "/" and rng.random() < 0.7:
            emit("zone_visibility", {"zone": "hero", "visible_ms": rng.randint(400, 12000)})
        product = PRODUCTS.get(path)
        if product:
            emit("view_item", {"value": product["price"], "currency": "EUR"}, [_item(product)])
            if rng.random() < 0.45:
                emit("zone_visibility", {"zone": "reviews", "visible_ms": rng.randint(800, 30000)})
            if rng.random() < 0.12:
                emit("size_guide_open", {"product_id": product["id"], "seconds_on_page": rng.randint(5, 90)})
            if rng.random() < 0.1:
                emit("video_start", {"video_title": f"{product['name']} in action", "video_provider": "html5"})
                if rng.random() < 0.6:
                    emit("video_progress", {"video_title": f"{product['name']} in action", "percent": 50})
                if rng.random() < 0.4:
                    emit("video_complete", {"video_title": f"{product['name']} in action"})
            if rng.random() < 0.22:
                cart.append(_item(product, 1 + (rng.random() < 0.15)))
                emit("add_to_cart", {"value": product["price"], "currency": "EUR"}, [cart[-1]])
        if path.startswith("/blog") and rng.random() < 0.08:
            emit("file_download", {"url": f"{HOST}/files/care-guide.pdf", "extension": "pdf"})
        if rng.random() < 0.05:
            emit("outbound_click", {"url": "https://www.instagram.com/demoshop", "domain": "www.instagram.com"})
        if rng.random() < 0.15:
            emit("click", {"element": "button", "id": "menu-toggle", "text": "Menu"})
        if path == "/contact" and rng.random() < 0.4:
            emit("form_submit", {"form_id": "contact", "form_name": "contact", "form_action": f"{HOST}/contact"})
        if rng.random() < 0.025:
            emit("zone_visibility", {"zone": "footer-newsletter", "visible_ms": rng.randint(500, 6000)})
            emit("newsletter_signup", {"list_name": "monthly", "double_opt_in": rng.random() < 0.7})
        if rng.random() < 0.6:
            emit("scroll_depth", {"percent": rng.choice([25, 50, 75, 90, 100])}, seconds=(5, 60))
        if cart and number >= 1 and rng.random() < 0.55:
            break
        at += timedelta(seconds=rng.randint(8, 150))
        path = rng.choices(
            ["/", "/shoes", "/bags", *PRODUCTS, "/blog/care-guide", "/blog/trail-season", "/contact", "/search"],
            [6, 10, 8, 9, 9, 7, 5, 3, 3, 2, 4])[0]
    if cart:
        value = round(sum(item["price"] * item["quantity"] for item in cart), 2)
        path = "/checkout"
        at += timedelta(seconds=rng.randint(10, 60))
        page_id = secrets.token_hex(8)
        events.append(_event(at, None, path, page_id=page_id))
        if rng.random() < 0.65:
            steps = [("begin_checkout", 0.88), ("add_shipping_info", 0.9), ("add_payment_info", 0.85), ("purchase", 1)]
            for name, chance in steps:
                at += timedelta(seconds=rng.randint(15, 120))
                props = {"value": value, "currency": "EUR"}
                if name == "purchase":
                    props["transaction_id"] = "D-" + secrets.token_hex(5).upper()
                    if visitor.user_id is None and rng.random() < 0.5:
                        visitor.user_id = "customer-" + secrets.token_hex(4)
                events.append(_event(at, name, "/checkout/done" if name == "purchase" else path, props=props,
                                     items=cart, page_id=page_id))
                if rng.random() > chance:
                    break
    for event in events:
        event["visitor"] = visitor.cookie
        event["ip"] = visitor.ip
        event["user_agent"] = visitor.user_agent
        event["language"] = visitor.language
        if visitor.user_id:
            event["user_id"] = visitor.user_id
    return events


def demo_traffic(today: date, days: int, rng: random.Random, base_visits: int = 110):
    """Every event of `days` days ending today (inclusive), in time order per visit."""
    visitors: list[Visitor] = []
    ips = [ip for ip, _ in COUNTRY_IPS]
    ip_weights = [w for _, w in COUNTRY_IPS]
    agents = [ua for ua, _ in USER_AGENTS]
    agent_weights = [w for _, w in USER_AGENTS]
    now = datetime.now(timezone.utc)
    for offset in range(days - 1, -1, -1):
        day = today - timedelta(days=offset)
        sources = sources_of(day, today)
        weights = [s.weight for s in sources]
        for _ in range(visits_on(day, today, rng, base_visits)):
            if visitors and rng.random() < 0.3:
                visitor = rng.choice(visitors)
            else:
                ip = rng.choices(ips, ip_weights)[0]
                visitor = Visitor(secrets.token_urlsafe(16), ip, rng.choices(agents, agent_weights)[0],
                                  LANGUAGES[ip])
                visitors.append(visitor)
            # More visits in the evening than at night.
            hour = min(23, max(0, int(rng.gauss(15, 4.5))))
            start = datetime.combine(day, time(hour, rng.randint(0, 59), rng.randint(0, 59)), tzinfo=timezone.utc)
            if start >= now - timedelta(minutes=30):
                continue
            events = visit_events(start, rng.choices(sources, weights)[0], visitor, rng)
            yield [event for event in events if event["at"] < now]
