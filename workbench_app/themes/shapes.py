"""Themes as requests create, change and assign them (base: request_shapes.py), and as the API
answers them (base: answer_shapes.py). A theme's settings are checked by themes/settings.py, which
names the setting that is wrong."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import WithJsonSchema

from workbench_app.answer_shapes import AnswerShape
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


# The answers (base: answer_shapes.py). A theme's settings are described from themes/settings.py's own
# names and bounds (openapi_paths.py: ThemeSettings as given, ResolvedThemeSettings whole).
_RESOLVED = WithJsonSchema({"allOf": [{"$ref": "#/components/schemas/ResolvedThemeSettings"}]})


class Theme(AnswerShape):
    theme_id: int
    name: str
    settings: Annotated[dict[str, Any], _SETTINGS]
    """The settings as the theme gives them."""
    resolved: Annotated[dict[str, Any], _RESOLVED]
    """Every setting: the theme's, else the default."""
    has_logo: bool
    created_at: datetime
    updated_at: datetime


class ThemeList(AnswerShape):
    themes: list[Theme]


class ThemeSource(AnswerShape):
    kind: Literal["dashboard", "folder", "default"]
    id: int | None


class EffectiveTheme(AnswerShape):
    """The theme that applies: a dashboard's own, else the nearest folder's up the chain, else the
    defaults (theme_id null)."""
    theme_id: int | None
    name: str | None
    has_logo: bool
    source: ThemeSource
    settings: Annotated[dict[str, Any], _RESOLVED]
