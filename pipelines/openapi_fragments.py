"""One rule for putting an OpenAPI document together from the parts its areas describe, for both
applications (collector_app/openapi/, workbench_app/api/openapi.py): each area hands a fragment
(`paths`, optionally `components` by kind and `tags`) and a path or a component described twice is
an error, never a silent override of one area's description by another's."""
from __future__ import annotations

from typing import Any


def merge_fragment(document: dict[str, Any], fragment: dict[str, Any], source: str) -> None:
    """Add `fragment`'s paths, components and tags to `document`; `source` names it in an error."""
    for path, item in fragment.get("paths", {}).items():
        if path in document["paths"]:
            raise ValueError(f"{source} describes {path}, already described")
        document["paths"][path] = item
    for kind, entries in fragment.get("components", {}).items():
        existing = document.setdefault("components", {}).setdefault(kind, {})
        for name, entry in entries.items():
            if name in existing:
                raise ValueError(f"{source} defines components.{kind}.{name}, already defined")
            existing[name] = entry
    if fragment.get("tags"):
        known = {tag["name"] for tag in document.setdefault("tags", [])}
        document["tags"].extend(tag for tag in fragment["tags"] if tag["name"] not in known)
