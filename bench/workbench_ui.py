"""Benchmark of the workbench's web application in Chromium against the real stack (issue 11).

Starts the product on a fresh home with the demo data (`analytics demo`, `analytics up`), signs
in, and prints:

1. the gzip size of the JavaScript and CSS the first screen loads (target <= 250 KB; the editor
   and the charts load lazily);
2. the time from navigation to an interactive SQL editor, cold (new browser profile) and warm
   (assets cached) (target <= 1.5 s cold);
3. the time from Run to a drawn chart for an aggregate over 1,000,000 rows (a DuckDB file source
   made for the run), beside the same statement's API time measured in the same run (the UI
   should add <= 100 ms);
4. the time of the browser's forecast of a 1,000-point series, as the app records it with the
   User Timing API (target <= 50 ms);
5. the tab's JavaScript heap after 1 and after 20 runs of the same statement (it must not keep
   growing: the growth is printed).

Run: ``python bench/workbench_ui.py [--runs N]`` (about two minutes; Debian chromium needed).
"""
from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import duckdb
import requests
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analytics_cli.local_stack import LocalStack  # noqa: E402

EMAIL, PASSWORD = "bench@example.org", "a long enough password"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
AGGREGATE = "SELECT day, count(*) AS n, sum(amount) AS total FROM bench.main.events GROUP BY 1 ORDER BY 1"
FORECAST_SERIES = ("SELECT DATE '2022-01-01' + CAST(i AS INTEGER) AS day, 100 + (i % 7) * 5 + i / 10.0 AS visits "
                   "FROM bench.main.series ORDER BY 1")


def make_source(folder: Path) -> Path:
    path = folder / "bench.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("""create table events as select i as id, date '2024-01-01' + cast(i % 730 as integer) as day,
                        (i * 7 % 1000) / 10.0 as amount from range(1000000) t(i)""")
        conn.execute("create table series as select i from range(1000) t(i)")
    return path


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def sign_in(context, base_url):
    page = context.new_page()
    page.goto(f"{base_url}/sign-in")
    page.get_by_label("E-mail address").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("navigation").first.wait_for()
    return page


def first_screen_size(browser, base_url):
    context = browser.new_context()
    sign_in(context, base_url).close()
    page = context.new_page()
    assets = []
    page.on("response", lambda r: assets.append(r) if r.request.resource_type in ("script", "stylesheet") else None)
    page.goto(f"{base_url}/")
    page.get_by_role("heading", name="Browse").wait_for()
    page.wait_for_load_state("networkidle")
    sizes = {r.url.rsplit("/", 1)[-1]: len(gzip.compress(r.body(), 9)) for r in assets}
    context.close()
    return sizes


def editor_ready(browser, base_url, runs):
    cold, warm = [], []
    for _ in range(runs):
        context = browser.new_context()
        sign_in(context, base_url).close()
        page = context.new_page()
        for times in (cold, warm):
            page.goto(f"{base_url}/sql")
            page.wait_for_selector(".cm-content[contenteditable=true]")
            times.append(page.evaluate("performance.now()"))
        context.close()
    return cold, warm


RUN_AND_WAIT = """async () => {
    performance.clearMarks('workbench:chart-drawn');
    const start = performance.now();
    [...document.querySelectorAll('button')].find(b => b.textContent === 'Run').click();
    while (performance.getEntriesByName('workbench:chart-drawn').length === 0) {
        await new Promise(r => setTimeout(r, 2));
        if (performance.now() - start > 60000) throw new Error('no chart after 60 s');
    }
    return performance.getEntriesByName('workbench:chart-drawn')[0].startTime - start;
}"""


def heap(cdp):
    cdp.send("HeapProfiler.collectGarbage")
    return cdp.send("Runtime.getHeapUsage")["usedSize"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    stack = LocalStack.prepare()
    try:
        stack.start()
        token = stack.create_admin(EMAIL, PASSWORD, "Bench")
        api = requests.Session()
        api.headers["Authorization"] = f"Bearer {token}"
        source = make_source(stack.root)
        api.post(f"{stack.workbench_url}/api/v1/sources", json={"name": "bench", "kind": "duckdb",
                                                                 "options": {"path": str(source)}}).raise_for_status()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            sizes = first_screen_size(browser, stack.workbench_url)
            cold, warm = editor_ready(browser, stack.workbench_url, 5)

            context = browser.new_context()
            page = sign_in(context, stack.workbench_url)
            page.goto(f"{stack.workbench_url}/sql?sql={quote(AGGREGATE)}")
            page.wait_for_selector(".cm-content[contenteditable=true]")
            cdp = context.new_cdp_session(page)
            ui, heaps = [], []
            for run in range(runs):
                ui.append(page.evaluate(RUN_AND_WAIT))
                if run in (0, runs // 2 - 1, runs - 1):
                    heaps.append(heap(cdp))
            api_times = []
            for _ in range(runs):
                started = time.perf_counter()
                api.post(f"{stack.workbench_url}/api/v1/sql", json={"sql": AGGREGATE}).raise_for_status()
                api_times.append((time.perf_counter() - started) * 1000)

            page.goto(f"{stack.workbench_url}/sql?sql={quote(FORECAST_SERIES)}")
            page.wait_for_selector(".cm-content[contenteditable=true]")
            page.evaluate(RUN_AND_WAIT)
            page.evaluate("performance.clearMeasures('forecast')")
            page.get_by_label("Forecast").select_option("12")
            try:
                page.wait_for_function("() => performance.getEntriesByName('forecast').length > 0", timeout=10000)
                forecast_ms = page.evaluate("performance.getEntriesByName('forecast').map(e => e.duration)")
            except PlaywrightTimeout:
                forecast_ms = []
            browser.close()
    finally:
        stack.stop()

    total = sum(sizes.values())
    print("Workbench web application, Chromium against the real stack (demo data)")
    print(f"1. first screen JS+CSS: {total / 1024:.1f} KB gzip in {len(sizes)} files (target <= 250 KB)")
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        print(f"     {size / 1024:7.1f} KB  {name}")
    print(f"2. navigation to an interactive SQL editor: cold p50 {statistics.median(cold):.0f} ms, "
          f"max {max(cold):.0f} ms; warm p50 {statistics.median(warm):.0f} ms (target <= 1500 ms cold)")
    ui_p50, api_p50 = statistics.median(ui), statistics.median(api_times)
    print(f"3. Run -> drawn chart, 1,000,000-row aggregate: UI p50 {ui_p50:.0f} ms, p95 {percentile(ui, 0.95):.0f} ms; "
          f"API alone p50 {api_p50:.0f} ms; the UI adds {ui_p50 - api_p50:.0f} ms (target <= 100 ms)")
    print(f"4. forecast of a 1,000-point series in the browser: "
          + (f"{max(forecast_ms):.1f} ms" if forecast_ms else "not recorded (no forecast measure)") + " (target <= 50 ms)")
    print(f"5. JS heap after a garbage collection: {heaps[0] / 1e6:.2f} MB after 1 run, {heaps[1] / 1e6:.2f} MB after "
          f"{runs // 2}, {heaps[2] / 1e6:.2f} MB after {runs}: growth {(heaps[1] - heaps[0]) / 1e6:+.2f} MB over the "
          f"first half, {(heaps[2] - heaps[1]) / 1e6:+.2f} MB over the second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
