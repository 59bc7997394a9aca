"""A dashboard printed as PDF on A4 by the real stack: the page size, the page count and the text
of every page read back with pypdf, a long table continued under its repeated header, the theme
of a folder two levels up in the header and footer, vectors for charts, and hostile text printed
as text."""
from __future__ import annotations

import unicodedata
from io import BytesIO

import pytest
from pypdf import PdfReader

from tests.workbench_ui.test_dashboards import MALICIOUS, _demo_question

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TABLE_ROWS = 150


def _is_a4(page, width: int = 595, height: int = 842) -> bool:
    """A4 (210 x 297 mm = 595 x 842 pt), within the point Chromium rounds its page box to."""
    return abs(float(page.mediabox.width) - width) <= 1 and abs(float(page.mediabox.height) - height) <= 1


@pytest.fixture(scope="module")
def printed_dashboard(stack) -> tuple[int, int]:
    """(dashboard id, filter id) of a dashboard in a subfolder of a themed folder."""
    theme = stack.ok("POST", "/themes", json={"name": "Print brand", "settings": {
        "font": "source-serif-4", "colors": {"primary": "#8a1c1c"},
        "pdf": {"header": "Acme <b>Analytics</b> report", "footer": "Confidential & internal"}}})
    top = stack.ok("POST", "/folders", json={"name": "Printed reports"})
    middle = stack.ok("POST", "/folders", json={"name": "Quarterly", "parent_id": top["folder_id"]})
    stack.ok("PUT", f"/folders/{top['folder_id']}/theme", json={"theme_id": theme["theme_id"]})
    table = stack.ok("POST", "/questions", json={
        "name": "Every organic visit", "folder_id": middle["folder_id"], "variables": {"channel": "text"},
        "sql": "SELECT visit_start, channel FROM visits WHERE true [[AND channel = {{channel}}]] "
               f"ORDER BY visit_start LIMIT {TABLE_ROWS}",
        "visualization": {"kind": "table"}})
    dashboard = stack.ok("POST", "/dashboards", json={
        "name": "Quarter <script>window.printed = 1</script>", "folder_id": middle["folder_id"],
        "cards": [{"key": "h", "kind": "heading", "text": "Traffic", "width": 12, "height": 1},
                  {"key": "c", "question_id": _demo_question(stack, "Visits by channel"), "row": 1, "width": 6},
                  {"key": "m", "kind": "text", "text": MALICIOUS, "row": 1, "col": 6, "width": 6},
                  {"key": "t", "question_id": table["question_id"], "row": 5, "width": 12}],
        "filters": [{"name": "Channel", "type": "text", "links": [{"card": "t", "variable": "channel"}]}]})
    return dashboard["dashboard_id"], dashboard["filters"][0]["filter_id"]


def _print(stack, dashboard_id: int, **params) -> PdfReader:
    answer = stack.api("GET", f"/dashboards/{dashboard_id}/pdf", params=params)
    assert answer.status_code == 200, answer.text[:500]
    assert answer.headers["Content-Type"] == "application/pdf"
    return PdfReader(BytesIO(answer.content))


def test_a_dashboard_prints_on_a4_portrait_with_its_folder_theme_and_a_long_table(stack, printed_dashboard):
    dashboard_id, filter_id = printed_dashboard
    reader = _print(stack, dashboard_id, **{f"f.{filter_id}": "Organic Search"})
    # NFKC: the header's font draws "fi" as one ligature glyph.
    pages = [unicodedata.normalize("NFKC", page.extract_text()) for page in reader.pages]
    count = len(pages)
    # 150 table rows do not fit on the first pages: the table runs over several.
    assert count >= 3
    assert all(_is_a4(page) for page in reader.pages)
    for number, text in enumerate(pages, start=1):
        # The theme of the folder two levels up: its header and footer, escaped, on every page.
        assert "Acme <b>Analytics</b> report" in text
        assert "Confidential & internal" in text
        assert f"Page {number} of {count}" in text
        assert "Filters: Channel: Organic Search" in text
        assert "Printed 20" in text
    body = "\n".join(pages)
    assert "Quarter <script>window.printed = 1</script>" in body  # a hostile name is text
    # Sanitised Markdown: its raw HTML dropped (the words between tags stay words), nothing of the tags left.
    assert "Counted without cookies." in body and "onerror" not in body and "<script>window.pwned" not in body
    assert "Visits by channel" in body and "Traffic" in body
    # The table's header row repeats on every page the table runs onto.
    first = next(i for i, text in enumerate(pages) if "Every organic visit" in text)
    assert count - first >= 2
    for text in pages[first:]:
        assert "visit_start" in text and "channel" in text
    assert body.count("Organic Search") >= TABLE_ROWS
    # Charts are vectors: no raster image anywhere in the document.
    assert all(len(page.images) == 0 for page in reader.pages)


def test_landscape_is_a4_turned(stack, printed_dashboard):
    dashboard_id, _ = printed_dashboard
    reader = _print(stack, dashboard_id, orientation="landscape")
    assert all(_is_a4(page, 842, 595) for page in reader.pages)
    assert "Page 1 of" in reader.pages[0].extract_text()


def test_a_person_prints_only_what_they_may_see(stack, printed_dashboard):
    dashboard_id, _ = printed_dashboard
    stack.create_user("no-reports@example.org")
    token = stack.ok("POST", "/auth/token", json={"email": "no-reports@example.org",
                                                  "password": "a long enough password"})["secret"]
    assert stack.api("GET", f"/dashboards/{dashboard_id}/pdf", token=token).status_code == 404
