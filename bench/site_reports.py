"""Benchmark of a site's Overview report in Chromium against the real stack (issue 31).

Starts the product on a fresh home with the demo data (`analytics demo`, `analytics up`, which
makes the demo site's report set), then prints, for the demo site's Overview report (six numbers
with their change and the visits per day: seven cards, each comparing two periods) and, as the
baseline measured in the same run, for the Demo dashboard (four cards):

1. the time from navigation to every card answered and drawn, cold (the dashboard's cache off:
   every card runs; issue target <= 1.5 s for eight cards) and cached (every card a hit; target
   <= 300 ms), medians over --runs page loads;
2. the same reads through the API alone (the definition, then every card run at once), cold and
   cached, from this process with no browser: what the page cannot go below on this machine.

Run: ``python bench/site_reports.py [--runs N]`` (about three minutes; Debian chromium needed).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import requests
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analytics_cli.local_stack import LocalStack  # noqa: E402
from bench.dashboards import api_alone_seconds, signed_in_page, started_with_admin  # noqa: E402
from pipelines.demo import DEMO_SITE_NAME  # noqa: E402


def answered_seconds(page, url: str, cards: int, charts: int) -> float:
    """From navigation to every card's answer shown (its "updated" line) and every chart drawn."""
    started = time.perf_counter()
    page.goto(url)
    page.get_by_test_id("card-updated").nth(cards - 1).wait_for(timeout=60_000)
    if charts:
        page.locator("[data-testid=chart] svg").nth(charts - 1).wait_for(timeout=60_000)
    return time.perf_counter() - started


def shape(api: requests.Session, base: str, dashboard_id: int) -> tuple[int, int]:
    """(question cards, drawn charts) of a dashboard."""
    cards = [c for c in api.get(f"{base}/dashboards/{dashboard_id}").json()["cards"] if c["kind"] == "question"]
    charts = sum(1 for c in cards if (c["visualization"] or {}).get("kind") not in ("number", "change", "table"))
    return len(cards), charts


def set_cache(api: requests.Session, base: str, dashboard_id: int, ttl: int) -> None:
    api.put(f"{base}/dashboards/{dashboard_id}", json={"cache_ttl_seconds": ttl}).raise_for_status()


def measure(page, api, base: str, url: str, dashboard_id: int, runs: int) -> dict[str, list[float]]:
    cards, charts = shape(api, base, dashboard_id)
    set_cache(api, base, dashboard_id, 0)
    answered_seconds(page, url, cards, charts)  # assets into the browser's cache
    cold = [answered_seconds(page, url, cards, charts) for _ in range(runs)]
    cold_api = [api_alone_seconds(api, base, dashboard_id) for _ in range(runs)]
    set_cache(api, base, dashboard_id, 3600)
    api_alone_seconds(api, base, dashboard_id)  # fills the cache
    hot = [answered_seconds(page, url, cards, charts) for _ in range(runs)]
    hot_api = [api_alone_seconds(api, base, dashboard_id) for _ in range(runs)]
    return {"cards": [cards], "cold": cold, "cached": hot, "cold_api": cold_api, "cached_api": hot_api}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    stack = LocalStack.prepare()
    try:
        api, base = started_with_admin(stack)
        folders = api.get(f"{base}/folders").json()["folders"]
        site_folder = next(f["folder_id"] for f in folders if f["name"] == DEMO_SITE_NAME)
        listed = api.get(f"{base}/dashboards").json()["dashboards"]
        overview = next(d["dashboard_id"] for d in listed if d["name"] == "Overview" and d["folder_id"] == site_folder)
        demo = next(d["dashboard_id"] for d in listed if d["name"] == "Demo dashboard")
        with sync_playwright() as playwright:
            browser, page = signed_in_page(playwright, stack.workbench_url)
            figures = {
                "Demo dashboard (baseline)": measure(page, api, base, f"{stack.workbench_url}/dashboards/{demo}", demo,
                                                     runs),
                "Overview report of the demo site": measure(
                    page, api, base, f"{stack.workbench_url}/dashboards/{overview}", overview, runs),
            }
            browser.close()
    finally:
        stack.stop()
    for name, times in figures.items():
        cards = times["cards"][0]
        for key, label, target in (("cold", "cold (no cache)", " (target <= 1.5 s for 8 cards)"),
                                   ("cached", "cached", " (target <= 0.3 s)"),
                                   ("cold_api", "API alone, cold", ""), ("cached_api", "API alone, cached", "")):
            print(f"{name}, {cards} cards, {label}: median {statistics.median(times[key]):.3f} s, "
                  f"max {max(times[key]):.3f} s over {runs} loads{target if 'api' not in key else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
