"""MkDocs hook: `<!-- field-table: ServerEvent -->` in a page becomes the table of that event
component's fields, written from the event model (pipelines/ingest/field_tables.py)."""
from pipelines.ingest.field_tables import replace_markers


def on_page_markdown(markdown, page, config, files):
    return replace_markers(markdown)
