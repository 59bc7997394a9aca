"""The themes' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in); a theme's
settings are described here from themes/settings.py's names and bounds."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import model_body, ref as _ref
from workbench_app.themes import logo
from workbench_app.themes.settings import COLOR_NAMES, FONTS, MARGIN_SIDES, ORIENTATIONS
from workbench_app.themes.shapes import EffectiveTheme, NewTheme, Theme, ThemeAssignment, ThemeChange, ThemeList

# The request and answer bodies declared as models (their components are generated from them).
REQUESTS = (NewTheme, ThemeChange, ThemeAssignment)
ANSWERS = (Theme, ThemeList, EffectiveTheme)

_COLOR = {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}
_LINE = {"type": "string", "maxLength": 200, "pattern": "^[^\\x00\\r\\n]*$"}


def _settings(required: bool) -> dict[str, Any]:
    """Theme settings: as given (every field optional) or whole (every field present)."""
    def obj(properties: dict[str, Any]) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            schema["required"] = list(properties)
        return schema

    return obj({
        "font": {"enum": list(FONTS)},
        "colors": obj({name: _COLOR for name in COLOR_NAMES}),
        "card": obj({"radius": {"type": "integer", "minimum": 0, "maximum": 24}, "border": {"enum": ["none", "thin"]},
                     "shadow": {"enum": ["none", "soft"]}}),
        "palette": {"type": "array", "minItems": 1, "maxItems": 8, "items": _COLOR},
        "pdf": obj({"orientation": {"enum": list(ORIENTATIONS)},
                    "margins_mm": obj({side: {"type": "integer", "minimum": 5, "maximum": 40} for side in MARGIN_SIDES}),
                    "header": _LINE, "footer": _LINE, "show_filters": {"type": "boolean"},
                    "show_date": {"type": "boolean"}}),
    })


SCHEMAS: dict[str, Any] = {
    "ThemeSettings": _settings(required=False),
    "ResolvedThemeSettings": _settings(required=True),
}

_LOGO_BODY = {"required": True, "description": f"The image itself, at most {logo.MAX_BYTES} bytes; SVG is refused.",
              "content": {kind: {"schema": {"type": "string", "format": "binary"}} for kind in logo.TYPES}}


def paths(op, also) -> dict[str, Any]:
    admin_only = ("403", "forbidden: administrators only")
    theme_body = model_body(NewTheme)
    assign = model_body(ThemeAssignment)

    def logo_upload() -> dict[str, Any]:
        operation = also(op("Upload a theme logo", "themes", params=("theme_id",), result=_ref("Theme")),
                         admin_only, ("413", "The image is over 256 KB"),
                         ("415", "Not a PNG, JPEG or WebP image (SVG is refused), or not what its type says"))
        operation["requestBody"] = _LOGO_BODY
        return operation

    def logo_image() -> dict[str, Any]:
        operation = op("Get a theme logo", "themes", params=("theme_id",))
        operation["responses"]["200"] = {"description": "The image", "content": {
            kind: {"schema": {"type": "string", "format": "binary"}} for kind in logo.TYPES}}
        return operation

    return {
        "/themes": {"get": op("List themes", "themes", result=_ref("ThemeList")),
                    "post": also(op("Create a theme", "themes", ok=201, body=theme_body, result=_ref("Theme")),
                                 admin_only)},
        "/themes/{theme_id}": {
            "get": op("Get a theme", "themes", params=("theme_id",), result=_ref("Theme")),
            "put": also(op("Update a theme", "themes", params=("theme_id",), result=_ref("Theme"),
                           body=model_body(ThemeChange)), admin_only),
            "delete": also(op("Delete a theme", "themes", ok=204, params=("theme_id",)), admin_only)},
        "/themes/{theme_id}/logo": {
            "get": logo_image(), "put": logo_upload(),
            "delete": also(op("Remove a theme logo", "themes", params=("theme_id",), result=_ref("Theme")),
                           admin_only)},
        "/folders/{folder_id}/theme": {
            "get": op("Get the theme of a folder", "themes", params=("folder_id",), result=_ref("EffectiveTheme")),
            "put": op("Set the theme of a folder", "themes", params=("folder_id",), body=assign,
                      result=_ref("EffectiveTheme"))},
        "/dashboards/{dashboard_id}/theme": {
            "get": op("Get the theme of a dashboard", "themes", params=("dashboard_id",),
                      result=_ref("EffectiveTheme")),
            "put": op("Set the theme of a dashboard", "themes", params=("dashboard_id",), body=assign,
                      result=_ref("EffectiveTheme"))},
        "/questions/{question_id}/theme": {
            "get": op("Get the theme of a question", "themes", params=("question_id",),
                      result=_ref("EffectiveTheme"))},
    }
