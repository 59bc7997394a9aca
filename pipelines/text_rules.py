"""One rule for the text the services store, for the collector's checks and the workbench's alike.

PostgreSQL text (and jsonb) holds neither NUL nor an unpaired surrogate, and JSON can carry both
(`"\\u0000"`, `"\\ud800"`): such a value is refused at the edge, never left to fail a transaction
later (a 500). A single-line field (a name, a label) holds no control character either.
"""
from __future__ import annotations

import re

CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_unpaired_surrogate(value: str) -> bool:
    """A surrogate in a Python string is always unpaired: a JSON pair decodes to one character."""
    return _SURROGATE.search(value) is not None


def storable(value: str) -> bool:
    return "\x00" not in value and not has_unpaired_surrogate(value)


def single_line(value: str) -> bool:
    return CONTROL.search(value) is None
