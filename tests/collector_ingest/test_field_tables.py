"""The guide's tables of event fields are written from the event model: every field of each Struct
is listed with its limits, and the guide's page asks for each table."""
from __future__ import annotations

import msgspec
import pytest

from pipelines.ingest import event_model
from pipelines.ingest.field_tables import MARKER, field_table, replace_markers
from tests.conftest import REPO_ROOT

COLLECTION_PAGE = REPO_ROOT / "docs" / "site-owner" / "collection.md"


@pytest.mark.parametrize("struct", [event_model.ServerEvent, event_model.BrowserEvent, event_model.Item,
                                    event_model.BrowserBatch])
def test_every_field_of_the_model_has_a_row(struct):
    rows = field_table(struct.__name__).splitlines()[2:]
    assert [row.split(" | ")[0].strip("| `") for row in rows] == [f.name for f in msgspec.structs.fields(struct)]


def test_the_limits_in_the_table_are_the_models():
    server = field_table("ServerEvent")
    assert f"1 to {event_model.MAX_URL_LENGTH} characters" in server
    assert f"at most {event_model.MAX_PROPS} properties" in server
    assert f"text values of at most {event_model.MAX_PROP_VALUE_LENGTH} characters" in server
    assert f"at most {event_model.MAX_ITEMS} items" in server
    assert "`^[A-Za-z0-9_-]{22,64}$`" in server  # the visitor cookie, without the regex engines' lookahead
    assert f"1 to {event_model.MAX_BROWSER_EVENTS_PER_REQUEST} items" in field_table("BrowserBatch")


def test_the_collection_page_asks_for_every_table_and_each_is_written():
    page = COLLECTION_PAGE.read_text()
    assert MARKER.findall(page) == ["ServerEvent", "Item", "BrowserBatch", "BrowserEvent"]
    built = replace_markers(page)
    assert "<!-- field-table" not in built and "| `user_agent` | string | no | 1 to 1000 characters |" in built
