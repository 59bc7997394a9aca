"""A theme's logo: an uploaded raster image, its declared type checked against its first bytes.

SVG is refused rather than sanitised: an SVG is a document that may carry scripts, external
references and event handlers, and a raster logo loses nothing a dashboard header needs.
"""
from __future__ import annotations

from workbench_app.errors import WorkbenchError

MAX_BYTES = 256 * 1024
# The signature each accepted type starts with (WebP: RIFF....WEBP).
_SIGNATURES = {
    "image/png": lambda data: data.startswith(b"\x89PNG\r\n\x1a\n"),
    "image/jpeg": lambda data: data.startswith(b"\xff\xd8\xff"),
    "image/webp": lambda data: data[:4] == b"RIFF" and data[8:12] == b"WEBP",
}
TYPES = tuple(_SIGNATURES)


def checked_logo(content_type: str | None, data: bytes) -> tuple[bytes, str]:
    """(image bytes, type) of an upload; 413 when too large, 415 when not a PNG, JPEG or WebP image."""
    declared = (content_type or "").split(";")[0].strip().lower()
    if len(data) > MAX_BYTES:
        raise WorkbenchError(413, "payload_too_large", "A logo may be at most 256 KB.",
                             {"max_bytes": MAX_BYTES})
    if declared == "image/svg+xml" or data.lstrip()[:1] == b"<":
        raise WorkbenchError(415, "unsupported_media_type",
                             "SVG logos are refused (they can carry scripts): upload a PNG, JPEG or WebP image.")
    check = _SIGNATURES.get(declared)
    if check is None:
        raise WorkbenchError(415, "unsupported_media_type", "A logo is a PNG, JPEG or WebP image.",
                             {"types": list(TYPES)})
    if not data or not check(data):
        raise WorkbenchError(415, "unsupported_media_type",
                             "The logo's content is not the image type it is sent as.", {"type": declared})
    return data, declared
