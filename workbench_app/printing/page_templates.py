"""The header and footer Chromium prints on every page (Playwright's headerTemplate and
footerTemplate). Every piece of text comes from people (a dashboard's name, a filter's value, a
theme's header) and is escaped here: these templates are HTML, and nothing in them may run.
Chromium fills `pageNumber` and `totalPages` itself.
"""
from __future__ import annotations

from html import escape

from flask_babel import gettext

_BOX = ("font-size:8px;width:100%;margin:0 {left}mm 0 {right}mm;color:{color};display:flex;"
        "justify-content:space-between;gap:12px;font-family:{font}")
# The header and footer are drawn apart from the page, without its web fonts: close system ones.
FONT_STACKS = {"system": "'DejaVu Sans', 'Liberation Sans', sans-serif",
               "inter": "'DejaVu Sans', 'Liberation Sans', sans-serif",
               "atkinson-hyperlegible": "'DejaVu Sans', 'Liberation Sans', sans-serif",
               "source-serif-4": "'DejaVu Serif', 'Liberation Serif', serif"}


def _box(theme: dict) -> str:
    margins = theme["pdf"]["margins_mm"]
    return escape(_BOX.format(left=margins["left"], right=margins["right"], color=theme["colors"]["muted"],
                              font=FONT_STACKS.get(theme["font"], FONT_STACKS["system"])), quote=True)


def header_template(theme: dict, title: str, applied_filters: list[tuple[str, str]]) -> str:
    """The theme's header line (or the dashboard's name), then the filters applied."""
    left = theme["pdf"]["header"] or title
    right = ""
    if theme["pdf"]["show_filters"] and applied_filters:
        listed = ", ".join(f"{name}: {value}" for name, value in applied_filters)
        right = gettext("Filters: {0}").format(listed)
    return (f'<div style="{_box(theme)}"><span>{escape(left)}</span>'
            f'<span>{escape(right)}</span></div>')


def footer_template(theme: dict, printed_at: str) -> str:
    """The theme's footer line, the print date, and page x of y."""
    date = escape(gettext("Printed {0}").format(printed_at)) if theme["pdf"]["show_date"] else ""
    # The translated words are escaped first; only then do Chromium's page-number boxes go in.
    pages = escape(gettext("Page {0} of {1}")).format('<span class="pageNumber"></span>',
                                                      '<span class="totalPages"></span>')
    return (f'<div style="{_box(theme)}"><span>{escape(theme["pdf"]["footer"])}</span>'
            f'<span>{date}</span><span>{pages}</span></div>')
