"""What a theme may say, checked field by field: fonts from the bundled set, colours, card style,
chart palette and PDF layout. A theme stores only what it sets; `complete` fills the rest from the
defaults (the product's own design tokens), so every reader gets a whole theme.
"""
from __future__ import annotations

import copy
import re
from typing import Any

from workbench_app.errors import invalid

# Bundled with the web application (@fontsource packages built by Vite): nothing is fetched at run
# time, and the PDF, printed by Chromium from the same page, draws the same letters.
FONTS = ("system", "inter", "source-serif-4", "atkinson-hyperlegible")
COLOR_NAMES = ("background", "surface", "text", "muted", "primary", "border")
ORIENTATIONS = ("portrait", "landscape")
MARGIN_SIDES = ("top", "right", "bottom", "left")
_HEX = re.compile(r"#[0-9a-fA-F]{6}\Z")

DEFAULTS: dict[str, Any] = {
    "font": "system",
    # The design tokens of pipelines/design/tokens.css (WCAG AA pairs).
    "colors": {"background": "#f6f7f9", "surface": "#ffffff", "text": "#1f2933", "muted": "#4b5563",
               "primary": "#1d4ed8", "border": "#d2d6dc"},
    "card": {"radius": 6, "border": "thin", "shadow": "soft"},
    "palette": ["#1d4ed8", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#db2777", "#65a30d"],
    "pdf": {"orientation": "portrait", "margins_mm": {"top": 18, "right": 12, "bottom": 18, "left": 12},
            "header": "", "footer": "", "show_filters": True, "show_date": True},
}


def _object(value: Any, field: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise invalid(f"{field} must be an object.", field=field)
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise invalid(f"{field} has unknown fields: {', '.join(unknown)}.", field=field)
    return value


def _color(value: Any, field: str) -> str:
    if not isinstance(value, str) or not _HEX.match(value):
        raise invalid(f"{field} must be a colour written #rrggbb.", field=field)
    return value.lower()


def _choice(value: Any, field: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise invalid(f"{field} must be one of: {', '.join(choices)}.", field=field)
    return value


def _whole(value: Any, field: str, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise invalid(f"{field} must be a whole number from {minimum} to {maximum}.", field=field)
    return value


def _line(value: Any, field: str) -> str:
    if not isinstance(value, str) or len(value) > 200 or any(c in value for c in "\x00\r\n"):
        raise invalid(f"{field} must be one line of at most 200 characters.", field=field)
    return value


def _flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise invalid(f"{field} must be true or false.", field=field)
    return value


def checked(settings: Any) -> dict[str, Any]:
    """The settings as given (only what they set), each value checked; refusals name the field."""
    settings = _object(settings, "settings", ("font", "colors", "card", "palette", "pdf"))
    out: dict[str, Any] = {}
    if "font" in settings:
        out["font"] = _choice(settings["font"], "settings.font", FONTS)
    if "colors" in settings:
        colors = _object(settings["colors"], "settings.colors", COLOR_NAMES)
        out["colors"] = {name: _color(value, f"settings.colors.{name}") for name, value in colors.items()}
    if "card" in settings:
        card = _object(settings["card"], "settings.card", ("radius", "border", "shadow"))
        out["card"] = {}
        if "radius" in card:
            out["card"]["radius"] = _whole(card["radius"], "settings.card.radius", 0, 24)
        if "border" in card:
            out["card"]["border"] = _choice(card["border"], "settings.card.border", ("none", "thin"))
        if "shadow" in card:
            out["card"]["shadow"] = _choice(card["shadow"], "settings.card.shadow", ("none", "soft"))
    if "palette" in settings:
        palette = settings["palette"]
        if not isinstance(palette, list) or not 1 <= len(palette) <= 8:
            raise invalid("settings.palette must be a list of 1 to 8 colours.", field="settings.palette")
        out["palette"] = [_color(value, "settings.palette") for value in palette]
    if "pdf" in settings:
        pdf = _object(settings["pdf"], "settings.pdf",
                      ("orientation", "margins_mm", "header", "footer", "show_filters", "show_date"))
        out["pdf"] = {}
        if "orientation" in pdf:
            out["pdf"]["orientation"] = _choice(pdf["orientation"], "settings.pdf.orientation", ORIENTATIONS)
        if "margins_mm" in pdf:
            margins = _object(pdf["margins_mm"], "settings.pdf.margins_mm", MARGIN_SIDES)
            out["pdf"]["margins_mm"] = {side: _whole(value, f"settings.pdf.margins_mm.{side}", 5, 40)
                                        for side, value in margins.items()}
        for name in ("header", "footer"):
            if name in pdf:
                out["pdf"][name] = _line(pdf[name], f"settings.pdf.{name}")
        for name in ("show_filters", "show_date"):
            if name in pdf:
                out["pdf"][name] = _flag(pdf[name], f"settings.pdf.{name}")
    return out


def complete(settings: dict[str, Any]) -> dict[str, Any]:
    """Stored settings over the defaults: every field present (a partial palette is kept as given)."""
    whole = copy.deepcopy(DEFAULTS)
    for key, value in settings.items():
        if isinstance(value, dict) and isinstance(whole.get(key), dict):
            for inner, inner_value in value.items():
                if isinstance(inner_value, dict):
                    whole[key][inner] = {**whole[key][inner], **inner_value}
                else:
                    whole[key][inner] = inner_value
        else:
            whole[key] = value
    return whole
