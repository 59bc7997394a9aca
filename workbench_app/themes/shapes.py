"""Themes as requests create, change and assign them (base: request_shapes.py). A theme's settings
are checked by themes/settings.py, which names the setting that is wrong."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import WithJsonSchema

from workbench_app.request_shapes import RequestShape, Text, WholeNumber

_SETTINGS = WithJsonSchema({"allOf": [{"$ref": "#/components/schemas/ThemeSettings"}]})
ThemeName = Text(100, allow_empty=False)


class NewTheme(RequestShape):
    name: ThemeName
    settings: Annotated[Any, _SETTINGS] = {}
    """The theme's settings (the defaults for those left out)."""


class ThemeChange(RequestShape):
    """A rename and/or the settings replaced whole."""
    name: ThemeName = None
    settings: Annotated[dict[str, Any], _SETTINGS] = None


class ThemeAssignment(RequestShape):
    theme_id: WholeNumber(1) | None
    """The theme of the folder or dashboard; null: the one it inherits."""
